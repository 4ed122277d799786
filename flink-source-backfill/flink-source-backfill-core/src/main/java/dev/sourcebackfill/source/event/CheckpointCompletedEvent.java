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
 * Reader to enumerator: a reader that reached its end (a bounded source's reader whose splits all
 * ended) passes on Flink's notification that checkpoint {@code checkpointId} completed.
 *
 * <p>Flink notifies the tasks of a completed checkpoint before the coordinators, from one thread,
 * and the job of a bounded source ends as soon as its tasks have their final checkpoint's
 * notification; the coordinator's own notification can then come after the enumerator was closed.
 * Sent before the task finishes, this event reaches the enumerator before the job's end: the
 * checkpoint that recorded the last end still confirms forward mode, and the log's action on it (an
 * Iceberg snapshot tag's removal) runs. A completed checkpoint is the same fact whoever tells it:
 * the enumerator treats this as its own notification.
 */
@Internal
public final class CheckpointCompletedEvent implements EnumeratorBoundEvent {

    private static final long serialVersionUID = 1L;

    private final long checkpointId;

    public CheckpointCompletedEvent(long checkpointId) {
        this.checkpointId = checkpointId;
    }

    public long checkpointId() {
        return checkpointId;
    }

    @Override
    public void dispatchTo(int subtask, Handler handler) {
        handler.onCheckpointCompleted(subtask, checkpointId);
    }

    @Override
    public String toString() {
        return "CheckpointCompleted{checkpoint=" + checkpointId + '}';
    }
}
