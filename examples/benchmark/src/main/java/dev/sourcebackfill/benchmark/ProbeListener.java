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
package dev.sourcebackfill.benchmark;

import dev.sourcebackfill.source.BackfillListener;
import dev.sourcebackfill.source.SplitTransition;
import dev.sourcebackfill.source.split.HandoverState;

/** Notes, per reader, when its splits become FINISHED and when it enters forward mode. */
final class ProbeListener implements BackfillListener {

    private static final long serialVersionUID = 1L;

    private final String runId;

    ProbeListener(String runId) {
        this.runId = runId;
    }

    @Override
    public void onTransition(SplitTransition transition) {
        if (transition.to() == HandoverState.FINISHED) {
            RunProbe.of(runId).subtask(transition.subtask()).lastFinishedNanos = System.nanoTime();
        }
    }

    @Override
    public void onForwardMode(int subtask, long checkpointId, long backfilledRecords) {
        RunProbe.SubtaskProbe probe = RunProbe.of(runId).subtask(subtask);
        if (probe.forwardNanos < 0) {
            // the listener runs in the task thread that also runs the chained sink
            probe.recordsAtForward = probe.records;
            probe.forwardCheckpoint = checkpointId;
            probe.forwardNanos = System.nanoTime();
        }
    }
}
