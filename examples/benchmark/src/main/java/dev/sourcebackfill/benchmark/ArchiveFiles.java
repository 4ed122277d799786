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
package dev.sourcebackfill.benchmark;

import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.LongFunction;

/** Writes a partition's archive in the Kafka Connect layout, a line per offset. */
final class ArchiveFiles {

    private ArchiveFiles() {}

    /**
     * Files {@code <topic>/partition=<p>/<topic>+<p>+<start>.json} under {@code archive}, each of
     * {@code linesPerFile} lines, for offsets 0 to {@code end}, line {@code o} being {@code
     * line.apply(o)}.
     */
    static void write(
            Path archive,
            String topic,
            int partition,
            long end,
            int linesPerFile,
            LongFunction<String> line)
            throws IOException {
        Path dir = archive.resolve(topic).resolve("partition=" + partition);
        Files.createDirectories(dir);
        for (long from = 0; from < end; from += linesPerFile) {
            Path file = dir.resolve(String.format("%s+%d+%010d.json", topic, partition, from));
            try (BufferedWriter out = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
                for (long o = from; o < Math.min(end, from + linesPerFile); o++) {
                    out.write(line.apply(o));
                    out.write('\n');
                }
            }
        }
    }
}
