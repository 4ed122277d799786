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

import dev.sourcebackfill.source.split.BackfillSplit;
import dev.sourcebackfill.source.split.HandoverState;

import org.apache.flink.annotation.Internal;

import javax.annotation.Nullable;

/** One row of the enumerator's status table. Mutable; owned by the coordinator thread. */
@Internal
final class TrackedSplit {

    /** The split as last known: its state and offsets as last reported (or as created). */
    BackfillSplit split;

    /** Whether some reader holds the split (assigned, or restored in a reader's state). */
    boolean assigned;

    /** The subtask that last reported the split; {@code null} if unknown (after a restore). */
    @Nullable Integer owner;

    /** The status came from the reader that holds the split now, since its last reset. */
    boolean confirmed;

    /** A bounded split that emitted everything below its stopping offset. */
    boolean ended;

    /** The first enumerator snapshot that recorded the split as ended. */
    long endedInSnapshot = -1;

    /** Which reader incarnation and report the status came from, to skip stale reports. */
    long reporterIncarnation;

    long lastReportId;

    TrackedSplit(BackfillSplit split, boolean assigned, boolean ended) {
        this.split = split;
        this.assigned = assigned;
        this.ended = ended;
    }

    HandoverState state() {
        return split.state();
    }

    /** Whether this split lets the source enter forward mode. */
    boolean isConfirmedFinished() {
        return ended || (assigned && confirmed && split.state() == HandoverState.FINISHED);
    }
}
