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
package dev.sourcebackfill.source;

import dev.sourcebackfill.source.reader.BackfillSourceReader;
import dev.sourcebackfill.source.reader.SteadyRateLimiter;
import dev.sourcebackfill.source.spi.BackfillLog;
import dev.sourcebackfill.source.split.BackfillSplit;

import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiter;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;

import javax.annotation.Nullable;

import java.time.Duration;

import static org.apache.flink.util.Preconditions.checkArgument;

/**
 * Builds a {@link BackfillSource}. Every option is checked in {@link #build()}, which names the
 * option that is wrong (an {@link IllegalArgumentException}).
 *
 * <table>
 *   <tr><th>option</th><th>default</th><th>meaning</th></tr>
 *   <tr><td>{@link #setLog}</td><td>required</td><td>the log to read</td></tr>
 *   <tr><td>{@link #setBounded}</td><td>unbounded</td><td>stop each split at its stopping
 *       offset (the log must give one for every split: {@link BackfillLog#hasStoppingOffsets})</td></tr>
 *   <tr><td>{@link #setSplitDiscoveryInterval}</td><td>30 s</td><td>how often new splits are
 *       looked for; zero looks only at start</td></tr>
 *   <tr><td>{@link #setPollTimeout}</td><td>100 ms</td><td>how long one fetch waits for data
 *       before it looks at read positions again</td></tr>
 *   <tr><td>{@link #setListener}</td><td>none</td><td>told of transitions and forward mode,
 *       for progress output</td></tr>
 *   <tr><td>{@link #setRecordOriginMarker}</td><td>none</td><td>writes each record's origin
 *       (backfill or live) into it</td></tr>
 *   <tr><td>{@link #setBackfillRecordsPerSecond}, {@link #setBackfillRateLimit}</td><td>no
 *       limit</td><td>how fast each reader reads backfill records; live records are never
 *       throttled</td></tr>
 * </table>
 */
@PublicEvolving
public final class BackfillSourceBuilder<T> {

    /** How often new splits are looked for unless set. */
    public static final Duration DEFAULT_DISCOVERY_INTERVAL = Duration.ofSeconds(30);

    /** How long one fetch waits for data unless set. */
    public static final Duration DEFAULT_POLL_TIMEOUT = Duration.ofMillis(100);

    private BackfillLog<T> log;
    private Boundedness boundedness = Boundedness.CONTINUOUS_UNBOUNDED;
    private Duration splitDiscoveryInterval = DEFAULT_DISCOVERY_INTERVAL;
    private Duration pollTimeout = DEFAULT_POLL_TIMEOUT;
    private BackfillListener listener = BackfillListener.NO_OP;
    private OffsetGapPolicy gapPolicy = OffsetGapPolicy.FAIL;
    private RecordOrigin.Marker<T> originMarker = RecordOrigin.Marker.none();
    @Nullable private RateLimiterStrategy<BackfillSplit> backfillRateLimit;
    @Nullable private Double backfillRecordsPerSecond;

    BackfillSourceBuilder() {}

    public BackfillSourceBuilder<T> setLog(BackfillLog<T> log) {
        this.log = log;
        return this;
    }

    /** Each split ends at the stopping offset its log gives it; the job then finishes. */
    public BackfillSourceBuilder<T> setBounded() {
        this.boundedness = Boundedness.BOUNDED;
        return this;
    }

    public BackfillSourceBuilder<T> setUnbounded() {
        this.boundedness = Boundedness.CONTINUOUS_UNBOUNDED;
        return this;
    }

    public BackfillSourceBuilder<T> setSplitDiscoveryInterval(Duration interval) {
        this.splitDiscoveryInterval = interval;
        return this;
    }

    public BackfillSourceBuilder<T> setPollTimeout(Duration pollTimeout) {
        this.pollTimeout = pollTimeout;
        return this;
    }

    /** Told of transitions and forward mode on every reader, e.g. to print progress. */
    public BackfillSourceBuilder<T> setListener(BackfillListener listener) {
        this.listener = listener;
        return this;
    }

    /**
     * What a handover does when the upstream no longer has the split's next offset: fail the job
     * (the default) or skip the missing offsets with a warning and a count in the {@code
     * backfill.skippedOffsets} metric.
     */
    public BackfillSourceBuilder<T> setOffsetGapPolicy(OffsetGapPolicy gapPolicy) {
        this.gapPolicy = gapPolicy;
        return this;
    }

    /**
     * Marks each record with where it was read (the split's backfill or its live upstream) as the
     * source emits it, e.g. to fill a column; by default records are emitted as they are.
     */
    public BackfillSourceBuilder<T> setRecordOriginMarker(RecordOrigin.Marker<T> originMarker) {
        this.originMarker = originMarker;
        return this;
    }

    /**
     * Limits how fast each reader reads backfill records, with one of Flink's rate limiter
     * strategies (given the source's parallelism, as Flink's sources give it; {@link
     * RateLimiterStrategy#perSecond} divides its rate among the readers). Only backfill records
     * count and wait: the live upstream is never throttled, and a reader keeps reading its live
     * splits while its backfill waits.
     */
    public BackfillSourceBuilder<T> setBackfillRateLimit(
            RateLimiterStrategy<BackfillSplit> rateLimiterStrategy) {
        this.backfillRateLimit = rateLimiterStrategy;
        return this;
    }

    /**
     * Limits each reader's backfill to {@code recordsPerSecond} records per second (see {@link
     * #setBackfillRateLimit}); the whole source backfills at most parallelism times that. The pace
     * is steady from the first record: no burst is stored while a reader starts or waits.
     */
    public BackfillSourceBuilder<T> setBackfillRecordsPerSecond(double recordsPerSecond) {
        this.backfillRecordsPerSecond = recordsPerSecond;
        return this;
    }

    /** Checks every option, naming the first that is wrong, then builds the source. */
    public BackfillSource<T> build() {
        sanityCheck();
        return new BackfillSource<>(
                log,
                boundedness,
                splitDiscoveryInterval,
                pollTimeout,
                listener,
                gapPolicy,
                originMarker,
                backfillRateLimit());
    }

    /** The rate limit set, or Flink's strategy that limits nothing. */
    private RateLimiterStrategy<BackfillSplit> backfillRateLimit() {
        if (backfillRecordsPerSecond != null) {
            return new PerReaderRate(backfillRecordsPerSecond);
        }
        return backfillRateLimit != null ? backfillRateLimit : BackfillSourceReader.noRateLimit();
    }

    private void sanityCheck() {
        checkOption(log != null, "log", "setLog", "is not set");
        checkOption(
                originMarker != null,
                "record origin marker",
                "setRecordOriginMarker",
                "must not be null");
        checkOption(
                log.getProducedType() != null, "log", "setLog", "gives no produced type: " + log);
        checkOption(
                boundedness != Boundedness.BOUNDED || log.hasStoppingOffsets(),
                "bounded",
                "setBounded",
                "needs a stopping offset for every split, and the log gives none: " + log);
        checkOption(
                splitDiscoveryInterval != null && !splitDiscoveryInterval.isNegative(),
                "splitDiscoveryInterval",
                "setSplitDiscoveryInterval",
                "must be zero or positive, was " + splitDiscoveryInterval);
        checkOption(
                pollTimeout != null && !pollTimeout.isNegative() && !pollTimeout.isZero(),
                "pollTimeout",
                "setPollTimeout",
                "must be positive, was " + pollTimeout);
        checkOption(listener != null, "listener", "setListener", "must not be null");
        checkOption(
                gapPolicy != null, "offset gap policy", "setOffsetGapPolicy", "must not be null");
        checkOption(
                backfillRecordsPerSecond == null || backfillRateLimit == null,
                "backfill rate limit",
                "setBackfillRecordsPerSecond, setBackfillRateLimit",
                "is set twice: set one of them");
        checkOption(
                backfillRecordsPerSecond == null
                        || (backfillRecordsPerSecond > 0
                                && !Double.isInfinite(backfillRecordsPerSecond)),
                "backfill records per second",
                "setBackfillRecordsPerSecond",
                "must be positive and finite, was " + backfillRecordsPerSecond);
    }

    /** The same rate for every reader, whatever the parallelism. */
    private static final class PerReaderRate implements RateLimiterStrategy<BackfillSplit> {
        private static final long serialVersionUID = 1L;
        private final double recordsPerSecond;

        PerReaderRate(double recordsPerSecond) {
            this.recordsPerSecond = recordsPerSecond;
        }

        @Override
        public RateLimiter<BackfillSplit> createRateLimiter(int parallelism) {
            return new SteadyRateLimiter(recordsPerSecond);
        }

        @Override
        public String toString() {
            return recordsPerSecond + " backfill records per second per reader";
        }
    }

    private static void checkOption(boolean valid, String option, String setter, String problem) {
        checkArgument(valid, "BackfillSource option '%s' (%s) %s", option, setter, problem);
    }
}
