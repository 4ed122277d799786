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
package dev.sourcebackfill.source.event;

import dev.sourcebackfill.source.split.BackfillSplit;
import dev.sourcebackfill.source.split.HandoverState;

import org.apache.flink.annotation.Internal;

import java.io.Serializable;
import java.util.Objects;

/** One split's handover status, as its reader has it in its checkpointed split state. */
@Internal
public final class SplitStatus implements Serializable {

    private static final long serialVersionUID = 1L;

    private final String splitId;
    private final HandoverState state;
    private final long nextOffset;

    /** The bounded split emitted everything below its stopping offset and left the reader. */
    private final boolean ended;

    public SplitStatus(String splitId, HandoverState state, long nextOffset, boolean ended) {
        this.splitId = Objects.requireNonNull(splitId);
        this.state = Objects.requireNonNull(state);
        this.nextOffset = nextOffset;
        this.ended = ended;
    }

    /** The status of a split as the reader holds it. */
    public static SplitStatus of(BackfillSplit split, boolean ended) {
        return new SplitStatus(split.splitId(), split.state(), split.nextOffset(), ended);
    }

    public String splitId() {
        return splitId;
    }

    public HandoverState state() {
        return state;
    }

    public long nextOffset() {
        return nextOffset;
    }

    public boolean ended() {
        return ended;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof SplitStatus)) {
            return false;
        }
        SplitStatus that = (SplitStatus) o;
        return nextOffset == that.nextOffset
                && ended == that.ended
                && splitId.equals(that.splitId)
                && state == that.state;
    }

    @Override
    public int hashCode() {
        return Objects.hash(splitId, state, nextOffset, ended);
    }

    @Override
    public String toString() {
        return splitId + ":" + (ended ? "ENDED" : state) + "@" + nextOffset;
    }
}
