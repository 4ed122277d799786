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
package dev.sourcebackfill.examples;

import dev.sourcebackfill.source.BackfillListener;
import dev.sourcebackfill.source.SplitTransition;
import dev.sourcebackfill.source.split.HandoverState;

/** Prints handover transitions and the forward-mode confirmation. */
final class ConsoleProgress implements BackfillListener {

    private static final long serialVersionUID = 1L;

    private final long startMillis;

    ConsoleProgress(long startMillis) {
        this.startMillis = startMillis;
    }

    @Override
    public void onTransition(SplitTransition transition) {
        if (transition.to() == HandoverState.FINISHED) {
            System.out.printf(
                    "[reader %d] %s handed over to the live reader at offset %d (%d records backfilled)%n",
                    transition.subtask(),
                    transition.splitId(),
                    transition.nextOffset(),
                    transition.backfilledRecords());
        }
    }

    @Override
    public void onForwardMode(int subtask, long checkpointId, long backfilledRecords) {
        System.out.printf(
                "[reader %d] FORWARD MODE confirmed by checkpoint %d after %.1f s; "
                        + "%d records backfilled by this reader%n",
                subtask,
                checkpointId,
                (System.currentTimeMillis() - startMillis) / 1000.0,
                backfilledRecords);
    }

    @Override
    public void onSplitEnded(int subtask, String splitId, long nextOffset) {
        System.out.printf(
                "[reader %d] %s reached its stopping offset %d%n", subtask, splitId, nextOffset);
    }
}
