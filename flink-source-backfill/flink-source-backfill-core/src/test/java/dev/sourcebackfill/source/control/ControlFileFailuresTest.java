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
import org.apache.flink.core.fs.FSDataInputStream;
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
import java.nio.file.Files;
import java.util.Collections;
import java.util.Iterator;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A control file's write where rename fails or does not replace, and a read during a write. */
class ControlFileFailuresTest {

    /** Renames that do not replace (Hadoop's contract); the n-th rename may fail (transient). */
    static final AtomicInteger RENAMES = new AtomicInteger();

    static volatile int failRename = -1;

    /** Simulates a writer that deletes the file between the reader's exists() and open(). */
    static final AtomicBoolean DELETE_BEFORE_OPEN = new AtomicBoolean();

    static final class FlakyNoOverwriteFileSystem extends LocalFileSystem {
        @Override
        public URI getUri() {
            return URI.create("flakynooverwrite:///");
        }

        @Override
        public boolean rename(Path src, Path dst) throws IOException {
            int n = RENAMES.incrementAndGet();
            if (n == failRename || exists(dst)) {
                return false;
            }
            return super.rename(src, dst);
        }

        @Override
        public FSDataInputStream open(Path f) throws IOException {
            if (DELETE_BEFORE_OPEN.getAndSet(false)) {
                super.delete(f, false); // the client's write: its delete, its rename not yet
            }
            return super.open(f);
        }
    }

    static final class Factory implements FileSystemFactory {
        @Override
        public String getScheme() {
            return "flakynooverwrite";
        }

        @Override
        public FileSystem create(URI fsUri) {
            return new FlakyNoOverwriteFileSystem();
        }
    }

    @TempDir java.nio.file.Path dir;

    @BeforeEach
    void register() {
        RENAMES.set(0);
        failRename = -1;
        DELETE_BEFORE_OPEN.set(false);
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

    /**
     * set-rate on a paused backfill, on a file system whose rename does not replace: the old file
     * is moved aside, then the rename of the new one fails (a transient error, a quota, a lease):
     * the write fails and the old control is back (from the re-review: it used to be deleted, and a
     * retried command then started from no control: a paused backfill resumed).
     */
    @Test
    void aFailedRenameAfterTheDeleteKeepsTheOldControl() throws Exception {
        ControlFile file = new ControlFile("flakynooverwrite://" + dir.resolve("orders.control"));
        BackfillControl paused = BackfillControl.asBuilt().withPaused(true);
        file.write(paused); // rename #1: no file yet, works
        // rename #2 (onto the file) is refused; #3 moves the old aside, #4 puts the new in place
        for (int failing : new int[] {3, 4}) {
            RENAMES.set(1);
            failRename = failing;
            assertThatThrownBy(() -> file.write(paused.withRate(500)))
                    .isInstanceOf(IOException.class)
                    .hasMessageContaining("it holds what it held before");
            assertThat(file.read()).as("rename %d refused", failing).contains(paused);
        }
        try (var files = Files.list(dir)) {
            assertThat(files)
                    .as("nothing left beside it")
                    .containsExactly(dir.resolve("orders.control"));
        }
        failRename = -1;
        file.write(paused.withRate(500));
        assertThat(file.read()).contains(paused.withRate(500));
    }

    /**
     * A read whose exists() came before a write moved the file aside and whose open() after it
     * finds no file, which changes nothing (from the re-review: it threw, and the enumerator
     * counted a bad control file).
     */
    @Test
    void aReadBetweenTheDeleteAndTheRenameFindsNoFile() throws Exception {
        java.nio.file.Path local = dir.resolve("orders.control");
        ControlFile file = new ControlFile("flakynooverwrite://" + local);
        file.write(BackfillControl.asBuilt().withPaused(true));
        DELETE_BEFORE_OPEN.set(true);
        assertThat(file.read()).isEmpty();
        assertThat(Files.exists(local)).isFalse();
    }
}
