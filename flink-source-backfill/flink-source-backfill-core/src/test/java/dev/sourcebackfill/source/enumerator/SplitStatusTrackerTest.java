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
package dev.sourcebackfill.source.enumerator;

import dev.sourcebackfill.source.event.SplitStatus;
import dev.sourcebackfill.source.event.SplitStatusReportEvent;
import dev.sourcebackfill.source.split.BackfillSplit;
import dev.sourcebackfill.source.split.HandoverState;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.OptionalLong;

import static org.assertj.core.api.Assertions.assertThat;

/** The status table's kept totals stay equal to a recount through every kind of change. */
class SplitStatusTrackerTest {

    private final SplitStatusTracker tracker = new SplitStatusTracker();
    private long reportId;

    private static BackfillSplit split(String id, HandoverState state, boolean bounded) {
        return new BackfillSplit(
                id, state, 0, 100, bounded ? OptionalLong.of(200) : OptionalLong.empty());
    }

    private void report(
            int subtask, long incarnation, String id, HandoverState state, boolean ended) {
        tracker.apply(
                subtask,
                new SplitStatusReportEvent(
                        incarnation, ++reportId, List.of(new SplitStatus(id, state, 150, ended))));
        assertCountsMatchRecount();
    }

    private void assertCountsMatchRecount() {
        assertThat(tracker.counts()).isEqualTo(SplitCounts.of(tracker.all()));
    }

    @Test
    void keptTotalsEqualARecountAfterEveryChange() {
        tracker.add(split("a", HandoverState.BACKFILLING, true));
        tracker.add(split("b", HandoverState.BACKFILLING, false));
        tracker.add(split("c", HandoverState.FINISHED, false));
        assertCountsMatchRecount();
        assertThat(tracker.countUnconfirmed()).isEqualTo(3);
        assertThat(tracker.allConfirmedFinished()).isFalse();

        tracker.markAssigned("a", 0);
        tracker.markAssigned("b", 1);
        tracker.markAssigned("c", 1);
        assertCountsMatchRecount();

        report(0, 10, "a", HandoverState.CACHING_UP, false);
        report(1, 11, "b", HandoverState.FINISHED, false);
        report(1, 11, "c", HandoverState.FINISHED, false);
        assertThat(tracker.count(HandoverState.CACHING_UP)).isEqualTo(1);
        assertThat(tracker.count(HandoverState.FINISHED)).isEqualTo(2);
        assertThat(tracker.countUnconfirmed()).isZero();
        assertThat(tracker.allConfirmedFinished()).isFalse();

        report(0, 10, "a", HandoverState.FINISHED, true);
        assertThat(tracker.countEnded()).isEqualTo(1);
        assertThat(tracker.allConfirmedFinished()).isTrue();

        // a stale report (an older id of the same reader) changes nothing
        tracker.apply(
                1,
                new SplitStatusReportEvent(
                        11,
                        1,
                        List.of(new SplitStatus("b", HandoverState.BACKFILLING, 10, false))));
        assertCountsMatchRecount();
        assertThat(tracker.allConfirmedFinished()).isTrue();

        // a reset reader: its splits are unconfirmed, and its ended split not yet in a completed
        // checkpoint comes back as not ended
        tracker.resetSubtask(0, OptionalLong.empty());
        assertCountsMatchRecount();
        assertThat(tracker.countEnded()).isZero();
        assertThat(tracker.allConfirmedFinished()).isFalse();

        tracker.resetSubtask(1, OptionalLong.of(5));
        assertCountsMatchRecount();
        assertThat(tracker.countUnconfirmed()).isEqualTo(3);

        tracker.returnSplits(
                List.of(
                        split("b", HandoverState.CACHING_UP, false),
                        split("d", HandoverState.BACKFILLING, false)));
        assertCountsMatchRecount();
        assertThat(tracker.size()).isEqualTo(4);
        assertThat(tracker.count(HandoverState.BACKFILLING)).isEqualTo(1);

        report(1, 12, "b", HandoverState.FINISHED, false);
        report(1, 12, "d", HandoverState.FINISHED, false);
        report(1, 12, "c", HandoverState.FINISHED, false);
        report(0, 13, "a", HandoverState.FINISHED, true);
        assertThat(tracker.allConfirmedFinished()).isTrue();

        // a restore replaces the table: nothing confirmed
        SplitStatusTracker restored = new SplitStatusTracker();
        restored.restore(tracker.snapshotEntries());
        assertThat(restored.counts()).isEqualTo(SplitCounts.of(restored.all()));
        assertThat(restored.countUnconfirmed()).isEqualTo(3);
        assertThat(restored.allConfirmedFinished()).isFalse();
    }

    @Test
    void anEmptyTableIsNeverAllFinished() {
        assertThat(tracker.allConfirmedFinished()).isFalse();
    }

    /**
     * Only ended splits (a bounded source at its end): all finished, so that a bounded source's
     * forward mode, and the log's action on it, are confirmed as an unbounded source's are.
     */
    @Test
    void aTableWhoseSplitsAllEndedIsAllFinished() {
        tracker.add(split("a", HandoverState.BACKFILLING, true));
        tracker.add(split("b", HandoverState.FINISHED, true));
        tracker.markAssigned("a", 0);
        tracker.markAssigned("b", 1);
        report(0, 1, "a", HandoverState.BACKFILLING, true);
        assertThat(tracker.allConfirmedFinished()).isFalse();
        report(1, 2, "b", HandoverState.FINISHED, true);
        assertThat(tracker.allConfirmedFinished()).isTrue();

        // a reset reader whose end a completed checkpoint recorded: still ended, reported or not
        tracker.onSnapshot(7);
        tracker.resetSubtask(1, OptionalLong.of(7));
        assertCountsMatchRecount();
        assertThat(tracker.allConfirmedFinished()).isTrue();
    }
}
