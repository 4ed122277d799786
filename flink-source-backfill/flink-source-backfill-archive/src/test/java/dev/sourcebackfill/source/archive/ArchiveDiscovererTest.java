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

import dev.sourcebackfill.source.spi.DiscoveredSplit;
import dev.sourcebackfill.source.spi.LogSplitDiscoverer;

import org.apache.flink.core.fs.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The archive's first discovery: each topic partition backfilled from its archive, and the two
 * refusals of an archive that does not belong to the topics.
 */
class ArchiveDiscovererTest {

    @TempDir java.nio.file.Path root;

    /** The topics' partitions as the Kafka adapter would discover them, ending at {@code end}. */
    private static LogSplitDiscoverer topics(long end, String... partitions) {
        List<DiscoveredSplit> splits = new ArrayList<>();
        for (String partition : partitions) {
            splits.add(DiscoveredSplit.backfilled(partition, end, end));
        }
        return initial -> initial ? splits : List.of();
    }

    private java.nio.file.Path archived(String topic, int partition, long startOffset)
            throws Exception {
        java.nio.file.Path dir = root.resolve(topic).resolve("partition=" + partition);
        Files.createDirectories(dir);
        return Files.writeString(
                dir.resolve(String.format("%s+%d+%010d.json", topic, partition, startOffset)),
                "a\nb\n");
    }

    private ArchiveDiscoverer discoverer(LogSplitDiscoverer topics) {
        return new ArchiveDiscoverer(topics, new Path(root.toUri()), ArchiveLayout.kafkaConnect());
    }

    @Test
    void aPartitionWithAnArchiveIsBackfilledFromItsFirstFileAndOneWithoutFromTheTopic()
            throws Exception {
        archived("t", 0, 5);
        archived("t", 0, 7);
        List<DiscoveredSplit> splits = discoverer(topics(40, "t-0", "t-1")).discoverSplits(true);
        assertThat(splits).hasSize(2);
        assertThat(splits.get(0).splitId()).isEqualTo("t-0");
        assertThat(splits.get(0).backfillStartOffset()).isEqualTo(5);
        assertThat(splits.get(0).liveEndOffset()).isEqualTo(40);
        assertThat(splits.get(1).splitId()).isEqualTo("t-1");
        assertThat(splits.get(1).backfillStartOffset()).isEqualTo(40);
        assertThat(discoverer(topics(40, "t-0")).discoverSplits(false))
                .as("later discoveries: the topics' new partitions alone")
                .isEmpty();
    }

    @Test
    void anArchivedPartitionTheTopicDoesNotHaveIsRefusedNamingItsFile() throws Exception {
        archived("t", 0, 0);
        java.nio.file.Path file = archived("t", 2, 0);
        // another topic's archive beside it is not this source's
        archived("other", 5, 0);
        assertThatThrownBy(() -> discoverer(topics(40, "t-0", "t-1")).discoverSplits(true))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("The archive at ")
                .hasMessageContaining("has rows of partition t-2")
                .hasMessageContaining(file.getFileName().toString())
                .hasMessageContaining("no live reader");
    }

    @Test
    void anArchiveStartingBeyondTheTopicsEndIsRefusedAsAnotherIncarnation() throws Exception {
        java.nio.file.Path file = archived("t", 0, 41);
        assertThatThrownBy(() -> discoverer(topics(40, "t-0")).discoverSplits(true))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("offset 41 of partition t-0")
                .hasMessageContaining("end offset 40")
                .hasMessageContaining(file.getFileName().toString())
                .hasMessageContaining("another incarnation");
        // at the end itself: the archive's first file is where the topic goes on
        Files.delete(file);
        archived("t", 0, 40);
        assertThat(discoverer(topics(40, "t-0")).discoverSplits(true).get(0).backfillStartOffset())
                .isEqualTo(40);
    }
}
