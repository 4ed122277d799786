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

    FailOnce(String runId, long atRecord) {
        this.key = runId + "@" + atRecord;
        this.atRecord = atRecord;
    }

    static boolean fired(String runId, long atRecord) {
        return FIRED.computeIfAbsent(runId + "@" + atRecord, k -> new AtomicBoolean()).get();
    }

    @Override
    public PartitionRecord map(PartitionRecord record) {
        long seen = SEEN.computeIfAbsent(key, k -> new AtomicLong()).incrementAndGet();
        if (seen >= atRecord && FIRED.computeIfAbsent(key, k -> new AtomicBoolean()).compareAndSet(false, true)) {
            throw new IllegalStateException("injected failure at record " + seen + " (" + record.partitionKey() + "@" + record.offset + ")");
        }
        return record;
    }
}
