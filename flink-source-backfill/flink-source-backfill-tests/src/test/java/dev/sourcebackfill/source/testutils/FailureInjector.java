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
package dev.sourcebackfill.source.testutils;

import dev.sourcebackfill.source.datagen.DatagenRecord;

import org.apache.flink.api.common.TaskInfo;
import org.apache.flink.api.common.functions.RichMapFunction;

import java.io.Serializable;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Fails the task once per trigger: at a given (partition, offset), or at the first record of a
 * partition at or past an offset once some reader is in forward mode.
 */
public final class FailureInjector extends RichMapFunction<DatagenRecord, DatagenRecord> {

    /** One failure point. */
    public static final class Trigger implements Serializable {
        final String name;
        final int partition;
        final long offset;
        final boolean afterForwardMode;

        private Trigger(String name, int partition, long offset, boolean afterForwardMode) {
            this.name = name;
            this.partition = partition;
            this.offset = offset;
            this.afterForwardMode = afterForwardMode;
        }

        public static Trigger at(String name, int partition, long offset) {
            return new Trigger(name, partition, offset, false);
        }

        public static Trigger afterForwardMode(String name, int partition, long offset) {
            return new Trigger(name, partition, offset, true);
        }

        @Override
        public String toString() {
            return name
                    + "(p"
                    + partition
                    + "@"
                    + offset
                    + (afterForwardMode ? ", forward" : "")
                    + ")";
        }
    }

    private final String runId;
    private final String sourceRun;
    private final List<Trigger> triggers;
    private final boolean oneRegion;

    /**
     * @param runId where fired triggers are recorded
     * @param sourceRun where the source records forward-mode entries
     * @param oneRegion whether the job is one failover region (a shuffle connects its tasks), so
     *     that a failure restarts every task; otherwise each subtask is a region of its own
     */
    public FailureInjector(
            String runId, String sourceRun, List<Trigger> triggers, boolean oneRegion) {
        this.runId = runId;
        this.sourceRun = sourceRun;
        this.triggers = triggers;
        this.oneRegion = oneRegion;
    }

    @Override
    public DatagenRecord map(DatagenRecord record) {
        Observations obs = Observations.of(runId);
        for (Trigger t : triggers) {
            if (record.partition != t.partition || record.offset < t.offset) {
                continue;
            }
            if (t.afterForwardMode
                    ? !Observations.of(sourceRun).anyForwardMode()
                    : record.offset != t.offset) {
                continue;
            }
            AtomicBoolean fired =
                    obs.firedFailures.computeIfAbsent(t.name, k -> new AtomicBoolean());
            if (fired.compareAndSet(false, true)) {
                obs.failuresInjected.incrementAndGet();
                // failures of one region in the same attempt make one restart
                TaskInfo task = getRuntimeContext().getTaskInfo();
                obs.failureEpisodes.add(
                        (oneRegion ? "job" : "subtask " + task.getIndexOfThisSubtask())
                                + " attempt "
                                + task.getAttemptNumber());
                throw new RuntimeException("Injected failure " + t + " at offset " + record.offset);
            }
        }
        return record;
    }
}
