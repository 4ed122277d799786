package dev.sourcebackfill.source.kafka;

import org.apache.flink.api.common.functions.MapFunction;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/** Fails the task once when the run's records seen (all subtasks, all attempts) reach a count. */
final class FailOnce implements MapFunction<PartitionRecord, PartitionRecord> {
    private static final long serialVersionUID = 1L;
    static final Map<String, AtomicLong> SEEN = new ConcurrentHashMap<>();
    static final Map<String, AtomicBoolean> FIRED = new ConcurrentHashMap<>();

    private final String key;
    private final long atRecord;
    /** If set, fails at the first record of this partition at or beyond {@link #atOffset}. */
    private final String partition;
    private final long atOffset;

    FailOnce(String runId, long atRecord) {
        this.key = runId + "@" + atRecord;
        this.atRecord = atRecord;
        this.partition = null;
        this.atOffset = -1;
    }

    /** Fails once when a record of {@code partition} at or beyond {@code atOffset} arrives. */
    static FailOnce atOffset(String runId, String partition, long atOffset) {
        return new FailOnce(runId + "@" + partition + "@" + atOffset, partition, atOffset);
    }

    private FailOnce(String key, String partition, long atOffset) {
        this.key = key;
        this.atRecord = Long.MAX_VALUE;
        this.partition = partition;
        this.atOffset = atOffset;
    }

    static boolean firedAtOffset(String runId, String partition, long atOffset) {
        return FIRED.computeIfAbsent(runId + "@" + partition + "@" + atOffset, k -> new AtomicBoolean()).get();
    }

    static boolean fired(String runId, long atRecord) {
        return FIRED.computeIfAbsent(runId + "@" + atRecord, k -> new AtomicBoolean()).get();
    }

    @Override
    public PartitionRecord map(PartitionRecord record) {
        long seen = SEEN.computeIfAbsent(key, k -> new AtomicLong()).incrementAndGet();
        boolean due =
                partition != null
                        ? record.partitionKey().equals(partition) && record.offset >= atOffset
                        : seen >= atRecord;
        if (due && FIRED.computeIfAbsent(key, k -> new AtomicBoolean()).compareAndSet(false, true)) {
            throw new IllegalStateException("injected failure at record " + seen + " (" + record.partitionKey() + "@" + record.offset + ")");
        }
        return record;
    }
}
