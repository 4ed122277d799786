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
package dev.sourcebackfill.source.datagen;

import dev.sourcebackfill.source.spi.DiscoveredSplit;
import dev.sourcebackfill.source.spi.LogSplitDiscoverer;

import org.apache.flink.util.InstantiationUtil;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class DatagenLogTest {

    @Test
    void contentIsAPureFunctionOfConfigurationAndClock() throws Exception {
        DatagenLog log =
                DatagenLog.builder()
                        .partitions(3)
                        .historyPerPartition(100)
                        .compactionHoleEvery(4)
                        .liveRatePerSecond(10)
                        .epochMillis(1_000_000)
                        .build();
        // a copy, as on another TaskManager, agrees on everything
        DatagenLog copy = InstantiationUtil.clone(log, getClass().getClassLoader());
        for (int p = 0; p < 3; p++) {
            for (long o = 0; o < 200; o++) {
                assertThat(copy.exists(p, o)).isEqualTo(log.exists(p, o));
            }
            assertThat(copy.headAt(p, 1_005_000))
                    .isEqualTo(log.headAt(p, 1_005_000))
                    .isEqualTo(150);
        }
        assertThat(log.exists(0, 4)).isFalse();
        assertThat(log.exists(0, 5)).isTrue();
        assertThat(log.exists(1, 3)).isFalse();
    }

    @Test
    void boundedPartitionsStopAndDiffer() {
        DatagenLog log =
                DatagenLog.builder()
                        .partitions(2)
                        .historyPerPartition(10)
                        .historyStepPerPartition(5)
                        .boundedAfterLiveRecords(3)
                        .build();
        assertThat(log.stoppingOffset(0)).isEqualTo(13);
        assertThat(log.stoppingOffset(1)).isEqualTo(18);
        assertThat(log.recordCount(1)).isEqualTo(18);
        assertThat(log.headAt(1, Long.MAX_VALUE / 2)).isEqualTo(18);
    }

    @Test
    void lateSplitsAreReadWholeByTheLiveUnlessFoundAtTheFirstDiscovery() throws Exception {
        long now = System.currentTimeMillis();
        DatagenLog log =
                DatagenLog.builder()
                        .partitions(1)
                        .historyPerPartition(10)
                        .lateSplits(1, Duration.ofMillis(1))
                        .epochMillis(now - 1_000)
                        .build();
        LogSplitDiscoverer discoverer = log.createSplitDiscoverer();
        List<DiscoveredSplit> atStart = discoverer.discoverSplits(true);
        List<DiscoveredSplit> later = discoverer.discoverSplits(false);
        assertThat(atStart)
                .extracting(DiscoveredSplit::liveReadsWholeSplit)
                .containsExactly(false, false);
        assertThat(later)
                .extracting(DiscoveredSplit::liveReadsWholeSplit)
                .containsExactly(false, true);
        assertThat(discoverer.mayDiscoverMoreSplits()).isFalse();
    }

    @Test
    void readerDeliversRecordsInOrderAndItsPositionPassesHoles() throws Exception {
        DatagenLog log =
                DatagenLog.builder()
                        .partitions(1)
                        .historyPerPartition(10)
                        .compactionHoleEvery(3)
                        .archiveBackfill(true)
                        .build();
        DatagenLogReader reader = new DatagenLogReader(log, DatagenLogReader.Role.BACKFILL);
        reader.addSplit("partition-0", 0);
        List<Long> offsets = new ArrayList<>();
        reader.poll(Duration.ZERO, (s, o, t, v) -> offsets.add(o));
        assertThat(offsets).containsExactly(1L, 2L, 4L, 5L, 7L, 8L);
        assertThat(reader.position("partition-0")).isEqualTo(10);
        assertThat(reader.isEndOfSplit("partition-0")).isTrue();
    }

    @Test
    void rejectsBadOptionsByName() {
        assertThatThrownBy(() -> DatagenLog.builder().partitions(0).build())
                .hasMessageContaining("partitions");
        assertThatThrownBy(() -> DatagenLog.builder().liveRatePerSecond(0).build())
                .hasMessageContaining("liveRatePerSecond");
        assertThatThrownBy(() -> DatagenLog.builder().compactionHoleEvery(1).build())
                .hasMessageContaining("compactionHoleEvery");
    }
}
