package dev.sourcebackfill.source.testutils;

import org.apache.flink.api.common.functions.MapFunction;

/**
 * Slows a pipeline to about {@code recordsPerSecond} per subtask, so that a test can act while
 * splits are still backfilling; back pressure reaches the source.
 */
public final class Throttle<T> implements MapFunction<T, T> {

    private final long nanosPerRecord;
    private transient long next;

    public Throttle(double recordsPerSecond) {
        this.nanosPerRecord = (long) (1e9 / recordsPerSecond);
    }

    @Override
    public T map(T value) throws Exception {
        long now = System.nanoTime();
        if (next == 0) {
            next = now;
        }
        next += nanosPerRecord;
        long wait = next - now;
        if (wait > 1_000_000) {
            Thread.sleep(wait / 1_000_000);
        }
        return value;
    }
}
