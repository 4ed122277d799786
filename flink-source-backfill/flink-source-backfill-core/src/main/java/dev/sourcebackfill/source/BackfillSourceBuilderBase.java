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

import dev.sourcebackfill.source.reader.FlinkRateLimiterStrategies;
import dev.sourcebackfill.source.reader.SteadyRateLimiter;
import dev.sourcebackfill.source.spi.BackfillLog;

import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.core.fs.Path;

import javax.annotation.Nullable;

import java.time.Duration;

/**
 * The settings every backfill source builder has (this library's and its adapters'), with their
 * defaults. A setting not set takes its default when the source is built.
 *
 * <table>
 *   <tr><th>option</th><th>default</th><th>meaning</th></tr>
 *   <tr><td>{@link #setPollTimeout}</td><td>100 ms</td><td>how long one fetch waits for data
 *       before it looks at read positions again</td></tr>
 *   <tr><td>{@link #setListener}</td><td>none</td><td>told of transitions and forward mode,
 *       for progress output</td></tr>
 *   <tr><td>{@link #setOffsetGapPolicy}</td><td>fail</td><td>what the source does when offsets
 *       it must read are gone (retention)</td></tr>
 *   <tr><td>{@link #setRecordOriginMarker}</td><td>none</td><td>writes each record's origin
 *       (backfill or live) into it</td></tr>
 *   <tr><td>{@link #setBackfillRecordsPerSecond}, {@link #setBackfillRateLimit}</td><td>no
 *       limit</td><td>how fast each reader reads backfill records; live records are never
 *       throttled</td></tr>
 *   <tr><td>{@link #setBackfillControlFile}, {@link #setBackfillControlInterval}</td><td>none;
 *       5 s</td><td>a file through which the backfill's rate is changed and the backfill paused
 *       while the job runs, and how often it is read</td></tr>
 * </table>
 *
 * @param <T> the type of records
 * @param <B> the builder's own type, which the setters return
 */
@PublicEvolving
public abstract class BackfillSourceBuilderBase<T, B extends BackfillSourceBuilderBase<T, B>> {

    /** How often new splits are looked for unless set. */
    public static final Duration DEFAULT_DISCOVERY_INTERVAL = Duration.ofSeconds(30);

    /** How long one fetch waits for data unless set. */
    public static final Duration DEFAULT_POLL_TIMEOUT = Duration.ofMillis(100);

    /** How often the control file is read unless set. */
    public static final Duration DEFAULT_CONTROL_INTERVAL = Duration.ofSeconds(5);

    @Nullable private Duration pollTimeout;
    @Nullable private BackfillListener listener;
    @Nullable private OffsetGapPolicy gapPolicy;
    @Nullable private RecordOrigin.Marker<T> originMarker;
    @Nullable private PollLimiter.Factory backfillRateLimit;
    @Nullable private Double backfillRecordsPerSecond;
    @Nullable private Long backfillChunkSize;
    @Nullable private String controlFile;
    @Nullable private Duration controlInterval;
    private boolean controlFileSet;

    /** Whether each setting was set (a null given to a setter is set, and refused). */
    private boolean pollTimeoutSet;

    private boolean listenerSet;
    private boolean gapPolicySet;
    private boolean originMarkerSet;

    protected BackfillSourceBuilderBase() {}

    /** This builder, as its own type. */
    protected abstract B self();

    /**
     * Fails naming the option, its setter and the problem, in the builder's own words (an {@link
     * IllegalArgumentException}).
     */
    protected abstract void checkOption(
            boolean valid, String option, String setter, String problem);

    public B setPollTimeout(Duration pollTimeout) {
        this.pollTimeout = pollTimeout;
        this.pollTimeoutSet = true;
        return self();
    }

    /** Told of transitions and forward mode on every reader, e.g. to print progress. */
    public B setListener(BackfillListener listener) {
        this.listener = listener;
        this.listenerSet = true;
        return self();
    }

    /**
     * What the source does when offsets it must read are gone (retention deleted them): fail the
     * job (the default) or skip the missing offsets with a warning and a count in the {@code
     * backfill.skippedOffsets} metric.
     */
    public B setOffsetGapPolicy(OffsetGapPolicy gapPolicy) {
        this.gapPolicy = gapPolicy;
        this.gapPolicySet = true;
        return self();
    }

    /**
     * Marks each record with where it was read (the split's backfill or its live reader) as the
     * source emits it, e.g. to fill a column; by default records are emitted as they are.
     */
    public B setRecordOriginMarker(RecordOrigin.Marker<T> originMarker) {
        this.originMarker = originMarker;
        this.originMarkerSet = true;
        return self();
    }

    /**
     * Limits how fast each reader reads backfill records, with one of Flink's rate limiter
     * strategies (given the source's parallelism, as Flink's sources give it; {@link
     * RateLimiterStrategy#perSecond} divides its rate among the readers). Only backfill records
     * count and wait: the live reader is never throttled, and a reader keeps reading its live
     * splits while its backfill waits. The parameter is Flink's type on every Flink line (generic
     * since 2.2, not before), so it is declared raw: any strategy is taken, and a chain of this
     * builder's setters keeps its type through Flink's raw {@code perSecond}. The reader asks the
     * limiter once per poll, for the poll's records: on Flink 2.2 and later in one acquisition,
     * which Flink's {@code perCheckpoint} grants while any of its count is left (so at least one
     * whole poll per checkpoint); before 2.2 one permit per record.
     */
    @SuppressWarnings("rawtypes")
    public B setBackfillRateLimit(RateLimiterStrategy rateLimiterStrategy) {
        this.backfillRateLimit = FlinkRateLimiterStrategies.perPoll(rateLimiterStrategy);
        return self();
    }

    /**
     * Limits each reader's backfill to {@code recordsPerSecond} records per second (see {@link
     * #setBackfillRateLimit}); the whole source backfills at most parallelism times that. The pace
     * is steady from the first record: no burst is stored while a reader starts or waits.
     */
    public B setBackfillRecordsPerSecond(double recordsPerSecond) {
        this.backfillRecordsPerSecond = recordsPerSecond;
        return self();
    }

    /**
     * Steers the backfill while the job runs through a file on Flink's {@code FileSystem} (a local
     * path, {@code hdfs://}, {@code s3://}...) that holds a {@link
     * dev.sourcebackfill.source.control.BackfillControl} (the {@code backfill} client writes it):
     * the backfill's rate per reader, or a pause (no history record is read; live records of
     * FINISHED splits keep flowing). The enumerator reads the file every {@link
     * #setBackfillControlInterval interval} and sends a change to the readers, which apply it at
     * their next poll. The control applied last is in the enumerator's checkpoints: a failover, a
     * restore and a rescale keep it, and it wins over this builder's rate limit, which holds until
     * the file sets a rate (or sets {@code rate=builder}). A file that cannot be read or holds no
     * control is logged and counted ({@code backfill.controlErrors}), never a failed job; a missing
     * file changes nothing.
     */
    public B setBackfillControlFile(String path) {
        this.controlFile = path;
        this.controlFileSet = true;
        return self();
    }

    /** How often the control file is read (5 s unless set). */
    public B setBackfillControlInterval(Duration interval) {
        this.controlInterval = interval;
        return self();
    }

    /**
     * Cuts each split's history, as the enumerator finds it at the job's first start, into chunks
     * of about {@code records} records each, read in parallel as splits of their own by any reader:
     * a split with much history no longer keeps one reader busy while the others wait. Off by
     * default.
     *
     * <p>The split itself keeps the last part of its history and its exact handover to the live
     * reader, and goes live while its chunks are read. Within a chunk offsets come in order; across
     * the chunks of one split there is no order: a job that needs each split's records in offset
     * order leaves this off. Each chunk has a split watermark of its own, so nothing becomes late
     * through chunking. The log cuts where it can (an archive at file boundaries); the log must
     * support chunks ({@link BackfillLog#supportsHistoryChunks()}).
     */
    public B setBackfillChunkSize(long records) {
        this.backfillChunkSize = records;
        return self();
    }

    /**
     * Gives {@code other} every setting set on this builder (a builder that wraps another's, as the
     * archive's wraps the Kafka one's: a setting set on the outer one wins).
     */
    protected final void copySetSettingsTo(BackfillSourceBuilderBase<T, ?> other) {
        if (pollTimeoutSet) {
            other.setPollTimeout(pollTimeout);
        }
        if (listenerSet) {
            other.setListener(listener);
        }
        if (gapPolicySet) {
            other.setOffsetGapPolicy(gapPolicy);
        }
        if (originMarkerSet) {
            other.setRecordOriginMarker(originMarker);
        }
        // the rate limit is one setting with two setters: the one set here replaces either
        if (backfillRateLimit != null) {
            other.backfillRecordsPerSecond = null;
            other.backfillRateLimit = backfillRateLimit;
        }
        if (backfillRecordsPerSecond != null) {
            other.backfillRateLimit = null;
            other.setBackfillRecordsPerSecond(backfillRecordsPerSecond);
        }
        if (backfillChunkSize != null) {
            other.setBackfillChunkSize(backfillChunkSize);
        }
        if (controlFileSet) {
            other.setBackfillControlFile(controlFile);
        }
        if (controlInterval != null) {
            other.setBackfillControlInterval(controlInterval);
        }
    }

    /** Whether {@link #setBackfillChunkSize} was called: a log may cut histories by default. */
    protected final boolean isBackfillChunkSizeSet() {
        return backfillChunkSize != null;
    }

    /** The offset gap policy the source is built with. */
    protected final OffsetGapPolicy gapPolicy() {
        return gapPolicySet ? gapPolicy : OffsetGapPolicy.FAIL;
    }

    /** Checks the shared settings, naming the first that is wrong. */
    protected final void checkSharedSettings() {
        checkOption(
                !pollTimeoutSet
                        || (pollTimeout != null
                                && !pollTimeout.isNegative()
                                && !pollTimeout.isZero()),
                "pollTimeout",
                "setPollTimeout",
                "must be positive: the poll timeout was " + pollTimeout);
        checkOption(
                !listenerSet || listener != null, "listener", "setListener", "must not be null");
        checkOption(
                !gapPolicySet || gapPolicy != null,
                "offset gap policy",
                "setOffsetGapPolicy",
                "must not be null");
        checkOption(
                !originMarkerSet || originMarker != null,
                "record origin marker",
                "setRecordOriginMarker",
                "must not be null");
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
        checkOption(
                backfillChunkSize == null || backfillChunkSize > 0,
                "backfill chunk size",
                "setBackfillChunkSize",
                "must be positive, was " + backfillChunkSize);
        checkOption(
                !controlFileSet || (controlFile != null && !controlFile.isBlank()),
                "backfill control file",
                "setBackfillControlFile",
                "must be a path, was " + (controlFile == null ? "null" : "'" + controlFile + "'"));
        if (controlFileSet && controlFile != null && !controlFile.isBlank()) {
            String problem = null;
            try {
                new Path(controlFile);
            } catch (IllegalArgumentException e) {
                problem = e.getMessage();
            }
            checkOption(
                    problem == null,
                    "backfill control file",
                    "setBackfillControlFile",
                    "is not a path: '" + controlFile + "' (" + problem + ")");
        }
        checkOption(
                controlInterval == null || controlInterval.toMillis() >= 1,
                "backfill control interval",
                "setBackfillControlInterval",
                "must be at least 1 ms, was " + controlInterval);
        checkOption(
                controlInterval == null || controlFileSet,
                "backfill control interval",
                "setBackfillControlInterval",
                "is set without a control file (setBackfillControlFile)");
    }

    /**
     * Builds the source over {@code log} with the shared settings (each unset one at its default).
     * Call {@link #checkSharedSettings()} first.
     */
    protected final BackfillSource<T> buildSource(
            BackfillLog<T> log, Boundedness boundedness, Duration splitDiscoveryInterval) {
        checkOption(
                backfillChunkSize == null || log.supportsHistoryChunks(),
                "backfill chunk size",
                "setBackfillChunkSize",
                "is set, but the log "
                        + log.getClass().getName()
                        + " cannot read a split's history in chunks");
        return new BackfillSource<>(
                log,
                new BackfillSourceConfig<>(
                        boundedness,
                        splitDiscoveryInterval,
                        pollTimeoutSet ? pollTimeout : DEFAULT_POLL_TIMEOUT,
                        listenerSet ? listener : BackfillListener.NO_OP,
                        gapPolicySet ? gapPolicy : OffsetGapPolicy.FAIL,
                        originMarkerSet ? originMarker : RecordOrigin.Marker.none(),
                        backfillRateLimit(),
                        backfillChunkSize,
                        controlFileSet ? controlFile : null,
                        controlInterval != null ? controlInterval : DEFAULT_CONTROL_INTERVAL));
    }

    /** The rate limit set, or one that limits nothing. */
    private PollLimiter.Factory backfillRateLimit() {
        if (backfillRecordsPerSecond != null) {
            return new PerReaderRate(backfillRecordsPerSecond);
        }
        return backfillRateLimit != null ? backfillRateLimit : PollLimiter.Factory.unlimited();
    }

    /** The same rate for every reader, whatever the parallelism. */
    private static final class PerReaderRate implements PollLimiter.Factory {
        private static final long serialVersionUID = 1L;
        private final double recordsPerSecond;

        PerReaderRate(double recordsPerSecond) {
            this.recordsPerSecond = recordsPerSecond;
        }

        @Override
        public PollLimiter create(int parallelism) {
            return new SteadyRateLimiter(recordsPerSecond);
        }

        @Override
        public String toString() {
            return recordsPerSecond + " backfill records per second per reader";
        }
    }
}
