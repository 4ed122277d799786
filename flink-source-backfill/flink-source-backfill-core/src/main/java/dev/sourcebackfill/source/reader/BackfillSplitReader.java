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
package dev.sourcebackfill.source.reader;

import dev.sourcebackfill.source.BackfillSourceConfig;
import dev.sourcebackfill.source.OffsetGapPolicy;
import dev.sourcebackfill.source.metrics.BackfillReaderMetrics;
import dev.sourcebackfill.source.metrics.FetchProgress;
import dev.sourcebackfill.source.spi.BackfillLog;
import dev.sourcebackfill.source.spi.LogReader;
import dev.sourcebackfill.source.spi.LogReading;
import dev.sourcebackfill.source.split.BackfillSplit;
import dev.sourcebackfill.source.split.HandoverState;

import org.apache.flink.annotation.Internal;
import org.apache.flink.annotation.VisibleForTesting;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.connector.base.source.reader.RecordsWithSplitIds;
import org.apache.flink.connector.base.source.reader.splitreader.SplitReader;
import org.apache.flink.connector.base.source.reader.splitreader.SplitsAddition;
import org.apache.flink.connector.base.source.reader.splitreader.SplitsChange;
import org.apache.flink.connector.base.source.reader.splitreader.SplitsRemoval;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * Reads the splits of one source reader from the backfill and the live reader {@link LogReader}s
 * and runs each split's {@link SplitHandover}. Runs in the fetcher thread.
 *
 * <p>A seekable live reader is given a split only at its handover, at the first offset not
 * backfilled, so nothing is read twice ({@link SeekableLiveHandover}). A feed, a non-seekable live
 * reader, is given every split at once; the handover drops what the backfill covers ({@link
 * LiveFeedHandover}). Which of the two the log has is decided once, by the kind of handover made
 * for each split; the split reader itself does not tell them apart. When no split is backfilling
 * and the reader is in forward mode, the backfill reader is closed; it is created again if a split
 * needs it ({@link LogReaders}).
 *
 * <p>This class fetches and hands off: each fetch polls the live reader, then (when the rate limit
 * lets it) the backfill reader, and returns what the handovers put out. The parts:
 *
 * <ul>
 *   <li>{@link BackfillSide} and {@link LiveSide}: what each log reader reads, carried out on it;
 *   <li>{@link BackfillTurns}: which split reads a log split on the backfill reader (a log split's
 *       chunks of history and its own part take turns);
 *   <li>{@link AlignmentPauses}: the splits watermark alignment holds back, in whichever reader;
 *   <li>{@link PolledRecordRouter}: a polled record to its split's handover;
 *   <li>{@link FetchAssembly}: the handovers' output, the fetch and their requests to the readers.
 * </ul>
 *
 * <p>What a handover asks of the readers (take a split off the backfill reader, give it to the live
 * reader) is queued and done once the handover's call returned, after the poll that delivered the
 * record: a handover is never called again from inside its own call.
 */
@Internal
final class BackfillSplitReader<T> implements SplitReader<BackfillRecord, BackfillSplit> {

    private static final Logger LOG = LoggerFactory.getLogger(BackfillSplitReader.class);

    /** How often the live reader is asked for its lag, at most. */
    private static final long LAG_CHECK_INTERVAL_NANOS = TimeUnit.MILLISECONDS.toNanos(200);

    private final SourceReaderContext context;
    private final ReaderMode mode;
    private final Duration pollTimeout;
    private final OffsetGapPolicy gapPolicy;
    private final BackfillRateLimit rateLimit;
    private final FetchProgress progress;

    /** Makes a split's handover: for a seekable live reader or for a feed. */
    private final SplitHandover.Factory<Object> newHandover;

    private final Map<String, SplitHandover<Object>> handovers = new HashMap<>();
    private final LogReaders readers;
    private final AlignmentPauses pauses;
    private final BackfillTurns turns;
    private final FetchAssembly assembly;

    private final PolledRecordRouter router;
    private final BackfillSide backfillSide;
    private final LiveSide liveSide;
    private long nextLagCheckNanos;

    /**
     * @param transitionSink applies the transitions of each fetch to the split states, in the task
     *     thread, as it iterates the fetch
     */
    BackfillSplitReader(
            BackfillLog<T> log,
            BackfillSourceConfig<T> sourceConfig,
            SourceReaderContext context,
            ReaderMode mode,
            BackfillFetch.TransitionSink transitionSink,
            BackfillReaderMetrics metrics,
            BackfillRateLimit rateLimit) {
        this.context = context;
        this.mode = mode;
        this.pollTimeout = sourceConfig.pollTimeout();
        this.gapPolicy = sourceConfig.gapPolicy();
        this.rateLimit = rateLimit;
        this.progress = metrics.fetchProgress();
        this.newHandover = log.isLiveSeekable() ? SeekableLiveHandover::new : LiveFeedHandover::new;
        this.readers =
                new LogReaders(
                        rawReading(log.backfillReading()), rawReading(log.liveReading()), context);
        this.pauses =
                new AlignmentPauses(
                        context.getConfiguration()
                                .get(PipelineOptions.ALLOW_UNALIGNED_SOURCE_SPLITS),
                        context.getIndexOfSubtask());
        this.turns =
                new BackfillTurns(
                        !log.isLiveSeekable(),
                        pauses,
                        handover -> handovers.get(handover.splitId()) == handover,
                        context.getIndexOfSubtask());
        this.router = new PolledRecordRouter(handovers, turns);
        this.assembly =
                new FetchAssembly(
                        transitionSink,
                        turns,
                        metrics.skippedOffsets(),
                        context.getIndexOfSubtask());
        this.backfillSide = new BackfillSide(readers, pauses, turns, assembly, handovers);
        this.liveSide = new LiveSide(readers, pauses, assembly, handovers);
    }

    @Override
    public RecordsWithSplitIds<BackfillRecord> fetch() throws IOException {
        releaseBackfillReaderInForwardMode();
        boolean live = false;
        boolean backfilling = backfillSide.isBackfilling();
        // a rate-limited backfill waits for its permission; the live reader is read meanwhile
        boolean backfillReady = backfilling && rateLimit.mayPoll();
        boolean liveReading = !liveSide.reading().isEmpty();
        if (liveReading) {
            live = liveSide.poll(backfillReady ? Duration.ZERO : pollTimeout, router);
        }
        if (backfillReady) {
            // the live reader goes first: live data waiting is worth more than history
            int before = assembly.recordCount();
            backfillSide.poll(live ? Duration.ZERO : pollTimeout, router);
            // splits that caught up in the poll go to the live reader now, if their handovers ask
            liveSide.startRequested();
            rateLimit.delivered(assembly.recordCount() - before, readers::wakeUpLive);
        } else if (backfilling && !liveReading) {
            try {
                rateLimit.awaitPermit(pollTimeout);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("Interrupted while waiting for the backfill rate limit", e);
            }
        }
        carryOutHandoverRequests();
        observePositions();
        carryOutHandoverRequests();
        completeFinishedSplits();
        publishProgress();
        return assembly.take();
    }

    @Override
    public void handleSplitsChanges(SplitsChange<BackfillSplit> change) {
        try {
            if (change instanceof SplitsAddition) {
                for (BackfillSplit split : change.splits()) {
                    addSplit(split);
                }
            } else if (change instanceof SplitsRemoval) {
                for (BackfillSplit split : change.splits()) {
                    removeSplit(split.splitId());
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Pauses and resumes splits for watermark alignment, in the fetcher thread, in whichever reader
     * reads them; a split paused on the backfill reader may then give way to a waiting one.
     */
    @Override
    public void pauseOrResumeSplits(
            Collection<BackfillSplit> splitsToPause, Collection<BackfillSplit> splitsToResume) {
        AlignmentPauses.Change change =
                pauses.request(
                        splitIds(splitsToPause), splitIds(splitsToResume), handovers::containsKey);
        if (change.isEmpty()) {
            return;
        }
        pauses.applyTo(
                readers.openBackfill(),
                turns.reading(),
                this::logSplitIdOf,
                readers.openLive(),
                liveSide.reading(),
                change);
        Set<String> logSplits = new LinkedHashSet<>();
        for (String splitId : change.splits()) {
            logSplits.add(logSplitIdOf(splitId));
        }
        try {
            for (String logSplitId : logSplits) {
                backfillSide.giveWayIfPaused(logSplitId);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static List<String> splitIds(Collection<BackfillSplit> splits) {
        List<String> ids = new ArrayList<>(splits.size());
        for (BackfillSplit split : splits) {
            ids.add(split.splitId());
        }
        return ids;
    }

    @Override
    public void wakeUp() {
        rateLimit.wakeUp();
        readers.wakeUp();
    }

    @Override
    public void close() throws Exception {
        readers.close();
    }

    // ------------------------------------------------------------------ splits

    private void addSplit(BackfillSplit split) throws IOException {
        // a history split never goes to the live reader, whichever kind it is
        SplitHandover<Object> handover =
                switch (split.kind()) {
                    case HISTORY -> new HistoryHandover<>(split, gapPolicy, assembly);
                    case LOG -> newHandover.create(split, gapPolicy, liveSide, assembly);
                };
        handovers.put(split.splitId(), handover);
        rateLimit.notifyAddingSplit(split);
        LOG.debug("Fetcher of subtask {} takes {}", context.getIndexOfSubtask(), split);
        if (handover.isComplete()) {
            // at its stop already (the source reader keeps such splits from the fetcher): nothing
            // is left to read, so neither reader is given it; it ends in the next fetch
            return;
        }
        if (handover.liveReadsFromTheStart()) {
            // before the backfill: a feed's start may raise the target the backfill must reach
            liveSide.start(handover, split.nextOffset());
        }
        if (split.state() == HandoverState.BACKFILLING) {
            if (split.nextOffset() < handover.targetEndOffset()) {
                backfillSide.start(handover);
            }
            handover.start();
            carryOutHandoverRequests();
        }
    }

    private void removeSplit(String splitId) throws IOException {
        SplitHandover<Object> handover = handovers.remove(splitId);
        pauses.forget(splitId);
        if (handover == null) {
            return;
        }
        backfillSide.remove(handover);
        liveSide.remove(splitId);
    }

    private void releaseBackfillReaderInForwardMode() throws IOException {
        if (mode.isForward() && backfillSide.closeIfIdle()) {
            LOG.info(
                    "Subtask {} is in forward mode: closed its backfill reader",
                    context.getIndexOfSubtask());
        }
    }

    /** The log split read for a split this reader holds. */
    private String logSplitIdOf(String splitId) {
        SplitHandover<Object> handover = handovers.get(splitId);
        return handover != null ? handover.logSplitId() : splitId;
    }

    /**
     * What the handovers asked for during a call that returned: the live reader is given the splits
     * first (so that one is never between the two readers), then the backfill reader lets go of
     * those that stopped backfilling.
     */
    private void carryOutHandoverRequests() throws IOException {
        liveSide.startRequested();
        backfillSide.releaseStopped();
    }

    // ------------------------------------------------------------------ after a poll

    /** Decides on read positions, so that no handover waits for a record that never comes. */
    private void observePositions() throws IOException {
        if (backfillSide.isBackfilling()) {
            backfillSide.observePositions();
            // splits that caught up go to the live reader now, if their handovers ask: their
            // live positions count below
            liveSide.startRequested();
        }
        liveSide.observePositions();
    }

    private void completeFinishedSplits() throws IOException {
        for (String splitId : assembly.takeCompleted()) {
            LOG.info(
                    "Split {} reached its stopping offset on subtask {}",
                    splitId,
                    context.getIndexOfSubtask());
            removeSplit(splitId);
            assembly.finished(splitId);
        }
    }

    /**
     * For the reader's gauges: every fetch, the fetch lag of the last record of the split emitted
     * last (nothing is noted per record); every 200 ms, the live reader's lag.
     */
    private void publishProgress() throws IOException {
        assembly.noteFetchLag(progress);
        long now = System.nanoTime();
        if (now - nextLagCheckNanos >= 0) {
            nextLagCheckNanos = now + LAG_CHECK_INTERVAL_NANOS;
            progress.liveLag(liveSide.pendingRecords());
        }
    }

    /**
     * A log's reading as the fetcher sees it: records of any type, which it hands on without
     * looking at them to the same reading's deserializer (see {@link BackfillRecordEmitter}).
     */
    @SuppressWarnings("unchecked")
    static <T> LogReading<Object, T> rawReading(LogReading<?, T> reading) {
        return (LogReading<Object, T>) reading;
    }

    /** Whether the backfill reader is open. */
    @VisibleForTesting
    boolean hasBackfillReader() {
        return readers.openBackfill() != null;
    }
}
