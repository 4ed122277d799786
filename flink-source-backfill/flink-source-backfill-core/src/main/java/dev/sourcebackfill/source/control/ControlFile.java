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

import org.apache.flink.annotation.Internal;
import org.apache.flink.core.fs.FSDataInputStream;
import org.apache.flink.core.fs.FSDataOutputStream;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.UUID;

/**
 * A source's control file on Flink's {@link FileSystem} (a local path, HDFS, S3...): the {@link
 * BackfillControl} the enumerator applies, which the {@code backfill} client writes. It holds the
 * wanted state, not commands: reading it again changes nothing, and a restored job reads what the
 * operator wants now.
 */
@Internal
public final class ControlFile {

    /** A control file holds a few lines; more is not one. */
    private static final int MAX_BYTES = 64 * 1024;

    private final Path path;

    public ControlFile(String path) {
        this.path = new Path(path);
    }

    public Path path() {
        return path;
    }

    /**
     * The control the file holds; empty if there is no file.
     *
     * @throws IOException if the file cannot be read or is too large
     * @throws IllegalArgumentException if it does not hold a control (naming the file and line)
     */
    public Optional<BackfillControl> read() throws IOException {
        FileSystem fs = path.getFileSystem();
        if (!fs.exists(path)) {
            return Optional.empty();
        }
        byte[] bytes;
        try (FSDataInputStream in = fs.open(path)) {
            bytes = in.readNBytes(MAX_BYTES + 1);
        } catch (FileNotFoundException e) {
            // removed since it was looked for: a write moving the old file aside
            return Optional.empty();
        }
        if (bytes.length > MAX_BYTES) {
            throw new IOException(
                    "Backfill control file " + path + " is larger than " + MAX_BYTES + " bytes");
        }
        return Optional.of(
                BackfillControl.parse(new String(bytes, StandardCharsets.UTF_8), path.toString()));
    }

    /**
     * Writes the control: to a file beside it, then renamed onto its path, so that a reader never
     * sees half of it. Where rename does not replace an existing file (Hadoop's file systems: HDFS,
     * S3A, ABFS; Presto's S3), the old file is moved aside first and removed once the new one is in
     * place; if that fails, the old one is moved back. A read in between finds no file, which
     * changes nothing.
     *
     * @throws IOException naming the file if the control could not be written (the file then holds
     *     the control it held before)
     */
    public void write(BackfillControl control) throws IOException {
        FileSystem fs = path.getFileSystem();
        Path parent = path.getParent();
        if (parent != null && !fs.exists(parent)) {
            fs.mkdirs(parent);
        }
        Path temporary = new Path(parent, "." + path.getName() + "." + UUID.randomUUID() + ".tmp");
        try (FSDataOutputStream out = fs.create(temporary, FileSystem.WriteMode.NO_OVERWRITE)) {
            out.write(control.toText().getBytes(StandardCharsets.UTF_8));
        }
        if (fs.rename(temporary, path)) {
            return;
        }
        Path aside = new Path(parent, "." + path.getName() + "." + UUID.randomUUID() + ".old");
        if (fs.exists(path) && fs.rename(path, aside)) {
            if (fs.rename(temporary, path)) {
                fs.delete(aside, false);
                return;
            }
            // the old control goes back where it was
            fs.rename(aside, path);
        }
        fs.delete(temporary, false);
        throw new IOException(
                "Could not write the backfill control file "
                        + path
                        + " (its file system refused the rename); it holds what it held before");
    }

    @Override
    public String toString() {
        return path.toString();
    }
}
