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
package dev.sourcebackfill.source;

import dev.sourcebackfill.source.split.HandoverState;

import org.apache.flink.annotation.PublicEvolving;

/** A split's handover transition on one reader, as a {@link BackfillListener} is told of it. */
@PublicEvolving
public final class SplitTransition {

    private final int subtask;
    private final String splitId;
    private final HandoverState from;
    private final HandoverState to;
    private final long nextOffset;
    private final long backfilledRecords;

    public SplitTransition(
            int subtask,
            String splitId,
            HandoverState from,
            HandoverState to,
            long nextOffset,
            long backfilledRecords) {
        this.subtask = subtask;
        this.splitId = splitId;
        this.from = from;
        this.to = to;
        this.nextOffset = nextOffset;
        this.backfilledRecords = backfilledRecords;
    }

    /** The reader's subtask index. */
    public int subtask() {
        return subtask;
    }

    public String splitId() {
        return splitId;
    }

    /** The state before. */
    public HandoverState from() {
        return from;
    }

    /** The state now. */
    public HandoverState to() {
        return to;
    }

    /** The split's next offset: every offset below it has been emitted or is covered. */
    public long nextOffset() {
        return nextOffset;
    }

    /** How many records of the split the backfill has emitted (across restores). */
    public long backfilledRecords() {
        return backfilledRecords;
    }

    @Override
    public String toString() {
        return "SplitTransition{subtask="
                + subtask
                + ", split="
                + splitId
                + ", "
                + from
                + " -> "
                + to
                + ", nextOffset="
                + nextOffset
                + ", backfilledRecords="
                + backfilledRecords
                + '}';
    }
}
