package dev.sourcebackfill.source.metrics;

import org.apache.flink.annotation.Internal;
import org.apache.flink.metrics.MetricGroup;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Metrics of the enumerator (the whole source), under the group {@code backfill}:
 * {@code splitsBackfilling}, {@code splitsCachingUp}, {@code splitsFinished}, {@code splitsEnded},
 * {@code splitsUnconfirmed}, {@code forwardMode} (0 or 1) and {@code forwardModeCheckpoint}.
 *
 * <p>The coordinator thread publishes the figures with {@link #update}; reporters read them from
 * their own threads, so the gauges never touch the status table.
 */
@Internal
public final class BackfillEnumeratorMetrics {

    /**
     * One instance per metric scope: when Flink creates the enumerator again (global failover,
     * rescale) the coordinator's metrics keep their scope, and a gauge cannot be registered twice
     * there; the new enumerator publishes through the gauges registered first. One small entry
     * per source scope the JobManager has seen.
     */
    private static final Map<String, BackfillEnumeratorMetrics> BY_SCOPE = new ConcurrentHashMap<>();

    private volatile int backfilling;
    private volatile int cachingUp;
    private volatile int finished;
    private volatile int ended;
    private volatile int unconfirmed;
    private volatile boolean forwardMode;
    private volatile long forwardModeCheckpoint = -1;

    /** The metrics of the given enumerator metric group, registered on first use. */
    public static BackfillEnumeratorMetrics of(MetricGroup parent) {
        return BY_SCOPE.computeIfAbsent(
                parent.getMetricIdentifier(BackfillReaderMetrics.GROUP),
                scope -> new BackfillEnumeratorMetrics(parent));
    }

    private BackfillEnumeratorMetrics(MetricGroup parent) {
        MetricGroup group = parent.addGroup(BackfillReaderMetrics.GROUP);
        group.gauge("splitsBackfilling", () -> backfilling);
        group.gauge("splitsCachingUp", () -> cachingUp);
        group.gauge("splitsFinished", () -> finished);
        group.gauge("splitsEnded", () -> ended);
        group.gauge("splitsUnconfirmed", () -> unconfirmed);
        group.gauge("forwardMode", () -> forwardMode ? 1 : 0);
        group.gauge("forwardModeCheckpoint", () -> forwardModeCheckpoint);
    }

    public void update(
            int backfilling,
            int cachingUp,
            int finished,
            int ended,
            int unconfirmed,
            boolean forwardMode,
            long forwardModeCheckpoint) {
        this.backfilling = backfilling;
        this.cachingUp = cachingUp;
        this.finished = finished;
        this.ended = ended;
        this.unconfirmed = unconfirmed;
        this.forwardMode = forwardMode;
        this.forwardModeCheckpoint = forwardModeCheckpoint;
    }
}
