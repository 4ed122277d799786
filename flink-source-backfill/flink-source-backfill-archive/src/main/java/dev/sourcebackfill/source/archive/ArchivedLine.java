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
package dev.sourcebackfill.source.archive;

import org.apache.flink.annotation.Internal;
import org.apache.flink.core.fs.Path;

/**
 * A line of an archive file as the backfill reader hands it on: its bytes, what the file holds and
 * where it is (for errors that name it).
 */
@Internal
final class ArchivedLine {

    private final byte[] bytes;
    private final ArchivedFile file;
    private final Path path;

    ArchivedLine(byte[] bytes, ArchivedFile file, Path path) {
        this.bytes = bytes;
        this.file = file;
        this.path = path;
    }

    /** The line's bytes as the file holds them, without the line end. */
    byte[] bytes() {
        return bytes;
    }

    ArchivedFile file() {
        return file;
    }

    /** The archive file's path. */
    Path path() {
        return path;
    }
}
