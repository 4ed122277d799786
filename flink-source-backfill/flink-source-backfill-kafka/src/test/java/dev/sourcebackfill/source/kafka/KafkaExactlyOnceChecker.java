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

import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;

import java.time.Duration;
import java.util.Map;
import java.util.Queue;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * Keyed by partition: every record must have a higher offset than the last one in checkpointed
 * state (no duplicate, in order); the digest of all records so far is kept in that state, so after
 * any failover the published digest is that of exactly the records the surviving lineage saw.
 */
public final class KafkaExactlyOnceChecker
        extends KeyedProcessFunction<String, PartitionRecord, PartitionRecord> {

    /** run -> partition -> digest of the records in checkpointed lineage. */
    static final Map<String, Map<String, PartitionDigest>> DIGESTS = new ConcurrentHashMap<>();

    static final Map<String, Queue<String>> VIOLATIONS = new ConcurrentHashMap<>();

    private final String runId;

    /**
     * Whether a partition's records may come in any order (chunks of history): then each offset
     * must come once, which the offsets kept in state check, instead of in increasing order.
     */
    private final boolean unordered;

    private transient MapState<Long, Boolean> seen;
    private transient ValueState<Long> count;
    private transient ValueState<Long> last;
    private transient ValueState<Long> checksum;

    public KafkaExactlyOnceChecker(String runId) {
        this(runId, false);
    }

    public KafkaExactlyOnceChecker(String runId, boolean unordered) {
        this.runId = runId;
        this.unordered = unordered;
    }

    public static Map<String, PartitionDigest> digests(String runId) {
        return DIGESTS.computeIfAbsent(runId, k -> new ConcurrentHashMap<>());
    }

    public static Queue<String> violations(String runId) {
        return VIOLATIONS.computeIfAbsent(runId, k -> new ConcurrentLinkedQueue<>());
    }

    /** Waits until the run has checked at least {@code count} records of {@code partition}. */
    public static void awaitCount(String runId, String partition, long count, Duration timeout)
            throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (digests(runId).getOrDefault(partition, PartitionDigest.empty()).count() < count) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError(
                        String.format(
                                "%d records of %s not checked within %s: %s",
                                count, partition, timeout, digests(runId)));
            }
            Thread.sleep(20);
        }
    }

    /** Waits until the run's digests equal {@code expected}; fails showing both if they do not. */
    public static void awaitDigests(
            String runId, Map<String, PartitionDigest> expected, Duration timeout)
            throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!digests(runId).equals(expected)) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError(
                        String.format(
                                "The job's checked records %s, expected %s",
                                new TreeMap<>(digests(runId)), expected));
            }
            Thread.sleep(50);
        }
    }

    @Override
    public void open(OpenContext openContext) {
        count = getRuntimeContext().getState(new ValueStateDescriptor<>("count", Types.LONG));
        last = getRuntimeContext().getState(new ValueStateDescriptor<>("last", Types.LONG));
        checksum = getRuntimeContext().getState(new ValueStateDescriptor<>("checksum", Types.LONG));
        if (unordered) {
            seen =
                    getRuntimeContext()
                            .getMapState(
                                    new MapStateDescriptor<>("seen", Types.LONG, Types.BOOLEAN));
        }
    }

    @Override
    public void processElement(PartitionRecord r, Context ctx, Collector<PartitionRecord> out)
            throws Exception {
        PartitionDigest before =
                count.value() == null
                        ? PartitionDigest.empty()
                        : new PartitionDigest(count.value(), last.value(), checksum.value());
        PartitionDigest after;
        if (unordered) {
            if (seen.contains(r.offset)) {
                violations(runId).add(r.partitionKey() + ": offset " + r.offset + " twice");
            }
            seen.put(r.offset, true);
            after = before.plusUnordered(r.offset, r.value);
        } else {
            if (r.offset <= before.lastOffset) {
                violations(runId)
                        .add(
                                r.partitionKey()
                                        + ": offset "
                                        + r.offset
                                        + " after "
                                        + before.lastOffset);
            }
            after = before.plus(r.offset, r.value);
        }
        count.update(after.count);
        last.update(after.lastOffset);
        checksum.update(after.checksum);
        digests(runId).put(r.partitionKey(), after);
        out.collect(r);
    }
}
