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

import org.apache.flink.annotation.Internal;
import org.apache.flink.annotation.VisibleForTesting;
import org.apache.flink.api.connector.source.Boundedness;

import javax.annotation.Nullable;

import java.io.Serializable;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The settings of one {@link BackfillSource}, checked by its builder: what the enumerator and each
 * reader are built with. Immutable and serializable (it travels with the source).
 */
@Internal
public final class BackfillSourceConfig<T> implements Serializable {

    private static final long serialVersionUID = 1L;

    private final Boundedness boundedness;
    private final Duration splitDiscoveryInterval;
    private final Duration pollTimeout;
    private final BackfillListener listener;
    private final OffsetGapPolicy gapPolicy;
    private final RecordOrigin.Marker<T> originMarker;
    private final PollLimiter.Factory backfillRateLimit;

    /** Records per chunk of history; {@code null}: history is not cut into chunks. */
    @Nullable private final Long backfillChunkSize;

    /** The control file's path; {@code null}: the backfill is not steered while it runs. */
    @Nullable private final String controlFile;

    /** How often the enumerator reads the control file. */
    private final Duration controlInterval;

    BackfillSourceConfig(
            Boundedness boundedness,
            Duration splitDiscoveryInterval,
            Duration pollTimeout,
            BackfillListener listener,
            OffsetGapPolicy gapPolicy,
            RecordOrigin.Marker<T> originMarker,
            PollLimiter.Factory backfillRateLimit,
            @Nullable Long backfillChunkSize,
            @Nullable String controlFile,
            Duration controlInterval) {
        this.boundedness = boundedness;
        this.splitDiscoveryInterval = splitDiscoveryInterval;
        this.pollTimeout = pollTimeout;
        this.listener = listener;
        this.gapPolicy = gapPolicy;
        this.originMarker = originMarker;
        this.backfillRateLimit = backfillRateLimit;
        this.backfillChunkSize = backfillChunkSize;
        this.controlFile = controlFile;
        this.controlInterval = controlInterval;
    }

    /** The builders' defaults: unbounded, no listener, no marker, no rate limit, gaps fail. */
    @VisibleForTesting
    public static <T> BackfillSourceConfig<T> defaults() {
        return new BackfillSourceConfig<>(
                Boundedness.CONTINUOUS_UNBOUNDED,
                BackfillSourceBuilderBase.DEFAULT_DISCOVERY_INTERVAL,
                BackfillSourceBuilderBase.DEFAULT_POLL_TIMEOUT,
                BackfillListener.NO_OP,
                OffsetGapPolicy.FAIL,
                RecordOrigin.Marker.none(),
                PollLimiter.Factory.unlimited(),
                null,
                null,
                BackfillSourceBuilderBase.DEFAULT_CONTROL_INTERVAL);
    }

    /** The same settings, steered through the control file at {@code path}. */
    @VisibleForTesting
    public BackfillSourceConfig<T> withControlFile(String path) {
        return new BackfillSourceConfig<>(
                boundedness,
                splitDiscoveryInterval,
                pollTimeout,
                listener,
                gapPolicy,
                originMarker,
                backfillRateLimit,
                backfillChunkSize,
                path,
                controlInterval);
    }

    @VisibleForTesting
    public BackfillSourceConfig<T> withPollTimeout(Duration pollTimeout) {
        return with(pollTimeout, listener, gapPolicy);
    }

    @VisibleForTesting
    public BackfillSourceConfig<T> withListener(BackfillListener listener) {
        return with(pollTimeout, listener, gapPolicy);
    }

    @VisibleForTesting
    public BackfillSourceConfig<T> withGapPolicy(OffsetGapPolicy gapPolicy) {
        return with(pollTimeout, listener, gapPolicy);
    }

    private BackfillSourceConfig<T> with(
            Duration pollTimeout, BackfillListener listener, OffsetGapPolicy gapPolicy) {
        return copy(pollTimeout, listener, gapPolicy, backfillChunkSize);
    }

    /** The same settings, with history cut into chunks of {@code records} records. */
    @VisibleForTesting
    public BackfillSourceConfig<T> withBackfillChunkSize(long records) {
        return copy(pollTimeout, listener, gapPolicy, records);
    }

    private BackfillSourceConfig<T> copy(
            Duration pollTimeout,
            BackfillListener listener,
            OffsetGapPolicy gapPolicy,
            @Nullable Long backfillChunkSize) {
        return new BackfillSourceConfig<>(
                boundedness,
                splitDiscoveryInterval,
                pollTimeout,
                listener,
                gapPolicy,
                originMarker,
                backfillRateLimit,
                backfillChunkSize,
                controlFile,
                controlInterval);
    }

    /**
     * How many records each chunk of a split's history holds, about (the log cuts where it can);
     * empty if history is not cut into chunks.
     */
    public OptionalLong backfillChunkSize() {
        return backfillChunkSize == null
                ? OptionalLong.empty()
                : OptionalLong.of(backfillChunkSize);
    }

    public Boundedness boundedness() {
        return boundedness;
    }

    /** How often the enumerator looks for new splits; zero: only at start. */
    public Duration splitDiscoveryInterval() {
        return splitDiscoveryInterval;
    }

    /** How long one fetch waits for data before it looks at read positions again. */
    public Duration pollTimeout() {
        return pollTimeout;
    }

    public BackfillListener listener() {
        return listener;
    }

    public OffsetGapPolicy gapPolicy() {
        return gapPolicy;
    }

    public RecordOrigin.Marker<T> originMarker() {
        return originMarker;
    }

    /** Whether the backfill is steered through a control file while it runs. */
    public boolean hasControlFile() {
        return controlFile != null;
    }

    /** The control file's path, if the source has one. */
    public Optional<String> controlFile() {
        return Optional.ofNullable(controlFile);
    }

    /** How often the enumerator reads the control file. */
    public Duration controlInterval() {
        return controlInterval;
    }

    /** The backfill's rate limit; Flink's strategy that limits nothing if none was set. */
    public PollLimiter.Factory backfillRateLimit() {
        return backfillRateLimit;
    }
}
