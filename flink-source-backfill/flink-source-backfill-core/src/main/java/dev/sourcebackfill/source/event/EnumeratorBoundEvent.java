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
import org.apache.flink.api.connector.source.SourceEvent;

/** An event a reader sends to the enumerator; dispatched without a chain of type checks. */
@Internal
public interface EnumeratorBoundEvent extends SourceEvent {

    /** What the enumerator does with the events it receives. */
    interface Handler {
        /** The reader on {@code subtask} reported some of its splits' statuses. */
        void onStatusReport(int subtask, SplitStatusReportEvent report);

        /**
         * The reader on {@code subtask}, at its end, was told that checkpoint {@code checkpointId}
         * completed.
         */
        void onCheckpointCompleted(int subtask, long checkpointId);
    }

    void dispatchTo(int subtask, Handler handler);
}
