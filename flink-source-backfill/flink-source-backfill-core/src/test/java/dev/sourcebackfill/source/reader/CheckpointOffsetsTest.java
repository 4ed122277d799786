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

import dev.sourcebackfill.source.spi.OffsetCommitter;
import dev.sourcebackfill.source.split.BackfillSplit;
import dev.sourcebackfill.source.split.HandoverState;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;

class CheckpointOffsetsTest {

    private final List<String> commits = new ArrayList<>();
    private final CheckpointOffsets offsets =
            new CheckpointOffsets(
                    new OffsetCommitter() {
                        @Override
                        public void commitOffsets(
                                long checkpointId, Map<String, Long> nextOffsets) {
                            commits.add(checkpointId + ":" + new TreeMap<>(nextOffsets));
                        }
                    });

    private static BackfillSplit split(String id, long next) {
        return new BackfillSplit(id, HandoverState.BACKFILLING, next, 100, OptionalLong.empty());
    }

    @Test
    void aCompletedCheckpointCommitsWhatItsSnapshotHeld() {
        offsets.snapshotted(1, List.of(split("a", 5), split("b", 7)), false);
        offsets.snapshotted(2, List.of(split("a", 9), split("b", 7)), false);
        offsets.completed(1);
        assertThat(commits).containsExactly("1:{a=5, b=7}");
        assertThat(offsets.pendingCheckpoints()).isEqualTo(1);
    }

    @Test
    void aSubsumingNotificationCommitsTheNewestSnapshotAtOrBeforeIt() {
        offsets.snapshotted(1, List.of(split("a", 5)), false);
        offsets.snapshotted(2, List.of(split("a", 9)), false);
        offsets.snapshotted(3, List.of(split("a", 12)), false);
        // 1 and 2 were never notified (missed or aborted notifications); 2 completes 1 too
        offsets.completed(2);
        assertThat(commits).containsExactly("2:{a=9}");
        assertThat(offsets.pendingCheckpoints()).isEqualTo(1);
        // a late notification of an older checkpoint commits nothing older than what was sent
        offsets.completed(1);
        assertThat(commits).containsExactly("2:{a=9}");
    }

    @Test
    void aNotificationWithoutASnapshotOfThisReaderCommitsNothing() {
        offsets.completed(4);
        offsets.snapshotted(5, List.of(), false);
        offsets.completed(5);
        assertThat(commits).isEmpty();
        assertThat(offsets.pendingCheckpoints()).isZero();
    }

    /**
     * A chunk's position is not its log split's, and a log split whose history was cut has not
     * emitted what its chunks hold: nothing of it is committed until forward mode (a completed
     * checkpoint had every chunk ended); then its own position is.
     */
    @Test
    void aPartitionWhoseHistoryIsInChunksIsCommittedOnlyInForwardModeAndChunksNever() {
        BackfillSplit own = split("a", 90).withHistoryElsewhere();
        offsets.snapshotted(
                1,
                List.of(
                        own,
                        split("b", 7),
                        BackfillSplit.historyChunk("a", 0, 0, 30),
                        BackfillSplit.historyChunk("a", 1, 30, 60).asEnded()),
                false);
        offsets.completed(1);
        assertThat(commits).containsExactly("1:{b=7}");

        offsets.snapshotted(
                2,
                List.of(
                        own.withProgress(HandoverState.FINISHED, 95, 100),
                        BackfillSplit.historyChunk("a", 0, 0, 30).asEnded()),
                true);
        offsets.completed(2);
        assertThat(commits).containsExactly("1:{b=7}", "2:{a=95}");
    }

    /**
     * A history split that is not a chunk (a table's rows: its positions are the table's) is never
     * committed, in forward mode neither; the log's splits are, by the one rule.
     */
    @Test
    void aHistorySplitIsNeverCommittedInAnyMode() {
        BackfillSplit table = BackfillSplit.historyOnly("table-part-0", 0, 300);
        offsets.snapshotted(1, List.of(table, split("b", 7)), false);
        offsets.completed(1);
        offsets.snapshotted(2, List.of(table.asEnded(), split("b", 9)), true);
        offsets.completed(2);
        assertThat(commits).containsExactly("1:{b=7}", "2:{b=9}");
    }
}
