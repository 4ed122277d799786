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

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.SoftAssertions.assertSoftly;

/**
 * {@code ArchiveFormat.lines} ends a record at {@code '\n'} only: a raw value holding a lone
 * carriage return stays one record. Split in two, every later counted offset of the partition would
 * be one too high, and the handover would seek the topic one offset past the archive's end.
 */
class ArchiveLinesCarriageReturnTest {

    @TempDir java.nio.file.Path root;

    @Test
    void aCarriageReturnInsideARecordDoesNotEndIt() throws Exception {
        java.nio.file.Path dir = root.resolve("t").resolve("partition=0");
        Files.createDirectories(dir);
        // two records: "a\rb" (offset 0) and "c" (offset 1)
        Files.write(
                dir.resolve("t+0+0000000000.bin"), "a\rb\nc\n".getBytes(StandardCharsets.UTF_8));
        ArchiveFormat<String> format = ArchiveFormat.lines(new SimpleStringSchema());
        format.open(
                ArchiveFormat.context(
                        new UnregisteredMetricsGroup(),
                        SimpleUserCodeClassLoader.create(getClass().getClassLoader())));
        List<String> read = new ArrayList<>();
        try (ArchiveReader<String> reader =
                new ArchiveReader<>(
                        new Path(root.toUri()),
                        ArchiveLayout.kafkaConnect(),
                        format,
                        null,
                        100,
                        false,
                        new SimpleCounter())) {
            reader.addSplit("t-0", 0);
            for (int i = 0; i < 100 && !reader.isEndOfSplit("t-0"); i++) {
                reader.poll(Duration.ofMillis(1), (s, o, t, v) -> read.add(o + ":" + v));
            }
            long position = reader.position("t-0");
            assertSoftly(
                    softly -> {
                        softly.assertThat(read).containsExactly("0:a\rb", "1:c");
                        softly.assertThat(position)
                                .as("the archive ends after offset 1: the topic takes over at 2")
                                .isEqualTo(2);
                    });
        }
    }
}
