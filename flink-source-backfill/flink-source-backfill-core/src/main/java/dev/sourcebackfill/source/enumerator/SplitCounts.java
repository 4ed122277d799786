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

import dev.sourcebackfill.source.split.HandoverState;

import org.apache.flink.annotation.Internal;

import java.util.Arrays;

/**
 * The status table's totals, kept up to date as rows change, so that a status report costs the same
 * with 10 splits or 10,000 (the metrics and the forward-mode check read them on every report and
 * snapshot). Each row is removed before it changes and added back after.
 */
@Internal
final class SplitCounts {

    /** Splits not ended, by state code. */
    private final int[] byState = new int[HandoverState.values().length];

    private int ended;
    private int unconfirmed;
    private int notConfirmedFinished;

    void add(TrackedSplit tracked) {
        apply(tracked, 1);
    }

    void remove(TrackedSplit tracked) {
        apply(tracked, -1);
    }

    private void apply(TrackedSplit tracked, int sign) {
        if (tracked.isEnded()) {
            ended += sign;
        } else {
            byState[tracked.state().ordinal()] += sign;
            if (!(tracked.isAssigned() && tracked.isConfirmed())) {
                unconfirmed += sign;
            }
        }
        if (!tracked.isConfirmedFinished()) {
            notConfirmedFinished += sign;
        }
    }

    /** Splits in {@code state} that have not ended. */
    int count(HandoverState state) {
        return byState[state.ordinal()];
    }

    int ended() {
        return ended;
    }

    /** Splits not ended whose status no current reader has confirmed. */
    int unconfirmed() {
        return unconfirmed;
    }

    /**
     * Whether the table is not empty and every split is confirmed FINISHED or ended. A table whose
     * splits have all ended counts: a bounded source ends that way, and its forward mode (and the
     * log's action on it) must be confirmed as an unbounded source's is. Only an empty table
     * (nothing discovered yet) never counts.
     */
    boolean allConfirmedFinished() {
        int live = Arrays.stream(byState).sum();
        return notConfirmedFinished == 0 && live + ended > 0;
    }

    /** The totals of {@code rows} counted from scratch: what the kept totals must equal. */
    static SplitCounts of(Iterable<TrackedSplit> rows) {
        SplitCounts counts = new SplitCounts();
        rows.forEach(counts::add);
        return counts;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof SplitCounts)) {
            return false;
        }
        SplitCounts that = (SplitCounts) o;
        return Arrays.equals(byState, that.byState)
                && ended == that.ended
                && unconfirmed == that.unconfirmed
                && notConfirmedFinished == that.notConfirmedFinished;
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(byState) * 31 + ended * 7 + unconfirmed * 3 + notConfirmedFinished;
    }

    @Override
    public String toString() {
        return "SplitCounts{byState="
                + Arrays.toString(byState)
                + ", ended="
                + ended
                + ", unconfirmed="
                + unconfirmed
                + ", notConfirmedFinished="
                + notConfirmedFinished
                + '}';
    }
}
