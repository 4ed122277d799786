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
package dev.sourcebackfill.source.reader;

import dev.sourcebackfill.source.BackfillSourceConfig;
import dev.sourcebackfill.source.OffsetGapException;
import dev.sourcebackfill.source.datagen.DatagenLog;
import dev.sourcebackfill.source.datagen.DatagenRecord;
import dev.sourcebackfill.source.metrics.BackfillReaderMetrics;
import dev.sourcebackfill.source.metrics.FetchProgress;
import dev.sourcebackfill.source.split.BackfillSplit;
import dev.sourcebackfill.source.split.HandoverState;

import org.apache.flink.connector.base.source.reader.RecordsWithSplitIds;
import org.apache.flink.connector.base.source.reader.splitreader.SplitsAddition;
import org.apache.flink.connector.testutils.source.reader.TestingReaderContext;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.apache.flink.runtime.metrics.groups.InternalSourceReaderMetricGroup;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The fetcher-side split reader over the datagen log's archive and live feed. */
class DatagenLogHandoverTest {

    private final ReaderMode mode = new ReaderMode();

    /** Whether the task thread has applied a FINISHED transition. */
    private boolean finished;

    private BackfillSplitReader<DatagenRecord> reader(DatagenLog log) {
        return new BackfillSplitReader<>(
                log,
                BackfillSourceConfig.<DatagenRecord>defaults()
                        .withPollTimeout(Duration.ofMillis(1)),
                new TestingReaderContext(),
                mode,
                new BackfillFetch.TransitionSink() {
                    @Override
                    public void apply(String splitId, HandoverTransition t) {
                        finished |= t.newState() == HandoverState.FINISHED;
                    }

                    @Override
                    public void gapSkipped(String splitId, long from, long to) {
                        throw new AssertionError("no gap is skipped under FAIL");
                    }
                },
                new BackfillReaderMetrics(
                        InternalSourceReaderMetricGroup.mock(new UnregisteredMetricsGroup()),
                        List::of,
                        () -> false,
                        new FetchProgress()),
                BackfillRateLimit.unlimited());
    }

    private static BackfillSplit backfilling(String id, long next, long target) {
        return new BackfillSplit(id, HandoverState.BACKFILLING, next, target, OptionalLong.empty());
    }

    /**
     * The datagen log's own feed, honest about where it starts: an archive backfill that ends at
     * offset 1000 while the live feed (no replay) stands at about 1200 fails, naming both offsets;
     * a backfill that has the range (the log itself, not an archive) reads it up to the feed before
     * the handover, without a gap.
     */
    @Test
    void aFeedStartingAboveTheArchivesEndFailsNamingBothOffsetsUnlessItsReplayCoversIt()
            throws Exception {
        long epoch = System.currentTimeMillis() - 1_000;
        DatagenLog noReplay = archiveAndFeed(epoch, true);
        BackfillSplitReader<DatagenRecord> failing = reader(noReplay);
        failing.handleSplitsChanges(new SplitsAddition<>(List.of(datagenSplit(noReplay))));
        assertThatThrownBy(() -> fetchUntilFinished(failing))
                .isInstanceOf(OffsetGapException.class)
                .hasMessageContaining("split partition-0")
                // the feed's start, or what it delivered while the split backfilled
                .hasMessageMatching("(?s).*records 1000\\.\\.1[1-9][0-9]{2} are lost.*");
        failing.close();

        DatagenLog replay = archiveAndFeed(epoch, false);
        BackfillSplitReader<DatagenRecord> covered = reader(replay);
        covered.handleSplitsChanges(new SplitsAddition<>(List.of(datagenSplit(replay))));
        List<Long> offsets = fetchUntilFinished(covered);
        assertThat(offsets).doesNotHaveDuplicates().isSorted();
        long last = offsets.get(offsets.size() - 1);
        assertThat(last).isGreaterThan(1_100);
        assertThat(offsets).hasSize((int) last + 1); // every offset 0..last, no gap
        covered.close();
    }

    private static DatagenLog archiveAndFeed(long epoch, boolean archive) {
        return DatagenLog.builder()
                .partitions(1)
                .historyPerPartition(1_000)
                .liveRatePerSecond(200)
                .epochMillis(epoch)
                .archiveBackfill(archive)
                .feedLive(0)
                .build();
    }

    private static BackfillSplit datagenSplit(DatagenLog log) {
        // the archive holds [0, 1000); discovery saw the head at 1000
        return backfilling(DatagenLog.splitId(0), 0, 1_000);
    }

    /** The offsets of records emitted until the split is FINISHED and one live record came. */
    private List<Long> fetchUntilFinished(BackfillSplitReader<DatagenRecord> reader)
            throws Exception {
        List<Long> offsets = new ArrayList<>();
        finished = false;
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (!finished || offsets.get(offsets.size() - 1) < 1_200) {
            assertThat(System.nanoTime()).as("waiting for the handover").isLessThan(deadline);
            RecordsWithSplitIds<BackfillRecord> records = reader.fetch();
            while (records.nextSplit() != null) {
                BackfillRecord record;
                while ((record = records.nextRecordFromSplit()) != null) {
                    offsets.add(record.offset());
                }
            }
        }
        return offsets;
    }
}
