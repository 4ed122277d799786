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
package dev.sourcebackfill.source.split;

import org.apache.flink.annotation.Internal;

import java.util.OptionalLong;

/**
 * The mutable, task-thread view of a split: updated by the record emitter as elements are emitted,
 * so that a checkpoint always holds exactly what was emitted.
 */
@Internal
public final class BackfillSplitState {

    private final BackfillSplit initial;
    private HandoverState state;
    private long nextOffset;
    private long targetEndOffset;

    /** Records emitted from the backfill for the split, by every reader that held it. */
    private long backfilledRecords;

    public BackfillSplitState(BackfillSplit split) {
        this.initial = split;
        this.state = split.state();
        this.nextOffset = split.nextOffset();
        this.targetEndOffset = split.targetEndOffset();
        this.backfilledRecords = split.backfilledRecords();
    }

    public String splitId() {
        return initial.splitId();
    }

    /** The log's split read for this split: itself, or the one it is a chunk of. */
    public String logSplitId() {
        return initial.logSplitId();
    }

    public HandoverState state() {
        return state;
    }

    public long nextOffset() {
        return nextOffset;
    }

    public long targetEndOffset() {
        return targetEndOffset;
    }

    public long backfilledRecords() {
        return backfilledRecords;
    }

    /**
     * The offset below which the split still has records to read before it is live (its target), or
     * where a bounded split stops if that comes first.
     */
    public long readsBackfillUpTo() {
        OptionalLong stop = initial.stoppingOffset();
        return stop.isPresent() ? Math.min(targetEndOffset, stop.getAsLong()) : targetEndOffset;
    }

    public void countBackfilled() {
        backfilledRecords++;
    }

    /** Records that the record at {@code offset} was emitted. */
    public void recordEmitted(long offset) {
        nextOffset = offset + 1;
    }

    /** Applies a transition decided by the fetcher; offsets only move forward. */
    public void applyTransition(HandoverState newState, long newNextOffset, long newTarget) {
        state = state.moveTo(newState, initial.splitId());
        nextOffset = Math.max(nextOffset, newNextOffset);
        targetEndOffset = Math.max(targetEndOffset, newTarget);
    }

    /**
     * Records that the offsets below {@code newNextOffset} are skipped (a gap the source was told
     * to skip): the split goes on there in the state it has.
     */
    public void skipTo(long newNextOffset) {
        if (newNextOffset < nextOffset) {
            throw new IllegalStateException(
                    "Split "
                            + initial.splitId()
                            + " cannot skip back from offset "
                            + nextOffset
                            + " to "
                            + newNextOffset);
        }
        nextOffset = newNextOffset;
        targetEndOffset = Math.max(targetEndOffset, newNextOffset);
    }

    public BackfillSplit toSplit() {
        return initial.withProgress(state, nextOffset, targetEndOffset, backfilledRecords);
    }
}
