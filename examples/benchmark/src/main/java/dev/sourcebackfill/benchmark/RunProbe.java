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

import java.util.Collection;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What the subtasks of one benchmark job saw. Static, because every job of a benchmark runs in this
 * JVM's MiniCluster: the sink and the listener find their probe by the job's run id.
 */
final class RunProbe implements AutoCloseable {

    private static final Map<String, RunProbe> RUNS = new ConcurrentHashMap<>();

    private final String id;
    private final Map<Integer, SubtaskProbe> subtasks = new ConcurrentHashMap<>();

    private RunProbe(String id) {
        this.id = id;
    }

    /** A probe for one job of kind {@code kind}; closing it forgets the job. */
    static RunProbe open(String kind) {
        RunProbe probe = new RunProbe(kind + "-" + UUID.randomUUID());
        RUNS.put(probe.id, probe);
        return probe;
    }

    /** The id the job's sink and listener find this probe by. */
    String id() {
        return id;
    }

    static RunProbe of(String runId) {
        RunProbe probe = RUNS.get(runId);
        if (probe == null) {
            throw new IllegalStateException("No probe for run " + runId);
        }
        return probe;
    }

    @Override
    public void close() {
        RUNS.remove(id);
    }

    SubtaskProbe subtask(int index) {
        return subtasks.computeIfAbsent(index, i -> new SubtaskProbe());
    }

    Collection<SubtaskProbe> subtasks() {
        return subtasks.values();
    }

    /** Records the sinks published so far (lags the truth by at most 1,024 per subtask). */
    long publishedRecords() {
        long n = 0;
        for (SubtaskProbe s : subtasks.values()) {
            n += s.publishedRecords;
        }
        return n;
    }

    boolean allInForwardMode(int parallelism) {
        int forward = 0;
        for (SubtaskProbe s : subtasks.values()) {
            forward += s.forwardNanos >= 0 ? 1 : 0;
        }
        return forward == parallelism;
    }

    /** The highest checkpoint id that confirmed forward mode on some reader, or -1. */
    long forwardCheckpoint() {
        long id = -1;
        for (SubtaskProbe s : subtasks.values()) {
            id = Math.max(id, s.forwardCheckpoint);
        }
        return id;
    }

    /** Sum over subtasks of records / (last - first record): every record of the job. */
    double recordsPerSecond() {
        double sum = 0;
        for (SubtaskProbe s : subtasks.values()) {
            if (s.records > 1 && s.lastNanos > s.firstNanos) {
                sum += (s.records - 1) * 1e9 / (s.lastNanos - s.firstNanos);
            }
        }
        return sum;
    }

    /** Sum over subtasks of the records after forward mode / (last record - forward mode). */
    double forwardRecordsPerSecond() {
        double sum = 0;
        for (SubtaskProbe s : subtasks.values()) {
            long after = s.records - s.recordsAtForward;
            if (s.forwardNanos < 0 || after <= 1 || s.lastNanos <= s.forwardNanos) {
                throw new IllegalStateException(
                        "A subtask read no records after forward mode; the live part was too short");
            }
            sum += after * 1e9 / (s.lastNanos - s.forwardNanos);
        }
        return sum;
    }

    long recordsAfterForwardMode() {
        long n = 0;
        for (SubtaskProbe s : subtasks.values()) {
            n += s.records - s.recordsAtForward;
        }
        return n;
    }

    /** When the job's last record reached a sink (after the job ended). */
    long lastRecordNanos() {
        long last = -1;
        for (SubtaskProbe s : subtasks.values()) {
            last = Math.max(last, s.lastNanos);
        }
        if (last < 0) {
            throw new IllegalStateException("The run saw no record");
        }
        return last;
    }

    /** Per subtask: its records and when its first and last arrived, in s after {@code start}. */
    String timeline(long start) {
        StringBuilder out = new StringBuilder();
        subtasks.forEach(
                (subtask, s) ->
                        out.append(
                                String.format(
                                        java.util.Locale.ROOT,
                                        "[subtask %s: %d records, %.3f-%.3f s] ",
                                        subtask,
                                        s.records,
                                        (s.firstNanos - start) / 1e9,
                                        (s.lastNanos - start) / 1e9)));
        return out.toString();
    }

    long totalRecords() {
        long n = 0;
        for (SubtaskProbe s : subtasks.values()) {
            n += s.records;
        }
        return n;
    }

    /** From the last split becoming FINISHED on any reader to the last reader in forward mode. */
    long handoverLatencyNanos() {
        long lastFinished = -1;
        long lastForward = -1;
        for (SubtaskProbe s : subtasks.values()) {
            lastFinished = Math.max(lastFinished, s.lastFinishedNanos);
            lastForward = Math.max(lastForward, s.forwardNanos);
        }
        if (lastFinished < 0 || lastForward < 0) {
            throw new IllegalStateException("No handover or no forward mode was seen");
        }
        return lastForward - lastFinished;
    }

    /**
     * One subtask's observations. The sink and the listener of a subtask run in its task thread
     * (the source and the sink are chained), so the plain fields have a single writer; the main
     * thread reads them after the job ended, the volatile ones while it runs.
     */
    static final class SubtaskProbe {
        long records;
        long firstNanos = -1;
        long lastNanos = -1;
        long recordsAtForward;
        volatile long publishedRecords;
        volatile long forwardNanos = -1;
        volatile long forwardCheckpoint = -1;
        volatile long lastFinishedNanos = -1;
    }
}
