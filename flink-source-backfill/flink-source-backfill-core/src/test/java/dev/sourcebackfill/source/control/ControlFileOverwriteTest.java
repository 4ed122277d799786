/*
 * Copyright 2026 the flink-source-backfill authors.
 *
 * Licensed under the Apache License, Version 2.0 (the "License");
 * you may not use this file except in compliance with the License.
 * You may obtain a copy of the License at
 *
 *     http://www.apache.org/licenses/LICENSE-2.0
 *
 * Unless required by applicable law or agreed to in writing, software
 * distributed under the License is distributed on an "AS IS" BASIS,
 * WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
 * See the License for the specific language governing permissions and
 * limitations under the License.
 */
package dev.sourcebackfill.source.control;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.FileSystemFactory;
import org.apache.flink.core.fs.Path;
import org.apache.flink.core.fs.local.LocalFileSystem;
import org.apache.flink.core.plugin.PluginManager;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.URI;
import java.util.Collections;
import java.util.Iterator;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The control file is written by renaming a temporary file over it. HDFS, S3A and ABFS (Flink's
 * HadoopFileSystem delegates to Hadoop's {@code rename(src, dst)}) and Presto's S3 file system do
 * not rename onto an existing file: they return false (HADOOP-13823: "something HDFS, azure and s3n
 * do not permit (though file:// does)"). This file system has that contract, over local files.
 */
class ControlFileOverwriteTest {

    /** A local file system whose rename does not overwrite, as Hadoop's rename(src, dst). */
    static final class NoOverwriteFileSystem extends LocalFileSystem {
        @Override
        public URI getUri() {
            return URI.create("nooverwrite:///");
        }

        @Override
        public boolean rename(Path src, Path dst) throws IOException {
            if (exists(dst)) {
                return false;
            }
            return super.rename(src, dst);
        }
    }

    static final class Factory implements FileSystemFactory {
        @Override
        public String getScheme() {
            return "nooverwrite";
        }

        @Override
        public FileSystem create(URI fsUri) {
            return new NoOverwriteFileSystem();
        }
    }

    @BeforeEach
    void register() {
        FileSystem.initialize(
                new Configuration(),
                new PluginManager() {
                    @Override
                    @SuppressWarnings("unchecked")
                    public <P> Iterator<P> load(Class<P> service) {
                        return service == FileSystemFactory.class
                                ? (Iterator<P>) Collections.singletonList(new Factory()).iterator()
                                : Collections.emptyIterator();
                    }
                });
    }

    @AfterEach
    void reset() {
        FileSystem.initialize(new Configuration(), null);
    }

    @TempDir java.nio.file.Path dir;

    @Test
    void aSecondWriteReplacesTheControlOnAFileSystemWhoseRenameDoesNotOverwrite() throws Exception {
        ControlFile file = new ControlFile("nooverwrite://" + dir.resolve("orders.control"));
        file.write(BackfillControl.asBuilt().withPaused(true)); // backfill pause
        // backfill resume: the operator's second command
        file.write(BackfillControl.asBuilt());
        assertThat(file.read()).contains(BackfillControl.asBuilt());
    }
}
