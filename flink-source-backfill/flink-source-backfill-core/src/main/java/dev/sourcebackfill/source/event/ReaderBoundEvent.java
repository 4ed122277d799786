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

import dev.sourcebackfill.source.control.BackfillControl;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.source.SourceEvent;

/** An event the enumerator sends to readers; dispatched without a chain of type checks. */
@Internal
public interface ReaderBoundEvent extends SourceEvent {

    /** What a reader does with the events it receives. */
    interface Handler {
        void onReportAcknowledged(long readerIncarnation, long reportId);

        void onForwardMode(long checkpointId);

        void onAssignmentSent();

        /** The backfill's rate and pause, as the enumerator's control channel has them now. */
        void onControl(BackfillControl control);
    }

    void dispatchTo(Handler handler);
}
