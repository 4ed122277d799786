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

import org.apache.flink.annotation.Internal;

/**
 * Enumerator to reader: every split the enumerator has for this reader now has been sent to it
 * (events to a reader arrive in order, so its splits arrived before this). A reader that holds no
 * split then is idle until a split is discovered for it; before this event it cannot tell "no split
 * for me" from "my splits are on their way", and marking itself idle then would let the other
 * readers' watermark pass records it is about to read.
 *
 * <p>Sent once to each reader after the first discovery, again after the reader registers anew (a
 * failover), and never once the readers were told that no more splits come.
 */
@Internal
public final class AssignmentSentEvent implements ReaderBoundEvent {

    private static final long serialVersionUID = 1L;

    @Override
    public void dispatchTo(Handler handler) {
        handler.onAssignmentSent();
    }

    @Override
    public String toString() {
        return "AssignmentSent";
    }
}
