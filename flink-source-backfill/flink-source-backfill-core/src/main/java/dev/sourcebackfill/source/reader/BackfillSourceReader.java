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

import dev.sourcebackfill.source.BackfillListener;
import dev.sourcebackfill.source.BackfillSourceConfig;
import dev.sourcebackfill.source.PollLimiter;
import dev.sourcebackfill.source.control.BackfillControl;
import dev.sourcebackfill.source.event.CheckpointCompletedEvent;
import dev.sourcebackfill.source.event.ReaderBoundEvent;
import dev.sourcebackfill.source.event.SplitStatus;
import dev.sourcebackfill.source.metrics.BackfillReaderMetrics;
import dev.sourcebackfill.source.metrics.FetchProgress;
import dev.sourcebackfill.source.spi.BackfillLog;
import dev.sourcebackfill.source.split.BackfillSplit;
import dev.sourcebackfill.source.split.BackfillSplitState;
import dev.sourcebackfill.source.split.HandoverState;

import org.apache.flink.annotation.Internal;
import org.apache.flink.annotation.VisibleForTesting;
import org.apache.flink.api.connector.source.ReaderOutput;
import org.apache.flink.api.connector.source.SourceEvent;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.base.source.reader.SourceReaderBase;
import org.apache.flink.connector.base.source.reader.fetcher.SingleThreadFetcherManager;
import org.apache.flink.core.io.InputStatus;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.annotation.Nullable;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The source reader: a {@link SourceReaderBase} whose fetcher runs each split's handover. It
 * reports every split it is given and every transition to the enumerator, enters forward mode on a
 * {@link dev.sourcebackfill.source.event.ForwardModeEvent} when every split it holds is {@code
 * FINISHED} and leaves it when given one that is not, marks its output idle while it holds no split
 * once the enumerator said every split for it was sent, and keeps ended bounded splits in its
 * checkpointed state to report them again after a restore (docs/design.md says why).
 *
 * <p>Threading: everything here runs in the task thread, except what {@code SourceReaderBase}'s
 * fetcher runs ({@link BackfillSplitReader}); split states change only in the task thread.
 */
@Internal
public final class BackfillSourceReader<T>
        extends SourceReaderBase<BackfillRecord, T, BackfillSplit, BackfillSplitState>
        implements ReaderBoundEvent.Handler {

    private static final Logger LOG = LoggerFactory.getLogger(BackfillSourceReader.class);

    private final ReaderMode mode;

    /** The splits being read, by id; read by metric reporters from their threads. */
    private final Map<String, BackfillSplitState> heldSplits;

    /** Splits that ended here or were restored ended; part of every snapshot. */
    private final Map<String, BackfillSplit> endedSplits = new LinkedHashMap<>();

    private final StatusReporter reporter;
    private final TransitionApplier transitions;
    private final BackfillReaderMetrics metrics;
    private final BackfillListener listener;
    private final BackfillRateLimit rateLimit;

    /** {@code null} if the log commits no offsets. */
    @Nullable private final CheckpointOffsets checkpointOffsets;

    /** The checkpoint that confirmed the current forward mode; {@code null} before the first. */
    @Nullable private Long forwardModeCheckpoint;

    /**
     * The task's one main output, from the first poll that found nothing; {@code null} before it
     * (until then the reader was emitting, so it held splits).
     */
    @Nullable private ReaderOutput<T> mainOutput;

    /** Whether the enumerator said every split it has for this reader was sent. */
    private boolean assignmentSent;

    /**
     * Whether the reader told Flink that its input ended (a bounded source's reader whose splits
     * all ended): from then on it passes on every checkpoint's completion to the enumerator.
     */
    private boolean reachedEnd;

    /** Completed whenever no report is unacknowledged; replaced while the reader waits. */
    private volatile CompletableFuture<Void> acknowledged = CompletableFuture.completedFuture(null);

    private BackfillSourceReader(
            SingleThreadFetcherManager<BackfillRecord, BackfillSplit> fetcherManager,
            BackfillRecordEmitter<T> emitter,
            Map<String, BackfillSplitState> heldSplits,
            BackfillReaderMetrics metrics,
            StatusReporter reporter,
            TransitionApplier transitions,
            ReaderMode mode,
            Configuration config,
            SourceReaderContext context,
            BackfillListener listener,
            @Nullable CheckpointOffsets checkpointOffsets,
            BackfillRateLimit rateLimit) {
        super(fetcherManager, emitter, config, context);
        this.rateLimit = rateLimit;
        this.heldSplits = heldSplits;
        this.metrics = metrics;
        this.reporter = reporter;
        this.transitions = transitions;
        this.mode = mode;
        this.listener = listener;
        this.checkpointOffsets = checkpointOffsets;
    }

    /**
     * Builds the reader's parts, then the reader: the split states the fetches' transitions and the
     * metrics read, the status reporter, the transition applier each fetch is given, the fetcher
     * manager and the emitter. The rate limit strategy is given the source's parallelism, as
     * Flink's are.
     */
    public static <T> BackfillSourceReader<T> create(
            BackfillLog<T> log, BackfillSourceConfig<T> sourceConfig, SourceReaderContext context)
            throws Exception {
        Configuration config = context.getConfiguration();
        CheckpointOffsets checkpointOffsets =
                log.createOffsetCommitter(context).map(CheckpointOffsets::new).orElse(null);
        ReaderMode mode = new ReaderMode();
        Map<String, BackfillSplitState> heldSplits = new ConcurrentHashMap<>();
        FetchProgress progress = new FetchProgress();
        BackfillReaderMetrics metrics =
                new BackfillReaderMetrics(
                        context.metricGroup(), heldSplits::values, mode::isForward, progress);
        StatusReporter reporter =
                new StatusReporter(context, ThreadLocalRandom.current().nextLong());
        PollLimiter limiter = sourceConfig.backfillRateLimit().create(context.currentParallelism());
        BackfillRateLimit rateLimit =
                sourceConfig.hasControlFile()
                        ? BackfillRateLimit.controlled(limiter)
                        : BackfillRateLimit.of(limiter);
        TransitionApplier transitions =
                new TransitionApplier(
                        context.getIndexOfSubtask(), heldSplits, reporter, sourceConfig.listener());
        SingleThreadFetcherManager<BackfillRecord, BackfillSplit> fetcherManager =
                new SingleThreadFetcherManager<>(
                        () ->
                                new BackfillSplitReader<>(
                                        log,
                                        sourceConfig,
                                        context,
                                        mode,
                                        transitions,
                                        metrics,
                                        rateLimit),
                        config);
        BackfillRecordEmitter<T> emitter =
                new BackfillRecordEmitter<>(
                        metrics.backfilledRecords(),
                        sourceConfig.originMarker(),
                        BackfillSplitReader.rawReading(log.backfillReading())
                                .createDeserializer(context),
                        BackfillSplitReader.rawReading(log.liveReading())
                                .createDeserializer(context));
        return new BackfillSourceReader<>(
                fetcherManager,
                emitter,
                heldSplits,
                metrics,
                reporter,
                transitions,
                mode,
                config,
                context,
                sourceConfig.listener(),
                checkpointOffsets,
                rateLimit);
    }

    @Override
    public void addSplits(List<BackfillSplit> splits) {
        List<BackfillSplit> toRead = new ArrayList<>(splits.size());
        List<SplitStatus> statuses = new ArrayList<>(splits.size());
        for (BackfillSplit split : splits) {
            // an ended split (restored after it ended, or empty from the start) goes through the
            // fetcher too: its first fetch names it finished, which releases the split output
            // Flink made for it (a split output that is never released holds the reader's
            // watermark back for ever) and keeps it in the state as ended; it reads nothing
            toRead.add(split);
            statuses.add(SplitStatus.of(split, split.isEnded()));
            if (split.isEnded()) {
                LOG.info(
                        "Subtask {} was given split {}, which has ended at offset {}; it reports "
                                + "the end",
                        context.getIndexOfSubtask(),
                        split.splitId(),
                        split.nextOffset());
                continue;
            }
            if (split.state() != HandoverState.FINISHED && mode.isForward()) {
                mode.setForward(false);
                LOG.info(
                        "Subtask {} leaves forward mode: it was given split {} in state {}; "
                                + "it backfills it again",
                        context.getIndexOfSubtask(),
                        split.splitId(),
                        split.state());
            }
        }
        if (!toRead.isEmpty()) {
            super.addSplits(toRead);
        }
        // every split a reader is given is reported, restored ones too: the enumerator trusts no
        // status that the reader holding the split has not confirmed
        reporter.report(statuses);
    }

    @Override
    protected BackfillSplitState initializedState(BackfillSplit split) {
        BackfillSplitState state = new BackfillSplitState(split);
        heldSplits.put(split.splitId(), state);
        metrics.registerSplit(state);
        return state;
    }

    @Override
    protected BackfillSplit toSplitType(String splitId, BackfillSplitState state) {
        return state.toSplit();
    }

    @Override
    protected void onSplitFinished(Map<String, BackfillSplitState> finishedSplitIds) {
        List<SplitStatus> statuses = new ArrayList<>(finishedSplitIds.size());
        finishedSplitIds.forEach(
                (id, state) -> {
                    heldSplits.remove(id);
                    metrics.unregisterSplit(id);
                    BackfillSplit ended = state.toSplit().asEnded();
                    endedSplits.put(id, ended);
                    statuses.add(SplitStatus.of(ended, true));
                    LOG.info(
                            "Split {} ended at its stopping offset (next offset {})",
                            id,
                            state.nextOffset());
                    listener.onSplitEnded(context.getIndexOfSubtask(), id, state.nextOffset());
                });
        reporter.report(statuses);
    }

    @Override
    public void handleSourceEvents(SourceEvent sourceEvent) {
        if (sourceEvent instanceof ReaderBoundEvent) {
            ((ReaderBoundEvent) sourceEvent).dispatchTo(this);
        } else {
            super.handleSourceEvents(sourceEvent);
        }
    }

    @Override
    public void onReportAcknowledged(long readerIncarnation, long reportId) {
        reporter.acknowledge(readerIncarnation, reportId);
        if (reporter.unacknowledgedCount() == 0) {
            acknowledged.complete(null);
        }
    }

    /**
     * A bounded reader ends only once the enumerator has acknowledged all its reports: an event the
     * coordinator sends to a task that has finished fails the job ("OperatorEvent lost"), so the
     * enumerator must not be left with an acknowledgement to deliver.
     */
    @Override
    public InputStatus pollNext(ReaderOutput<T> output) throws Exception {
        InputStatus status = super.pollNext(output);
        markTurnsActive(output);
        if (status == InputStatus.NOTHING_AVAILABLE) {
            // kept here, not on every poll: a poll emits one record
            mainOutput = output;
            markIdleWithoutSplits();
        }
        if (status == InputStatus.END_OF_INPUT && reporter.unacknowledgedCount() > 0) {
            if (acknowledged.isDone()) {
                acknowledged = new CompletableFuture<>();
            }
            return InputStatus.NOTHING_AVAILABLE;
        }
        if (status == InputStatus.END_OF_INPUT && !reachedEnd) {
            reachedEnd = true;
            LOG.info(
                    "Subtask {} reached its end: every split it was given ended",
                    context.getIndexOfSubtask());
        }
        return status;
    }

    /**
     * A split that waited for its turn on the backfill reader may have been marked idle by the
     * job's watermark strategy ({@code withIdleness}): its output is marked active again before the
     * next periodic watermark, in the same call in which the split that read before it may have
     * ended and let go of its output. Older splits read first, so until then the one that read held
     * the watermark below the waiting split's records; after it, the waiting split does.
     */
    private void markTurnsActive(ReaderOutput<T> output) {
        if (!transitions.hasTurnsStarted()) {
            return; // the common case, once per record: nothing to take, no list to walk
        }
        for (String splitId : transitions.takeTurnsStarted()) {
            if (heldSplits.containsKey(splitId)) {
                output.createOutputForSplit(splitId).markActive();
            }
        }
    }

    @Override
    public CompletableFuture<Void> isAvailable() {
        CompletableFuture<Void> waiting = acknowledged;
        return waiting.isDone() ? super.isAvailable() : waiting;
    }

    /**
     * Every split the enumerator has for this reader has arrived: holding none, the reader is idle
     * (in the task thread, as every source event).
     */
    @Override
    public void onControl(BackfillControl control) {
        LOG.info(
                "Subtask {} applies the backfill control: {}",
                context.getIndexOfSubtask(),
                control);
        rateLimit.apply(control);
    }

    @Override
    public void onAssignmentSent() {
        assignmentSent = true;
        markIdleWithoutSplits();
    }

    /**
     * A reader without splits (more readers than splits, or all ended) must not hold the job's
     * watermark back; its first split's watermark makes it active again. Not before the enumerator
     * said every split for it was sent: a reader about to get its splits must not let the other
     * readers' watermark pass their records.
     */
    private void markIdleWithoutSplits() {
        if (assignmentSent && heldSplits.isEmpty() && mainOutput != null) {
            mainOutput.markIdle();
        }
    }

    @Override
    public void onForwardMode(long checkpointId) {
        for (BackfillSplitState split : heldSplits.values()) {
            // an ended split given to the reader is held until its first fetch names it finished
            if (split.state() != HandoverState.FINISHED && !split.toSplit().isEnded()) {
                LOG.info(
                        "Subtask {} stays out of forward mode (checkpoint {}): split {} is {}",
                        context.getIndexOfSubtask(),
                        checkpointId,
                        split.splitId(),
                        split.state());
                return;
            }
        }
        if (!mode.isForward()) {
            mode.setForward(true);
            forwardModeCheckpoint = checkpointId;
            LOG.info(
                    "Subtask {} enters forward mode: completed checkpoint {} had every split FINISHED",
                    context.getIndexOfSubtask(),
                    checkpointId);
            listener.onForwardMode(
                    context.getIndexOfSubtask(),
                    checkpointId,
                    metrics.backfilledRecords().getCount());
        }
    }

    @Override
    public List<BackfillSplit> snapshotState(long checkpointId) {
        // what was handed over up to here is told now, not once the current fetch is emitted
        reporter.flush();
        List<BackfillSplit> splits = super.snapshotState(checkpointId);
        if (!endedSplits.isEmpty()) {
            List<BackfillSplit> withEnded = new ArrayList<>(splits.size() + endedSplits.size());
            withEnded.addAll(splits);
            withEnded.addAll(endedSplits.values());
            splits = withEnded;
        }
        if (checkpointOffsets != null) {
            // ended splits too: their final offset (the stopping offset) is what the log gets
            checkpointOffsets.snapshotted(checkpointId, splits, mode.isForward());
        }
        return splits;
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) throws Exception {
        super.notifyCheckpointComplete(checkpointId);
        if (reachedEnd) {
            // the task finishes with its final checkpoint's notification, and the job may end
            // before Flink notifies the enumerator: it hears of it from here too
            context.sendSourceEventToCoordinator(new CheckpointCompletedEvent(checkpointId));
        }
        rateLimit.notifyCheckpointComplete(checkpointId);
        reporter.resendUnacknowledged();
        if (checkpointOffsets != null) {
            checkpointOffsets.completed(checkpointId);
        }
    }

    @Override
    public void close() throws Exception {
        // the fetcher manager recycles the fetches still queued from its own thread as it closes:
        // they were never emitted, and nothing is reported from a reader that is going away
        reporter.close();
        try {
            super.close();
        } finally {
            if (checkpointOffsets != null) {
                checkpointOffsets.close();
            }
        }
    }

    /** Whether this reader is in forward mode now. */
    public boolean isForwardMode() {
        return mode.isForward();
    }

    /** The checkpoint that confirmed the current forward mode; empty if not in forward mode. */
    public OptionalLong forwardModeCheckpoint() {
        return mode.isForward() && forwardModeCheckpoint != null
                ? OptionalLong.of(forwardModeCheckpoint)
                : OptionalLong.empty();
    }

    /** Statuses not yet acknowledged by the enumerator. */
    @VisibleForTesting
    int unacknowledgedReports() {
        return reporter.unacknowledgedCount();
    }

    /** Whether the reader has ended its input and waits for acknowledgements. */
    @VisibleForTesting
    boolean isWaitingForAcknowledgements() {
        return !acknowledged.isDone();
    }

    long incarnation() {
        return reporter.incarnation();
    }
}
