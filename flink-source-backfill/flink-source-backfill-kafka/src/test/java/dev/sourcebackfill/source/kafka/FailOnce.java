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
package dev.sourcebackfill.source.kafka;

import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.functions.RichMapFunction;

import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/** Fails the task once when the run's records seen (all subtasks, all attempts) reach a count. */
public final class FailOnce extends RichMapFunction<PartitionRecord, PartitionRecord> {
    private static final long serialVersionUID = 1L;
    static final Map<String, AtomicLong> SEEN = new ConcurrentHashMap<>();
    static final Map<String, AtomicBoolean> FIRED = new ConcurrentHashMap<>();

    /** job -> the attempt numbers of the tasks that failed on purpose, one entry per failure. */
    static final Map<JobID, List<Integer>> FAILED_ATTEMPTS = new ConcurrentHashMap<>();

    /**
     * How many of the failures injected into a job (one failover region: the jobs are keyed) came
     * in an attempt that another injected failure had already failed: Flink restarts once for all
     * failures of one attempt.
     */
    public static long mergedFailures(JobID job) {
        List<Integer> attempts = FAILED_ATTEMPTS.getOrDefault(job, List.of());
        return attempts.size() - new HashSet<>(attempts).size();
    }

    private final String key;
    private final long atRecord;

    /** If set, fails at the first record of this partition at or beyond {@link #atOffset}. */
    private final String partition;

    private final long atOffset;

    public FailOnce(String runId, long atRecord) {
        this.key = runId + "@" + atRecord;
        this.atRecord = atRecord;
        this.partition = null;
        this.atOffset = -1;
    }

    /** Fails once when a record of {@code partition} at or beyond {@code atOffset} arrives. */
    public static FailOnce atOffset(String runId, String partition, long atOffset) {
        return new FailOnce(runId + "@" + partition + "@" + atOffset, partition, atOffset);
    }

    private FailOnce(String key, String partition, long atOffset) {
        this.key = key;
        this.atRecord = Long.MAX_VALUE;
        this.partition = partition;
        this.atOffset = atOffset;
    }

    public static boolean firedAtOffset(String runId, String partition, long atOffset) {
        return FIRED.computeIfAbsent(
                        runId + "@" + partition + "@" + atOffset, k -> new AtomicBoolean())
                .get();
    }

    public static boolean fired(String runId, long atRecord) {
        return FIRED.computeIfAbsent(runId + "@" + atRecord, k -> new AtomicBoolean()).get();
    }

    @Override
    public PartitionRecord map(PartitionRecord record) {
        long seen = SEEN.computeIfAbsent(key, k -> new AtomicLong()).incrementAndGet();
        boolean due =
                partition != null
                        ? record.partitionKey().equals(partition) && record.offset >= atOffset
                        : seen >= atRecord;
        if (due
                && FIRED.computeIfAbsent(key, k -> new AtomicBoolean())
                        .compareAndSet(false, true)) {
            FAILED_ATTEMPTS
                    .computeIfAbsent(
                            getRuntimeContext().getJobInfo().getJobId(),
                            k -> new CopyOnWriteArrayList<>())
                    .add(getRuntimeContext().getTaskInfo().getAttemptNumber());
            throw new IllegalStateException(
                    "injected failure at record "
                            + seen
                            + " ("
                            + record.partitionKey()
                            + "@"
                            + record.offset
                            + ")");
        }
        return record;
    }
}
