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

import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;

import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongPredicate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The exactly-once check of a history-before-Kafka ITCase, keyed by partition, driven by the
 * records' {@link RecordPosition}: per partition, in keyed (checkpointed) state so that it moves
 * with the key on a rescale and is restored with the job, the offsets seen (each must come once),
 * their count and sum, how many and which came from the history, and the highest offset. With
 * {@code ordered}, each offset must also be the previous one plus one (the first 0): the order a
 * per-key state without event time sees.
 *
 * <p>What the state holds after each record is published per run for the test to read (in the JVM
 * of a MiniCluster test): {@link #progress}, {@link #assertPartition}, the violations.
 */
public final class PartitionChecker<T> extends KeyedProcessFunction<Integer, T, T> {

    /** run -> partition -> its progress as the checkpointed state has it. */
    private static final Map<String, Map<Integer, Progress>> PROGRESS = new ConcurrentHashMap<>();

    /** run -> partition -> its highest offset so far. */
    private static final Map<String, Map<Integer, Long>> LAST = new ConcurrentHashMap<>();

    private static final Map<String, Queue<String>> DUPLICATES = new ConcurrentHashMap<>();
    private static final Map<String, Queue<String>> OUT_OF_ORDER = new ConcurrentHashMap<>();

    /** run -> records processed in this JVM (not state: what a restored job went on with). */
    private static final Map<String, AtomicLong> PROCESSED = new ConcurrentHashMap<>();

    private final String run;
    private final RecordPosition<T> position;
    private final boolean ordered;

    private transient MapState<Long, Boolean> seen;

    /**
     * count, sum, from history, their sum, highest offset: no Kryo (1.20's cannot copy records).
     */
    private transient ValueState<long[]> state;

    public PartitionChecker(String run, RecordPosition<T> position, boolean ordered) {
        this.run = run;
        this.position = position;
        this.ordered = ordered;
    }

    /** One partition's records: how many, their offsets' sum, and the same of the history's. */
    public record Progress(long count, long sum, long fromHistory, long fromHistorySum) {}

    /** Each partition's progress, as the checkpointed state has it now. */
    public static Map<Integer, Progress> progress(String run) {
        return PROGRESS.computeIfAbsent(run, k -> new ConcurrentHashMap<>());
    }

    /** Each partition's highest offset so far. */
    public static Map<Integer, Long> lastOffsets(String run) {
        return LAST.getOrDefault(run, Map.of());
    }

    /** Records counted over every partition. */
    public static long total(String run) {
        return progress(run).values().stream().mapToLong(Progress::count).sum();
    }

    /** Records the history gave, over every partition. */
    public static long fromHistory(String run) {
        return progress(run).values().stream().mapToLong(Progress::fromHistory).sum();
    }

    /** Records this JVM processed in the run (a restored job's part of it). */
    public static long processed(String run) {
        return PROCESSED.getOrDefault(run, new AtomicLong()).get();
    }

    /** Offsets that came twice. */
    public static List<String> duplicates(String run) {
        return List.copyOf(DUPLICATES.getOrDefault(run, new ConcurrentLinkedQueue<>()));
    }

    /** Offsets that did not follow the previous one (checked with {@code ordered} only). */
    public static List<String> outOfOrder(String run) {
        return List.copyOf(OUT_OF_ORDER.getOrDefault(run, new ConcurrentLinkedQueue<>()));
    }

    public static void assertNoViolations(String run) {
        assertThat(duplicates(run)).as("offsets that came twice").isEmpty();
        assertThat(outOfOrder(run)).as("offsets out of order").isEmpty();
    }

    /**
     * Every offset of [from, to) that {@code expected} holds came once (no other: count and sum
     * match and none twice), those {@code inHistory} holds from the history, the others from the
     * topic.
     */
    public static void assertPartition(
            String run,
            int partition,
            long from,
            long to,
            LongPredicate inHistory,
            LongPredicate expected) {
        long count = 0;
        long sum = 0;
        long historyCount = 0;
        long historySum = 0;
        for (long o = from; o < to; o++) {
            if (expected.test(o)) {
                count++;
                sum += o;
                if (inHistory.test(o)) {
                    historyCount++;
                    historySum += o;
                }
            }
        }
        assertThat(progress(run).get(partition))
                .as("partition %d", partition)
                .isEqualTo(new Progress(count, sum, historyCount, historySum));
    }

    @Override
    public void open(OpenContext openContext) {
        seen =
                getRuntimeContext()
                        .getMapState(new MapStateDescriptor<>("seen", Long.class, Boolean.class));
        state =
                getRuntimeContext()
                        .getState(
                                new ValueStateDescriptor<>(
                                        "progress",
                                        PrimitiveArrayTypeInfo.LONG_PRIMITIVE_ARRAY_TYPE_INFO));
    }

    @Override
    public void processElement(T value, Context ctx, Collector<T> out) throws Exception {
        PROCESSED.computeIfAbsent(run, k -> new AtomicLong()).incrementAndGet();
        RecordPosition.Position at = position.of(value);
        int partition = at.partition();
        long offset = at.offset();
        long[] before = state.value();
        if (seen.contains(offset)) {
            DUPLICATES
                    .computeIfAbsent(run, k -> new ConcurrentLinkedQueue<>())
                    .add(
                            "partition "
                                    + partition
                                    + ": offset "
                                    + offset
                                    + " twice ("
                                    + value
                                    + ")");
        }
        seen.put(offset, true);
        long expected = before == null ? 0 : before[4] + 1;
        if (ordered && offset != expected) {
            OUT_OF_ORDER
                    .computeIfAbsent(run, k -> new ConcurrentLinkedQueue<>())
                    .add(
                            "partition "
                                    + partition
                                    + ": offset "
                                    + offset
                                    + " after "
                                    + (before == null ? null : before[4]));
        }
        boolean history = at.fromHistory();
        long[] after =
                before == null
                        ? new long[] {1, offset, history ? 1 : 0, history ? offset : 0, offset}
                        : new long[] {
                            before[0] + 1,
                            before[1] + offset,
                            before[2] + (history ? 1 : 0),
                            before[3] + (history ? offset : 0),
                            Math.max(before[4], offset)
                        };
        state.update(after);
        progress(run).put(partition, new Progress(after[0], after[1], after[2], after[3]));
        LAST.computeIfAbsent(run, k -> new ConcurrentHashMap<>()).put(partition, after[4]);
        out.collect(value);
    }
}
