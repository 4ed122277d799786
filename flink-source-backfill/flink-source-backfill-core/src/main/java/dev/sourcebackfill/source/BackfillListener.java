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

import org.apache.flink.annotation.PublicEvolving;

import java.io.Serializable;

/**
 * Told by each source reader, in its task thread, of the handover's progress: for progress output
 * in jobs and examples. Keep it cheap; it runs on the reader's thread. The metrics of the {@code
 * backfill} group carry the same information for monitoring systems.
 */
@PublicEvolving
public interface BackfillListener extends Serializable {

    /** A listener that does nothing. */
    BackfillListener NO_OP = new NoOpBackfillListener();

    /** A split changed state on a reader. */
    default void onTransition(SplitTransition transition) {}

    /**
     * Reader {@code subtask} entered forward mode, confirmed by completed checkpoint {@code
     * checkpointId}; it had emitted {@code backfilledRecords} records from the backfill.
     */
    default void onForwardMode(int subtask, long checkpointId, long backfilledRecords) {}

    /**
     * A bounded split emitted everything below its stopping offset, or was given to the reader with
     * nothing left to emit (empty from the start, or restored after it ended: then a listener is
     * told again after each restore).
     */
    default void onSplitEnded(int subtask, String splitId, long nextOffset) {}
}
