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
package dev.sourcebackfill.source.iceberg;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.LocalFileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RawLocalFileSystem;
import org.apache.hadoop.fs.permission.FsPermission;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.attribute.PosixFilePermission;
import java.util.EnumSet;
import java.util.Set;

/**
 * Hadoop's local file system for the tables the tests write, less a process for every file: without
 * Hadoop's native library, {@link RawLocalFileSystem} sets the permission of each file and
 * directory it creates by running {@code chmod} in a new process ({@code Shell.execCommand}), and
 * an Iceberg commit on a Hadoop catalog creates several (data, manifest, manifest list, metadata,
 * version hint, each with its checksum file). That was most of the time of tests that write many
 * small tables ({@code TableHistoryBoundsTest}: three quarters of its 45 s in {@code
 * ProcessImpl.forkAndExec}). This one sets the same permission bits through {@code java.nio};
 * everything else is Hadoop's own.
 *
 * <p>{@link IcebergTestTables#hadoopConf()} names it for the {@code file} scheme, with the file
 * system cache off for that scheme: a {@code file} file system cached in the JVM with Hadoop's
 * default would otherwise be reused.
 */
public final class InProcessChmodLocalFileSystem extends LocalFileSystem {

    /** Hadoop's owner, group and other bits, highest first. */
    private static final PosixFilePermission[] BITS = {
        PosixFilePermission.OWNER_READ,
        PosixFilePermission.OWNER_WRITE,
        PosixFilePermission.OWNER_EXECUTE,
        PosixFilePermission.GROUP_READ,
        PosixFilePermission.GROUP_WRITE,
        PosixFilePermission.GROUP_EXECUTE,
        PosixFilePermission.OTHERS_READ,
        PosixFilePermission.OTHERS_WRITE,
        PosixFilePermission.OTHERS_EXECUTE,
    };

    public InProcessChmodLocalFileSystem() {
        super(new Raw());
    }

    /** A configuration whose {@code file} scheme is this file system. */
    static Configuration configuration() {
        Configuration conf = new Configuration();
        conf.set("fs.file.impl", InProcessChmodLocalFileSystem.class.getName());
        conf.setBoolean("fs.file.impl.disable.cache", true);
        return conf;
    }

    /** Hadoop's raw local file system, its permissions set in this process. */
    private static final class Raw extends RawLocalFileSystem {
        @Override
        public void setPermission(Path p, FsPermission permission) throws IOException {
            short mode = permission.toShort();
            Set<PosixFilePermission> permissions = EnumSet.noneOf(PosixFilePermission.class);
            for (int i = 0; i < BITS.length; i++) {
                if ((mode & (1 << (BITS.length - 1 - i))) != 0) {
                    permissions.add(BITS[i]);
                }
            }
            Files.setPosixFilePermissions(pathToFile(p).toPath(), permissions);
        }
    }
}
