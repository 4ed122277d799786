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

import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A {@code .gz} archive file whose header is broken or missing (empty, truncated, not gzip) fails
 * the job with an error naming the file and the split, not with the decompressor's bare exception.
 */
class ArchiveCorruptGzipTest {

    @TempDir java.nio.file.Path root;

    private ArchiveReader<String> reader() throws Exception {
        ArchiveFormat<String> format = ArchiveFormat.lines(new SimpleStringSchema());
        format.open(
                ArchiveFormat.context(
                        new UnregisteredMetricsGroup(),
                        SimpleUserCodeClassLoader.create(getClass().getClassLoader())));
        return new ArchiveReader<>(
                new Path(root.toUri()),
                ArchiveLayout.kafkaConnect(),
                format,
                null,
                100,
                false,
                new SimpleCounter());
    }

    @Test
    void aGzipFileThatIsNotGzipFailsNamingTheFile() throws Exception {
        java.nio.file.Path dir = root.resolve("t").resolve("partition=0");
        Files.createDirectories(dir);
        Files.write(dir.resolve("t+0+0000000000.json"), "0\n1\n".getBytes(StandardCharsets.UTF_8));
        // the next file: a failed upload left an empty object
        Files.write(dir.resolve("t+0+0000000002.json.gz"), new byte[0]);
        ArchiveReader<String> reader = reader();
        reader.addSplit("t-0", 0);
        assertThatThrownBy(
                        () -> {
                            for (int i = 0; i < 100 && !reader.isEndOfSplit("t-0"); i++) {
                                reader.poll(Duration.ofMillis(1), (s, o, t, v) -> {});
                            }
                        })
                .hasMessageContaining("t+0+0000000002.json.gz");
        reader.close();
    }
}
