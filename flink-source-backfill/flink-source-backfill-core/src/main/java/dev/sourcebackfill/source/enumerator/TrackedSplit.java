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
import dev.sourcebackfill.source.split.BackfillSplit;
import dev.sourcebackfill.source.split.HandoverState;

import org.apache.flink.annotation.Internal;

import javax.annotation.Nullable;

import java.util.OptionalLong;

/**
 * One row of the enumerator's status table. Owned by the coordinator thread. Its fields change only
 * in its own methods, and each change that can move the table's totals goes through {@link
 * #change}, which takes the row out of the totals before and puts it back after.
 */
@Internal
final class TrackedSplit {

    private final SplitCounts counts;

    /** The split as last known: its state and offsets as last reported (or as created). */
    private BackfillSplit split;

    /** Whether some reader holds the split (assigned, or restored in a reader's state). */
    private boolean assigned;

    /** The subtask that last reported the split; {@code null} if unknown (after a restore). */
    @Nullable private Integer owner;

    /** The status came from the reader that holds the split now, since its last reset. */
    private boolean confirmed;

    /** A bounded split that emitted everything below its stopping offset. */
    private boolean ended;

    /** The first enumerator snapshot that recorded the split as ended; {@code null} if none. */
    @Nullable private Long endedInSnapshot;

    /** Which reader incarnation and report the status came from, to skip stale reports. */
    private long reporterIncarnation;

    private long lastReportId;

    /** A row, counted in {@code counts} from the start. */
    TrackedSplit(SplitCounts counts, BackfillSplit split, boolean assigned, boolean ended) {
        this.counts = counts;
        this.split = split;
        this.assigned = assigned;
        this.ended = ended;
        counts.add(this);
    }

    BackfillSplit split() {
        return split;
    }

    HandoverState state() {
        return split.state();
    }

    boolean isAssigned() {
        return assigned;
    }

    @Nullable
    Integer owner() {
        return owner;
    }

    boolean isConfirmed() {
        return confirmed;
    }

    boolean isEnded() {
        return ended;
    }

    /** Whether this split lets the source enter forward mode. */
    boolean isConfirmedFinished() {
        return ended || (assigned && confirmed && split.state() == HandoverState.FINISHED);
    }

    /** Whether the last report applied is this report or a later one of the same reader. */
    boolean isOvertakenBy(long incarnation, long reportId) {
        return reporterIncarnation == incarnation && lastReportId >= reportId;
    }

    /** The split was given to {@code subtask}; its status is unconfirmed until it reports. */
    void assignTo(int subtask) {
        change(
                () -> {
                    assigned = true;
                    owner = subtask;
                    confirmed = false;
                });
    }

    /** The reader on {@code subtask} reported the split's status. */
    void applyReport(int subtask, long incarnation, long reportId, SplitStatus status) {
        change(
                () -> {
                    reporterIncarnation = incarnation;
                    lastReportId = reportId;
                    split =
                            split.withProgress(
                                    status.state(), status.nextOffset(), split.targetEndOffset());
                    assigned = true;
                    owner = subtask;
                    confirmed = true;
                    if (status.ended() != ended) {
                        ended = status.ended();
                        endedInSnapshot = null;
                    }
                });
    }

    /**
     * The owning subtask was reset: the status is unconfirmed, and an end that no checkpoint up to
     * {@code lastCompletedCheckpoint} recorded is forgotten, since the restored reader may still
     * hold the split (it reports again).
     */
    void ownerReset(OptionalLong lastCompletedCheckpoint) {
        change(
                () -> {
                    confirmed = false;
                    boolean endIsDurable =
                            endedInSnapshot != null
                                    && lastCompletedCheckpoint.isPresent()
                                    && endedInSnapshot <= lastCompletedCheckpoint.getAsLong();
                    if (ended && !endIsDurable) {
                        ended = false;
                        endedInSnapshot = null;
                    }
                });
    }

    /** The split came back from a reset reader as {@code given}: unassigned, nothing reported. */
    void returned(BackfillSplit given) {
        change(
                () -> {
                    split = given;
                    assigned = false;
                    owner = null;
                    confirmed = false;
                    ended = false;
                    endedInSnapshot = null;
                    reporterIncarnation = 0;
                    lastReportId = 0;
                });
    }

    /** An enumerator snapshot recorded the row; the first one to record the end is kept. */
    void snapshotted(long checkpointId) {
        if (ended && endedInSnapshot == null) {
            endedInSnapshot = checkpointId;
        }
    }

    /** The row leaves the table (replaced by another of the same split). */
    void discard() {
        counts.remove(this);
    }

    private void change(Runnable change) {
        counts.remove(this);
        change.run();
        counts.add(this);
    }
}
