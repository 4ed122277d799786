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

import org.apache.flink.api.common.serialization.SimpleStringSchema;
import org.apache.flink.core.fs.Path;
import org.apache.flink.metrics.SimpleCounter;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.apache.flink.util.SimpleUserCodeClassLoader;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A fresh listing that no longer holds a file a split has read (archive retention deleting the
 * oldest files during a long backfill) does not move the split on by a file: with offsets read from
 * the record a skipped file's records would be lost, with counted offsets the job would fail
 * claiming that two files that continue each other do not.
 */
class ArchiveListingShiftTest {

    @TempDir java.nio.file.Path root;

    private java.nio.file.Path file(int p, long start, long from, long to) throws IOException {
        java.nio.file.Path dir = root.resolve("t").resolve("partition=" + p);
        Files.createDirectories(dir);
        java.nio.file.Path f = dir.resolve(String.format("t+%d+%010d.json", p, start));
        StringBuilder lines = new StringBuilder();
        for (long o = from; o < to; o++) {
            lines.append(p).append('|').append(o).append('\n');
        }
        Files.writeString(f, lines.toString(), StandardCharsets.UTF_8);
        return f;
    }

    private ArchiveReader<String> reader(boolean offsetFromRecord) throws Exception {
        ArchiveFormat<String> format = ArchiveFormat.lines(new SimpleStringSchema());
        format.open(
                ArchiveFormat.context(
                        new UnregisteredMetricsGroup(),
                        SimpleUserCodeClassLoader.create(getClass().getClassLoader())));
        return new ArchiveReader<>(
                new Path(root.toUri()),
                ArchiveLayout.kafkaConnect(),
                format,
                offsetFromRecord ? v -> Long.parseLong(v.substring(v.indexOf('|') + 1)) : null,
                6, // 3 records per split and poll
                false,
                new SimpleCounter());
    }

    /** Reads split t-1 while t-0 ends and the oldest file of t-1 is deleted; t-1's offsets. */
    private List<Long> readWhileTheOldestFileOfT1IsDeleted(boolean offsetFromRecord)
            throws Exception {
        file(0, 0, 0, 3);
        java.nio.file.Path oldest = file(1, 0, 0, 10);
        file(1, 10, 10, 20);
        file(1, 20, 20, 30);
        file(1, 30, 30, 40);
        List<Long> t1 = new ArrayList<>();
        try (ArchiveReader<String> reader = reader(offsetFromRecord)) {
            reader.addSplit("t-0", 0);
            reader.addSplit("t-1", 0);
            // t-1 reads into its second file; t-0 reads its only file to its end
            while (t1.isEmpty() || t1.get(t1.size() - 1) < 12) {
                reader.poll(
                        Duration.ofMillis(1),
                        (s, o, ts, v) -> {
                            if (s.equals("t-1")) {
                                t1.add(o);
                            }
                        });
            }
            reader.poll(
                    Duration.ofMillis(1),
                    (s, o, ts, v) -> {
                        if (s.equals("t-1")) {
                            t1.add(o);
                        }
                    });
            // retention deletes the file t-1 has read already
            Files.delete(oldest);
            // the source asks whether t-0's archive ended: a fresh listing
            assertThat(reader.isEndOfSplit("t-0")).isTrue();
            for (int i = 0; i < 1_000 && !reader.isEndOfSplit("t-1"); i++) {
                reader.poll(
                        Duration.ofMillis(1),
                        (s, o, ts, v) -> {
                            if (s.equals("t-1")) {
                                t1.add(o);
                            }
                        });
            }
        }
        return t1;
    }

    private static List<Long> range(long from, long to) {
        return LongStream.range(from, to).boxed().collect(Collectors.toList());
    }

    @Test
    void offsetsFromTheRecordLoseNoFileWhenAnAlreadyReadFileIsDeleted() throws Exception {
        assertThat(readWhileTheOldestFileOfT1IsDeleted(true))
                .as("t-1's offsets: every archived offset exactly once")
                .containsExactlyElementsOf(range(0, 40));
    }

    @Test
    void countedOffsetsReadOnWhenAnAlreadyReadFileIsDeleted() throws Exception {
        assertThat(readWhileTheOldestFileOfT1IsDeleted(false))
                .as("t-1's offsets: every archived offset exactly once")
                .containsExactlyElementsOf(range(0, 40));
    }
}
