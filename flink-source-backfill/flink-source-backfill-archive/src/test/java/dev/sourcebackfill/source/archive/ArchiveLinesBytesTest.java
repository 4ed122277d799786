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

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code ArchiveFormat.lines} gives the schema each line's bytes as the file holds them, not
 * decoded and encoded again as UTF-8: a Latin-1 archive read with {@code new
 * SimpleStringSchema(ISO_8859_1)}, the schema the live topic uses too, reads the same values.
 */
class ArchiveLinesBytesTest {

    @TempDir java.nio.file.Path root;

    @Test
    void theSchemaGetsTheLinesBytes() throws Exception {
        java.nio.file.Path dir = root.resolve("t").resolve("partition=0");
        Files.createDirectories(dir);
        Files.write(
                dir.resolve("t+0+0000000000.txt"), "café\n".getBytes(StandardCharsets.ISO_8859_1));
        ArchiveFormat<String> format =
                ArchiveFormat.lines(new SimpleStringSchema(StandardCharsets.ISO_8859_1));
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
                reader.poll(Duration.ofMillis(1), (s, o, t, v) -> read.add(v));
            }
        }
        assertThat(read).containsExactly("café");
    }
}
