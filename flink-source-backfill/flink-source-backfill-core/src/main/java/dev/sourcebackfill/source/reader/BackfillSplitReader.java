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
import dev.sourcebackfill.source.spi.LogRecordCollector;
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
import org.apache.flink.metrics.Counter;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.annotation.Nullable;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

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
 * needs it.
 *
 * <p>What a handover asks of the readers (take a split off the backfill reader, give it to the live
 * reader) is queued and done once the handover's call returned, after the poll that delivered the
 * record: a handover is never called again from inside its own call.
 *
 * <p>For watermark alignment a split is paused in whichever reader reads it: the backfill reader,
 * the live reader, or both (a non-seekable live reader reads a backfilling split too). A paused
 * split that moves to the live reader at its handover is paused there as well, so a handover never
 * resumes a split that alignment holds back.
 */
@Internal
final class BackfillSplitReader<T>
        implements SplitReader<BackfillRecord, BackfillSplit>,
                SplitHandover.HandoverOutput<Object> {

    private static final Logger LOG = LoggerFactory.getLogger(BackfillSplitReader.class);

    /** How often the live reader is asked for its lag, at most. */
    private static final long LAG_CHECK_INTERVAL_NANOS = TimeUnit.MILLISECONDS.toNanos(200);

    private final LogReading<Object, T> backfillReading;
    private final LogReading<Object, T> liveReading;
    private final SourceReaderContext context;
    private final ReaderMode mode;
    private final Duration pollTimeout;

    /** Makes a split's handover: for a seekable live reader or for a feed. */
    private final SplitHandover.Factory<Object> newHandover;

    private final Map<String, SplitHandover<Object>> handovers = new HashMap<>();

    /** Splits currently given to the backfill reader. */
    private final Set<String> onBackfill = new LinkedHashSet<>();

    /**
     * The handover of the split each log split is read for by the backfill reader: a log reader
     * reads a log split once at a time, and a log split's chunks of history (and the log split
     * itself) take turns on it. Records the backfill reader delivers go to this handover.
     */
    private final Map<String, SplitHandover<Object>> backfillHolders = new HashMap<>();

    /**
     * Splits waiting for their log split to be free on the backfill reader, by log split: the log
     * split itself first (its handover makes it live), then its chunks in offset order.
     */
    private final Map<String, NavigableMap<Integer, SplitHandover<Object>>> backfillWaiting =
            new HashMap<>();

    /**
     * Whether a log split's own part reads before its chunks: with a feed (a live reader that is
     * given every split at once and cannot seek), the own part must reach its handover before the
     * feed runs past what its backfill can cover, so it goes first; with a seekable live reader the
     * chunks go first, oldest first ({@link SplitHandover#backfillTurn}).
     */
    private final boolean ownPartFirst;

    /** Splits currently given to the live reader. */
    private final Set<String> onLive = new LinkedHashSet<>();

    /** Splits paused for watermark alignment, in whichever reader reads them. */
    private final Set<String> paused = new HashSet<>();

    /** Whether a log reader that cannot pause splits is tolerated (Flink's own option). */
    private final boolean allowUnalignedSplits;

    private LogReader<Object> backfillReader;
    private LogReader<Object> liveReader;
    private final BackfillFetch.TransitionSink transitionSink;
    private final OffsetGapPolicy gapPolicy;
    private final Counter skippedOffsets;
    private final BackfillRateLimit rateLimit;
    private final FetchProgress progress;
    private long nextLagCheckNanos;
    private BackfillFetch batch;

    /**
     * The part of {@link #batch} of the split emitted last: a log delivers runs of one split, and
     * keeping it saves a map lookup per record (the hot path of the fetcher thread in the
     * benchmark's profile).
     */
    @Nullable private BackfillFetch.SplitRun run;

    @Nullable private String runSplitId;

    /** The handover of the split whose record came last, valid within one poll. */
    @Nullable private String lastPolledSplitId;

    @Nullable private SplitHandover<Object> lastPolledHandover;
    private boolean liveDelivered;

    /** Splits that stopped backfilling during a poll; taken off the backfill reader after it. */
    private final List<String> backfillRemovals = new ArrayList<>();

    /** Splits their handovers asked to give to the live reader; given once the call returned. */
    private final ArrayDeque<LiveStart> liveStarts = new ArrayDeque<>();

    /** A split to give to the live reader, at an offset. */
    private record LiveStart(String splitId, long offset) {}

    /** Bounded splits that reached their stop since the last fetch; no scan of all splits. */
    private final List<String> completedSplits = new ArrayList<>();

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
        this.backfillReading = rawReading(log.backfillReading());
        this.liveReading = rawReading(log.liveReading());
        this.progress = metrics.fetchProgress();
        this.rateLimit = rateLimit;
        this.gapPolicy = sourceConfig.gapPolicy();
        this.skippedOffsets = metrics.skippedOffsets();
        this.transitionSink = transitionSink;
        this.batch = new BackfillFetch(transitionSink);
        this.context = context;
        this.mode = mode;
        this.pollTimeout = sourceConfig.pollTimeout();
        this.newHandover = log.isLiveSeekable() ? SeekableLiveHandover::new : LiveFeedHandover::new;
        this.ownPartFirst = !log.isLiveSeekable();
        this.allowUnalignedSplits =
                context.getConfiguration().get(PipelineOptions.ALLOW_UNALIGNED_SOURCE_SPLITS);
    }

    @Override
    public RecordsWithSplitIds<BackfillRecord> fetch() throws IOException {
        releaseBackfillReaderInForwardMode();
        boolean live = false;
        // a rate-limited backfill waits for its permission; the live reader is read meanwhile
        boolean backfillReady = !onBackfill.isEmpty() && rateLimit.mayPoll();
        if (!onLive.isEmpty()) {
            Duration wait = backfillReady ? Duration.ZERO : pollTimeout;
            live = pollLive(wait);
        }
        if (backfillReady) {
            // the live reader goes first: live data waiting is worth more than history
            int before = batch.recordCount();
            pollBackfill(live ? Duration.ZERO : pollTimeout);
            rateLimit.delivered(batch.recordCount() - before, this::wakeUpLive);
        } else if (!onBackfill.isEmpty() && onLive.isEmpty()) {
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
        // transitions decided while adding splits are in the batch as well
        BackfillFetch fetched = batch;
        batch = new BackfillFetch(transitionSink, fetched);
        run = null;
        runSplitId = null;
        return fetched;
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
     * Pauses and resumes splits for watermark alignment, in the fetcher thread. Splits this reader
     * no longer holds are ignored: a pause may cross the split's end or removal.
     */
    @Override
    public void pauseOrResumeSplits(
            Collection<BackfillSplit> splitsToPause, Collection<BackfillSplit> splitsToResume) {
        List<String> pause = new ArrayList<>(splitsToPause.size());
        for (BackfillSplit split : splitsToPause) {
            if (handovers.containsKey(split.splitId()) && paused.add(split.splitId())) {
                pause.add(split.splitId());
            }
        }
        List<String> resume = new ArrayList<>(splitsToResume.size());
        for (BackfillSplit split : splitsToResume) {
            if (paused.remove(split.splitId())) {
                resume.add(split.splitId());
            }
        }
        if (pause.isEmpty() && resume.isEmpty()) {
            return;
        }
        LOG.debug(
                "Subtask {} pauses {} and resumes {} for watermark alignment",
                context.getIndexOfSubtask(),
                pause,
                resume);
        // each reader on its own: one that cannot pause (tolerated with Flink's
        // allow-unaligned-source-splits) must not keep the other from pausing or resuming
        UnsupportedOperationException backfillCannot =
                pauseOrResumeIn(backfillReader, onBackfill, this::logSplitIdOf, pause, resume);
        UnsupportedOperationException liveCannot =
                pauseOrResumeIn(liveReader, onLive, splitId -> splitId, pause, resume);
        if (backfillCannot != null) {
            throw backfillCannot;
        }
        if (liveCannot != null) {
            throw liveCannot;
        }
        Set<String> logSplits = new HashSet<>();
        for (String splitId : pause) {
            logSplits.add(logSplitIdOf(splitId));
        }
        for (String splitId : resume) {
            logSplits.add(logSplitIdOf(splitId));
        }
        try {
            for (String logSplitId : logSplits) {
                giveWayIfPaused(logSplitId);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * A split alignment paused gives its log split on the backfill reader to one of the same log
     * split that waits and is not paused: the waiting one holds the reader's watermark back (it has
     * emitted nothing), so it must read for alignment to let the paused one go on. The one that
     * gave way waits for its turn and goes on at its next offset.
     */
    private void giveWayIfPaused(String logSplitId) throws IOException {
        SplitHandover<Object> holder = backfillHolders.get(logSplitId);
        if (holder == null || !paused.contains(holder.splitId())) {
            return;
        }
        SplitHandover<Object> next = nextToBackfill(logSplitId, true);
        if (next == null) {
            return;
        }
        LOG.debug(
                "Split {} is paused for watermark alignment on subtask {}: it lets {} read {}",
                holder.splitId(),
                context.getIndexOfSubtask(),
                next.splitId(),
                logSplitId);
        onBackfill.remove(holder.splitId());
        backfillReader.removeSplit(logSplitId);
        backfillHolders.remove(logSplitId);
        backfillWaiting.get(logSplitId).remove(turnOf(next));
        backfillWaiting.get(logSplitId).put(turnOf(holder), holder);
        startBackfill(next, true);
    }

    /**
     * The split waiting for the log split that reads next: the first in turn that still backfills,
     * one not paused first; {@code null} if none (or, with {@code unpausedOnly}, none not paused).
     * Waiting splits that no longer backfill are dropped.
     */
    @Nullable
    private SplitHandover<Object> nextToBackfill(String logSplitId, boolean unpausedOnly) {
        NavigableMap<Integer, SplitHandover<Object>> waiting = backfillWaiting.get(logSplitId);
        if (waiting == null) {
            return null;
        }
        waiting.values()
                .removeIf(
                        handover ->
                                handovers.get(handover.splitId()) != handover
                                        || handover.state() != HandoverState.BACKFILLING
                                        || handover.isComplete());
        SplitHandover<Object> first = null;
        for (SplitHandover<Object> handover : waiting.values()) {
            if (!paused.contains(handover.splitId())) {
                return handover;
            }
            if (first == null) {
                first = handover;
            }
        }
        if (waiting.isEmpty()) {
            backfillWaiting.remove(logSplitId);
        }
        return unpausedOnly ? null : first;
    }

    /**
     * Pauses and resumes in one log reader the splits of those that it reads, by the ids of the log
     * splits it reads for them.
     *
     * @return the reader's refusal if it cannot pause splits, else {@code null}
     */
    @Nullable
    private static UnsupportedOperationException pauseOrResumeIn(
            @Nullable LogReader<?> reader,
            Set<String> readsSplits,
            Function<String, String> logSplitIdOf,
            List<String> pause,
            List<String> resume) {
        if (reader == null) {
            return null;
        }
        List<String> readerPause = new ArrayList<>(pause.size());
        for (String splitId : pause) {
            if (readsSplits.contains(splitId)) {
                readerPause.add(logSplitIdOf.apply(splitId));
            }
        }
        List<String> readerResume = new ArrayList<>(resume.size());
        for (String splitId : resume) {
            if (readsSplits.contains(splitId)) {
                readerResume.add(logSplitIdOf.apply(splitId));
            }
        }
        if (!readerPause.isEmpty() || !readerResume.isEmpty()) {
            try {
                reader.pauseOrResumeSplits(readerPause, readerResume);
            } catch (UnsupportedOperationException e) {
                return e;
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return null;
    }

    /** A backfill permission came while the live reader may wait for live records. */
    private void wakeUpLive() {
        LogReader<Object> live = liveReader;
        if (live != null) {
            live.wakeUp();
        }
    }

    @Override
    public void wakeUp() {
        rateLimit.wakeUp();
        LogReader<Object> backfill = backfillReader;
        if (backfill != null) {
            backfill.wakeUp();
        }
        LogReader<Object> live = liveReader;
        if (live != null) {
            live.wakeUp();
        }
    }

    @Override
    public void close() throws Exception {
        closeBackfillReader();
        if (liveReader != null) {
            liveReader.close();
            liveReader = null;
        }
    }

    // ------------------------------------------------------------------ HandoverOutput

    @Override
    public void emit(String splitId, long offset, long timestamp, Object record, boolean live) {
        runOf(splitId).addRecord(record, offset, timestamp, live);
    }

    /** The batch's part for the split; one map lookup per run of one split's elements. */
    private BackfillFetch.SplitRun runOf(String splitId) {
        if (run == null || !splitId.equals(runSplitId)) {
            run = batch.split(splitId);
            runSplitId = splitId;
        }
        return run;
    }

    /**
     * The handover of a polled record's split, in {@code handoversById} (of the live reader's
     * splits by split id, of the backfill reader's by log split id); one map lookup per run of
     * records.
     */
    @Nullable
    private SplitHandover<Object> handoverOfPolled(
            String splitId, Map<String, SplitHandover<Object>> handoversById) {
        if (!splitId.equals(lastPolledSplitId)) {
            lastPolledSplitId = splitId;
            lastPolledHandover = handoversById.get(splitId);
        }
        return lastPolledHandover;
    }

    @Override
    public void gapSkipped(String splitId, long from, long to, boolean foundByReader) {
        // a state change like a transition: the task thread's split state (what a checkpoint
        // stores and what is committed) must move past the gap too, also when no record follows
        runOf(splitId).addGapSkip(from, to);
        skippedOffsets.inc(to - from);
        LOG.warn(
                "Offset gap in split {} on subtask {}, skipped as the source is told to: offsets "
                        + "{}..{} are gone from the log (it starts at {} now); the split goes on "
                        + "there; {} offsets skipped",
                splitId,
                context.getIndexOfSubtask(),
                from,
                to - 1,
                to,
                to - from);
    }

    @Override
    public void transition(String splitId, HandoverState newState, long nextOffset, long target) {
        runOf(splitId).addTransition(new HandoverTransition(newState, nextOffset, target));
        if (newState != HandoverState.BACKFILLING && onBackfill.remove(splitId)) {
            // not from inside the backfill reader's poll: removed once the poll returns
            backfillRemovals.add(splitId);
        }
    }

    @Override
    public void startLive(String splitId, long offset) {
        liveStarts.add(new LiveStart(splitId, offset));
    }

    // ------------------------------------------------------------------ internals

    private void addSplit(BackfillSplit split) throws IOException {
        // a chunk of history never goes to the live reader, whichever kind it is
        SplitHandover<Object> handover =
                split.isHistoryChunk()
                        ? new SeekableLiveHandover<>(split, gapPolicy, livePositions, this)
                        : newHandover.create(split, gapPolicy, livePositions, this);
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
            startLive(handover, split.nextOffset());
        }
        if (split.state() == HandoverState.BACKFILLING) {
            if (split.nextOffset() < handover.targetEndOffset()) {
                startBackfill(handover);
            }
            handover.start();
            carryOutHandoverRequests();
        }
    }

    /**
     * Gives the backfill reader the split's log split at the split's next offset, or has the split
     * wait while another split of the same log split is read.
     */
    private void startBackfill(SplitHandover<Object> handover) throws IOException {
        startBackfill(handover, false);
    }

    /**
     * @param waited whether the split waited for its turn: its split output may have been marked
     *     idle meanwhile
     */
    private void startBackfill(SplitHandover<Object> handover, boolean waited) throws IOException {
        String logSplitId = handover.logSplitId();
        SplitHandover<Object> holder = backfillHolders.get(logSplitId);
        if (holder != null
                && turnOf(handover) < turnOf(holder)
                && onBackfill.contains(holder.splitId())
                && !paused.contains(handover.splitId())) {
            // an older split of the log split came (a chunk after the log split's own, or after
            // a restore): it reads first, the one that read waits for its turn (one that stopped
            // backfilling in this fetch is let go of after it; the older one then comes next)
            LOG.debug(
                    "Split {} reads {} before {} on subtask {}: it is older",
                    handover.splitId(),
                    logSplitId,
                    holder.splitId(),
                    context.getIndexOfSubtask());
            onBackfill.remove(holder.splitId());
            backfillReader.removeSplit(logSplitId);
            backfillHolders.remove(logSplitId);
            backfillWaiting
                    .computeIfAbsent(logSplitId, k -> new TreeMap<>())
                    .put(turnOf(holder), holder);
        } else if (holder != null) {
            backfillWaiting
                    .computeIfAbsent(logSplitId, k -> new TreeMap<>())
                    .put(turnOf(handover), handover);
            LOG.debug(
                    "Split {} waits on subtask {} while {} is read for {}",
                    handover.splitId(),
                    context.getIndexOfSubtask(),
                    logSplitId,
                    backfillHolders.get(logSplitId).splitId());
            // behind a split alignment paused, it would wait for ever: that one gives way
            giveWayIfPaused(logSplitId);
            return;
        }
        Optional<String> historyVersion = handover.historyVersion();
        if (historyVersion.isPresent()) {
            backfill().addSplit(logSplitId, handover.nextOffset(), historyVersion.get());
        } else {
            backfill().addSplit(logSplitId, handover.nextOffset());
        }
        backfillHolders.put(logSplitId, handover);
        onBackfill.add(handover.splitId());
        if (waited) {
            // its split output may have been marked idle while it waited: the task thread marks
            // it active before the split that read before it lets go of the reader's watermark
            runOf(handover.splitId()).addTurnStart();
        }
        if (paused.contains(handover.splitId())) {
            pauseOnBackfill(handover.splitId(), logSplitId);
        }
    }

    /**
     * The backfill reader let go of a log split: the next split waiting for it (one that still
     * backfills) is given to the backfill reader.
     */
    private void releaseBackfill(String logSplitId) throws IOException {
        backfillHolders.remove(logSplitId);
        SplitHandover<Object> next = nextToBackfill(logSplitId, false);
        if (next != null) {
            NavigableMap<Integer, SplitHandover<Object>> waiting = backfillWaiting.get(logSplitId);
            waiting.remove(turnOf(next));
            if (waiting.isEmpty()) {
                backfillWaiting.remove(logSplitId);
            }
            startBackfill(next, true);
        }
    }

    /** A split alignment holds back reaches the backfill reader: it stays paused there. */
    private void pauseOnBackfill(String splitId, String logSplitId) throws IOException {
        try {
            backfillReader.pauseOrResumeSplits(List.of(logSplitId), List.of());
        } catch (UnsupportedOperationException e) {
            if (!allowUnalignedSplits) {
                throw e;
            }
            paused.remove(splitId);
            LOG.debug("The backfill reader cannot pause split {}; it reads it unaligned", splitId);
        }
    }

    /** The split's turn among those of its log split on the backfill reader: lowest first. */
    private int turnOf(SplitHandover<Object> handover) {
        return ownPartFirst && !handover.isHistoryChunk() ? -1 : handover.backfillTurn();
    }

    /** The log split read for a split this reader holds. */
    private String logSplitIdOf(String splitId) {
        SplitHandover<Object> handover = handovers.get(splitId);
        return handover != null ? handover.logSplitId() : splitId;
    }

    private void removeSplit(String splitId) throws IOException {
        SplitHandover<Object> handover = handovers.remove(splitId);
        paused.remove(splitId);
        if (handover == null) {
            return;
        }
        String logSplitId = handover.logSplitId();
        NavigableMap<Integer, SplitHandover<Object>> waiting = backfillWaiting.get(logSplitId);
        if (waiting != null) {
            waiting.values().remove(handover);
        }
        if (onBackfill.remove(splitId)) {
            backfillReader.removeSplit(logSplitId);
            releaseBackfill(logSplitId);
        } else if (backfillHolders.get(logSplitId) == handover) {
            // stopped backfilling in this fetch, not yet taken off the backfill reader
            backfillRemovals.remove(splitId);
            backfillReader.removeSplit(logSplitId);
            releaseBackfill(logSplitId);
        }
        if (onLive.remove(splitId)) {
            liveReader.removeSplit(splitId);
        }
    }

    /**
     * What the handovers asked for during a call that returned: the live reader is given the splits
     * first (so that one is never between the two readers), then the backfill reader lets go of
     * those that stopped backfilling.
     */
    private void carryOutHandoverRequests() throws IOException {
        startRequestedLives();
        removeStoppedBackfills();
    }

    /** Gives the live reader the splits their handovers asked it to read, in the order asked. */
    private void startRequestedLives() throws IOException {
        LiveStart start;
        while ((start = liveStarts.poll()) != null) {
            startLive(handovers.get(start.splitId()), start.offset());
        }
    }

    /**
     * Gives the live reader the split at {@code offset} and then tells its handover, in a call of
     * its own; a seekable live reader given the split at offsets the log no longer has is moved to
     * where the handover goes on.
     */
    private void startLive(SplitHandover<Object> handover, long offset) throws IOException {
        String splitId = handover.splitId();
        if (handover.isHistoryChunk()) {
            throw new IllegalStateException(
                    "Chunk " + splitId + " cannot be read live: it is read by the backfill alone");
        }
        if (onLive.add(splitId)) {
            live().addSplit(splitId, offset);
            if (paused.contains(splitId)) {
                pauseOnLive(splitId);
            }
        }
        OptionalLong goOnAt = handover.onLiveStarted();
        if (goOnAt.isPresent()) {
            moveLive(splitId, goOnAt.getAsLong());
        }
    }

    /**
     * The live reader reads the split from {@code offset} on: it was given the split at offsets the
     * log no longer has, and the handover skipped them.
     */
    private void moveLive(String splitId, long offset) throws IOException {
        liveReader.removeSplit(splitId);
        liveReader.addSplit(splitId, offset);
        if (paused.contains(splitId)) {
            // removing the split dropped its pause in the reader
            pauseOnLive(splitId);
        }
    }

    /** A split alignment holds back reaches the live reader: it stays paused there. */
    private void pauseOnLive(String splitId) throws IOException {
        try {
            liveReader.pauseOrResumeSplits(List.of(splitId), List.of());
        } catch (UnsupportedOperationException e) {
            if (!allowUnalignedSplits) {
                throw e;
            }
            // as Flink does with a reader that cannot pause: the split is read unaligned
            paused.remove(splitId);
            LOG.debug("The live reader cannot pause split {}; it reads it unaligned", splitId);
        }
    }

    /** What the handovers ask the live reader. */
    private final SplitHandover.LivePositions livePositions =
            new SplitHandover.LivePositions() {
                @Override
                public long earliestOffset(String splitId) throws IOException {
                    return live().earliestOffset(splitId);
                }

                @Override
                public long position(String splitId) throws IOException {
                    return live().position(splitId);
                }
            };

    private boolean pollLive(Duration wait) throws IOException {
        liveDelivered = false;
        lastPolledSplitId = null; // splits may have come or gone since the last poll
        liveReader.poll(wait, liveCollector);
        startRequestedLives();
        return liveDelivered;
    }

    private void pollBackfill(Duration wait) throws IOException {
        lastPolledSplitId = null;
        backfillReader.poll(wait, backfillCollector);
        // splits that caught up in the poll go to the live reader now, if their handovers ask
        startRequestedLives();
    }

    /** What the live reader delivers goes to the split's handover. */
    private final LogRecordCollector<Object> liveCollector =
            new LogRecordCollector<>() {
                @Override
                public void collect(String splitId, long offset, long timestamp, Object value) {
                    liveDelivered = true;
                    SplitHandover<Object> handover = handoverOfPolled(splitId, handovers);
                    if (handover != null) {
                        handover.onLiveRecord(offset, timestamp, value);
                    }
                }

                @Override
                public void offsetsDeleted(String splitId, long from, long to) {
                    SplitHandover<Object> handover = handovers.get(splitId);
                    if (handover != null) {
                        handover.onLiveGap(from, to);
                    }
                }
            };

    /** What the backfill reader delivers goes to the split's handover. */
    private final LogRecordCollector<Object> backfillCollector =
            new LogRecordCollector<>() {
                @Override
                public void collect(String logSplitId, long offset, long timestamp, Object value) {
                    SplitHandover<Object> handover = handoverOfPolled(logSplitId, backfillHolders);
                    if (handover != null) {
                        handover.onBackfillRecord(offset, timestamp, value);
                    }
                }

                @Override
                public void offsetsDeleted(String logSplitId, long from, long to) {
                    SplitHandover<Object> handover = backfillHolders.get(logSplitId);
                    if (handover != null) {
                        handover.onBackfillGap(from, to);
                    }
                }
            };

    private void removeStoppedBackfills() throws IOException {
        if (backfillRemovals.isEmpty()) {
            return;
        }
        List<String> removals = new ArrayList<>(backfillRemovals);
        backfillRemovals.clear();
        for (String splitId : removals) {
            String logSplitId = logSplitIdOf(splitId);
            if (backfillReader != null) {
                backfillReader.removeSplit(logSplitId);
            }
            releaseBackfill(logSplitId);
        }
    }

    /** Decides on read positions, so that no handover waits for a record that never comes. */
    private void observePositions() throws IOException {
        if (!onBackfill.isEmpty()) {
            for (String splitId : new ArrayList<>(onBackfill)) {
                SplitHandover<Object> handover = handovers.get(splitId);
                String logSplitId = handover.logSplitId();
                handover.onBackfillProgress(
                        backfillReader.position(logSplitId),
                        backfillReader.isEndOfSplit(logSplitId));
            }
            // splits that caught up go to the live reader now, if their handovers ask: their
            // live positions count below
            startRequestedLives();
        }
        for (String splitId : onLive) {
            SplitHandover<Object> handover = handovers.get(splitId);
            if (handover.followsLivePosition()) {
                handover.onLiveProgress(liveReader.position(splitId));
            }
        }
    }

    @Override
    public void completed(String splitId) {
        completedSplits.add(splitId);
    }

    private void completeFinishedSplits() throws IOException {
        for (String splitId : completedSplits) {
            LOG.info(
                    "Split {} reached its stopping offset on subtask {}",
                    splitId,
                    context.getIndexOfSubtask());
            removeSplit(splitId);
            batch.addFinishedSplit(splitId);
        }
        completedSplits.clear();
    }

    /**
     * For the reader's gauges: every fetch, the fetch lag of the last record of the split emitted
     * last (nothing is noted per record); every 200 ms, the live reader's lag.
     */
    private void publishProgress() throws IOException {
        if (run != null && run.hasRecords()) {
            progress.fetched(System.currentTimeMillis(), run.lastTimestamp());
        }
        long now = System.nanoTime();
        if (now - nextLagCheckNanos >= 0) {
            nextLagCheckNanos = now + LAG_CHECK_INTERVAL_NANOS;
            progress.liveLag(liveReader != null ? liveReader.pendingRecords() : OptionalLong.of(0));
        }
    }

    private void releaseBackfillReaderInForwardMode() throws IOException {
        if (backfillReader != null && onBackfill.isEmpty() && mode.isForward()) {
            LOG.info(
                    "Subtask {} is in forward mode: closing its backfill reader",
                    context.getIndexOfSubtask());
            closeBackfillReader();
        }
    }

    private void closeBackfillReader() throws IOException {
        if (backfillReader != null) {
            try {
                backfillReader.close();
            } catch (IOException e) {
                throw e;
            } catch (Exception e) {
                throw new IOException("Closing the backfill reader failed", e);
            } finally {
                backfillReader = null;
            }
        }
    }

    private LogReader<Object> backfill() throws IOException {
        if (backfillReader == null) {
            try {
                backfillReader = backfillReading.createReader(context);
            } catch (IOException e) {
                throw e;
            } catch (Exception e) {
                throw new IOException("Creating the backfill reader failed", e);
            }
        }
        return backfillReader;
    }

    private LogReader<Object> live() throws IOException {
        if (liveReader == null) {
            try {
                liveReader = liveReading.createReader(context);
            } catch (IOException e) {
                throw e;
            } catch (Exception e) {
                throw new IOException("Creating the live reader failed", e);
            }
        }
        return liveReader;
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
        return backfillReader != null;
    }
}
