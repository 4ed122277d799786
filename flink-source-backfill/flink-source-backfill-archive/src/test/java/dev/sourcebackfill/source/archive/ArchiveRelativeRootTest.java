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

import org.apache.flink.core.fs.Path;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A relative archive root lists its files: the file system lists children by their full paths, so
 * the root is made full before the layout is given each file's path below it.
 */
class ArchiveRelativeRootTest {

    private final String relativeRoot = "target/review-relative-root-" + UUID.randomUUID();

    @AfterEach
    void cleanUp() throws IOException {
        java.nio.file.Path dir = java.nio.file.Path.of(relativeRoot);
        if (Files.exists(dir)) {
            try (var walk = Files.walk(dir)) {
                walk.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    @Test
    void aRelativeArchiveRootListsItsFiles() throws IOException {
        java.nio.file.Path dir = java.nio.file.Path.of(relativeRoot, "t", "partition=0");
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("t+0+0000000000.json"), "a\nb\nc\n", StandardCharsets.UTF_8);

        Path root = new Path(relativeRoot);
        assertThat(root.getFileSystem().exists(root)).as("the root exists").isTrue();

        Map<String, List<ArchiveListing.Entry>> listing =
                ArchiveListing.list(root, ArchiveLayout.kafkaConnect());

        assertThat(listing).as("the archive's files under a relative root").containsKey("t-0");
    }
}
