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
package dev.sourcebackfill.source.enumerator;

import dev.sourcebackfill.source.control.BackfillControl;
import dev.sourcebackfill.source.control.ControlFile;
import dev.sourcebackfill.source.event.AssignmentSentEvent;
import dev.sourcebackfill.source.event.CheckpointCompletedEvent;
import dev.sourcebackfill.source.event.EnumeratorBoundEvent;
import dev.sourcebackfill.source.event.ForwardModeEvent;
import dev.sourcebackfill.source.event.ReportAcknowledgedEvent;
import dev.sourcebackfill.source.event.SplitStatusReportEvent;
import dev.sourcebackfill.source.metrics.BackfillEnumeratorMetrics;
import dev.sourcebackfill.source.spi.DiscoveredSplit;
import dev.sourcebackfill.source.spi.LogSplitDiscoverer;
import dev.sourcebackfill.source.split.BackfillSplit;
import dev.sourcebackfill.source.split.HandoverState;
import dev.sourcebackfill.source.split.SplitKind;

import org.apache.flink.annotation.Internal;
import org.apache.flink.annotation.VisibleForTesting;
import org.apache.flink.api.connector.source.SourceEvent;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.api.connector.source.SplitsAssignment;
import org.apache.flink.util.FlinkRuntimeException;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.annotation.Nullable;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Owns the global per-split backfill status. It discovers splits, assigns each to a fixed reader,
 * applies the readers' status reports, and tells the readers to enter forward mode once a completed
 * checkpoint's own enumerator snapshot had every split confirmed {@code FINISHED}.
 *
 * <p>All methods run in the coordinator thread.
 */
@Internal
public final class BackfillSplitEnumerator
        implements SplitEnumerator<BackfillSplit, BackfillEnumeratorState>,
                EnumeratorBoundEvent.Handler {

    private static final Logger LOG = LoggerFactory.getLogger(BackfillSplitEnumerator.class);

    private final SplitEnumeratorContext<BackfillSplit> context;
    private final LogSplitDiscoverer discoverer;
    private final boolean bounded;
    private final Duration discoveryInterval;

    /** Records per chunk of history; empty: histories are not cut. */
    private final OptionalLong chunkSize;

    private final SplitStatusTracker tracker = new SplitStatusTracker();
    private final ForwardModeGate gate = new ForwardModeGate();

    private volatile boolean initialDiscoveryDone;

    /**
     * Whether this enumerator (not one it was restored from) has discovered the splits: a reader
     * told before that could be idle while a split created meanwhile is on its way.
     */
    private boolean discoveredInThisRun;

    /** Readers told that every split for them has been sent ({@link AssignmentSentEvent}). */
    private final Set<Integer> assignmentSentTo = new HashSet<>();

    private boolean noMoreSplits;

    /** The latest checkpoint known complete; {@code null} before the first. */
    @Nullable private Long lastCompletedCheckpoint;

    @Nullable private Boolean backlogSignalled;

    /** Readers told that no more splits come; such a reader finishes once its splits ended. */
    private final Set<Integer> noMoreSplitsSignalled = new HashSet<>();

    private final BackfillEnumeratorMetrics metrics;

    /** The control channel, if the source has a control file. */
    @Nullable private final ControlChannel control;

    /** The source's control file and how often the enumerator reads it. */
    public record ControlSettings(String file, Duration interval) {}

    /**
     * How long {@link #close} waits for a forward-mode hook that was called and has not returned.
     */
    static final Duration HOOK_WAIT_ON_CLOSE = Duration.ofSeconds(30);

    private Duration hookWaitOnClose = HOOK_WAIT_ON_CLOSE;

    /**
     * Completes when the forward-mode hook called last has returned (in the worker thread); {@code
     * null}: never called. A bounded job ends right after the checkpoint that confirms forward
     * mode, and Flink closes the worker thread, interrupting a hook that still runs (a catalog
     * commit), after {@link #close}: close waits for it.
     */
    @Nullable private volatile CompletableFuture<Void> forwardModeHookDone;

    /**
     * How long {@link #close} waits for the completion of a checkpoint that confirms forward mode,
     * if one is pending in a bounded source.
     */
    static final Duration CONFIRMATION_WAIT_ON_CLOSE = Duration.ofSeconds(5);

    private Duration confirmationWaitOnClose = CONFIRMATION_WAIT_ON_CLOSE;

    /**
     * Pending (not done) while a bounded source not in forward mode has a snapshot that confirms it
     * once its checkpoint completes; {@code null} before the first. Written in the coordinator
     * thread, read by {@link #close} in Flink's.
     */
    @Nullable private volatile CompletableFuture<Void> awaitedConfirmation;

    /** Set by {@link #close} before it closes the discoverer: no hook is called from then on. */
    private volatile boolean closing;

    public BackfillSplitEnumerator(
            SplitEnumeratorContext<BackfillSplit> context,
            LogSplitDiscoverer discoverer,
            boolean bounded,
            Duration discoveryInterval,
            @Nullable BackfillEnumeratorState restored) {
        this(context, discoverer, bounded, discoveryInterval, OptionalLong.empty(), restored);
    }

    /**
     * @param chunkSize records per chunk of history, if split histories are cut into chunks at the
     *     job's first discovery
     */
    public BackfillSplitEnumerator(
            SplitEnumeratorContext<BackfillSplit> context,
            LogSplitDiscoverer discoverer,
            boolean bounded,
            Duration discoveryInterval,
            OptionalLong chunkSize,
            @Nullable BackfillEnumeratorState restored) {
        this(context, discoverer, bounded, discoveryInterval, chunkSize, null, restored);
    }

    /**
     * @param control the source's control file and how often it is read, if it has one
     */
    public BackfillSplitEnumerator(
            SplitEnumeratorContext<BackfillSplit> context,
            LogSplitDiscoverer discoverer,
            boolean bounded,
            Duration discoveryInterval,
            OptionalLong chunkSize,
            @Nullable ControlSettings control,
            @Nullable BackfillEnumeratorState restored) {
        this.context = context;
        this.chunkSize = chunkSize;
        this.discoverer = discoverer;
        this.bounded = bounded;
        this.discoveryInterval = discoveryInterval;
        if (restored != null) {
            tracker.restore(restored.splits());
            initialDiscoveryDone = restored.initialDiscoveryDone();
            LOG.info(
                    "Restored the status table with {} splits; every status waits for its reader to "
                            + "confirm it",
                    tracker.size());
        }
        this.metrics = new BackfillEnumeratorMetrics(context.metricGroup());
        this.control =
                control == null
                        ? null
                        : new ControlChannel(
                                context,
                                new ControlFile(control.file()),
                                control.interval(),
                                restored != null ? restored.control() : BackfillControl.asBuilt(),
                                metrics);
    }

    @Override
    public void start() {
        signalBacklog();
        if (control != null) {
            control.start();
        }
        long intervalMs = discoveryInterval.toMillis();
        if (intervalMs > 0) {
            context.callAsync(this::discover, this::onDiscovered, 0, intervalMs);
        } else {
            context.callAsync(this::discover, this::onDiscovered);
        }
    }

    /** A split found by a discovery, with the offsets its history is cut at (none if not cut). */
    private record Found(DiscoveredSplit split, List<Long> cuts) {}

    /** In the discovery thread: lists the splits and, at the first discovery, cuts histories. */
    private List<Found> discover() throws Exception {
        boolean initial = !initialDiscoveryDone;
        List<DiscoveredSplit> splits = discoverer.discoverSplits(initial);
        List<Found> found = new ArrayList<>(splits.size());
        for (DiscoveredSplit split : splits) {
            found.add(new Found(split, initial ? cutsOf(split) : List.of()));
        }
        return found;
    }

    /** Where the split's history is cut into chunks, checked; none if chunks are off. */
    private List<Long> cutsOf(DiscoveredSplit split) throws Exception {
        if (chunkSize.isEmpty() || split.liveReadsWholeSplit()) {
            return List.of();
        }
        long from = split.backfillStartOffset();
        long to =
                Math.min(
                        split.liveEndOffset(),
                        split.stoppingOffset().orElse(split.liveEndOffset()));
        if (to <= from) {
            return List.of();
        }
        // the log is asked whatever the history's length: a log of files cuts where a file of
        // another partition starts, also in a history no longer than one chunk
        List<Long> cuts = discoverer.cutHistory(split, from, to, chunkSize.getAsLong());
        long previous = from;
        for (long cut : cuts) {
            if (cut <= previous || cut >= to) {
                throw new IllegalStateException(
                        String.format(
                                "The log cut the history [%d, %d) of split %s at %s: each cut must "
                                        + "be above the one before and the history's start, and "
                                        + "below its end",
                                from, to, split.splitId(), cuts));
            }
            previous = cut;
        }
        return cuts;
    }

    private void onDiscovered(@Nullable List<Found> discovered, @Nullable Throwable error) {
        if (error != null) {
            throw new FlinkRuntimeException("Discovering the log's splits failed", error);
        }
        if (noMoreSplits) {
            return;
        }
        boolean initial = !initialDiscoveryDone;
        for (Found each : discovered) {
            DiscoveredSplit found = each.split();
            if (tracker.contains(found.splitId())) {
                continue;
            }
            BackfillSplit split = newSplit(found, each.cuts());
            tracker.add(split);
            LOG.info("Discovered {} ({})", split, initial ? "at start" : "while running");
            addChunks(found, each.cuts());
            if (split.state() != HandoverState.FINISHED && invalidateGate()) {
                LOG.info(
                        "The source leaves forward mode: new split {} must be backfilled",
                        split.splitId());
            }
        }
        initialDiscoveryDone = true;
        discoveredInThisRun = true;
        if (bounded && !discoverer.mayDiscoverMoreSplits()) {
            noMoreSplits = true;
        }
        assignPendingSplits();
        signalBacklog();
    }

    /**
     * Adds the chunks of a split's history cut at {@code cuts}: {@code [start, c1), ..., [c(n-1),
     * cn)}; the split itself keeps {@code [cn, ...)}.
     */
    private void addChunks(DiscoveredSplit found, List<Long> cuts) {
        long from = found.backfillStartOffset();
        for (int i = 0; i < cuts.size(); i++) {
            BackfillSplit plain = BackfillSplit.historyChunk(found.splitId(), i, from, cuts.get(i));
            // a chunk reads the history version its split reads
            BackfillSplit chunk =
                    found.historyVersion().map(plain::withHistoryVersion).orElse(plain);
            tracker.add(chunk);
            from = cuts.get(i);
        }
        if (!cuts.isEmpty()) {
            LOG.info(
                    "Split {}: its history [{}, {}) is read as {} chunks of about {} records, "
                            + "and from {} on by the split itself",
                    found.splitId(),
                    found.backfillStartOffset(),
                    from,
                    cuts.size(),
                    chunkSize.getAsLong(),
                    from);
        }
    }

    private BackfillSplit newSplit(DiscoveredSplit found, List<Long> cuts) {
        OptionalLong stop = found.stoppingOffset();
        if (bounded && stop.isEmpty()) {
            throw new IllegalArgumentException(
                    "The source is bounded but split "
                            + found.splitId()
                            + " has no stopping offset: the log must set one for every split");
        }
        // a split whose history is cut keeps the part after the last cut
        long start = cuts.isEmpty() ? found.backfillStartOffset() : cuts.get(cuts.size() - 1);
        BackfillSplit plain =
                switch (found.kind()) {
                    case HISTORY ->
                            BackfillSplit.historyOnly(found.splitId(), start, stop.getAsLong());
                    case LOG -> logSplit(found, start, cuts);
                };
        return found.historyVersion().map(plain::withHistoryVersion).orElse(plain);
    }

    private static BackfillSplit logSplit(DiscoveredSplit found, long start, List<Long> cuts) {
        HandoverState state =
                found.liveReadsWholeSplit() ? HandoverState.FINISHED : HandoverState.BACKFILLING;
        BackfillSplit split =
                new BackfillSplit(
                        found.splitId(),
                        state,
                        start,
                        found.liveEndOffset(),
                        found.stoppingOffset());
        // history below its start read by other splits (its chunks, or another split of the log):
        // its position says nothing of what was emitted until forward mode
        return cuts.isEmpty() && !found.hasHistoryElsewhere()
                ? split
                : split.withHistoryElsewhere();
    }

    /**
     * The fixed reader of a split: stable across restarts for a given parallelism. The chunks of a
     * log split ({@link SplitKind#LOG}) go round the other readers (all of them at parallelism 1),
     * so that one split's history is spread over them, and the log split's own reader has none of
     * its chunks: a reader reads a log split's chunks before the log split's own last part (oldest
     * first, see docs/design.md), so that would hold the split's live records back. The chunks of a
     * history split ({@link SplitKind#HISTORY}: an Iceberg table's files mixing partitions) have no
     * live part to hold back: they go round every reader, the split's own included, so that at
     * parallelism 2 both readers read them.
     *
     * @param logSplitKind the kind of the split the chunk is of ({@code split} itself if it is no
     *     chunk)
     */
    static int ownerOf(BackfillSplit split, SplitKind logSplitKind, int parallelism) {
        int own = ownerOf(split.logSplitId(), parallelism);
        if (split.chunk().isEmpty() || parallelism == 1) {
            return own;
        }
        int index = split.chunk().get().index();
        if (logSplitKind == SplitKind.HISTORY) {
            return Math.floorMod(own + 1 + index, parallelism);
        }
        int step = 1 + index % (parallelism - 1);
        return Math.floorMod(own + step, parallelism);
    }

    /**
     * The kind of the split {@code split} is a chunk of, or its own kind.
     *
     * @throws IllegalStateException naming the chunk if its split is not in the table
     */
    private SplitKind logSplitKind(BackfillSplit split) {
        if (split.chunk().isEmpty()) {
            return split.kind();
        }
        TrackedSplit logSplit = tracker.get(split.logSplitId());
        if (logSplit == null) {
            throw new IllegalStateException(
                    String.format(
                            "Chunk %s is of split %s, which the enumerator's table does not have",
                            split.splitId(), split.logSplitId()));
        }
        return logSplit.split().kind();
    }

    /** The fixed reader of a log split (not a chunk). */
    static int ownerOf(String splitId, int parallelism) {
        return Math.floorMod(splitId.hashCode(), parallelism);
    }

    private void assignPendingSplits() {
        int parallelism = context.currentParallelism();
        Map<Integer, List<BackfillSplit>> assignment = new HashMap<>();
        for (BackfillSplit split : tracker.unassigned()) {
            int owner = ownerOf(split, logSplitKind(split), parallelism);
            if (context.registeredReaders().containsKey(owner)) {
                assignment.computeIfAbsent(owner, k -> new ArrayList<>()).add(split);
            }
        }
        if (!assignment.isEmpty()) {
            assignment.forEach(
                    (owner, splits) -> {
                        for (BackfillSplit split : splits) {
                            tracker.markAssigned(split.splitId(), owner);
                        }
                        LOG.info("Assigning {} to subtask {}", splits, owner);
                    });
            context.assignSplits(new SplitsAssignment<>(assignment));
        }
        if (discoveredInThisRun && !noMoreSplits) {
            // after its splits, in order: a reader holding none may now be idle (not once no
            // more splits come: such a reader finishes, and an event must not reach it then)
            for (int reader : context.registeredReaders().keySet()) {
                if (assignmentSentTo.add(reader)) {
                    context.sendEventToSourceReader(reader, new AssignmentSentEvent());
                }
            }
        }
        if (noMoreSplits) {
            // once per registered reader: a reader told so may finish, and an event that reaches
            // a task while it finishes fails the job
            for (int reader : context.registeredReaders().keySet()) {
                if (noMoreSplitsSignalled.add(reader)) {
                    LOG.info("Telling subtask {} that no more splits come", reader);
                    context.signalNoMoreSplits(reader);
                }
            }
        }
    }

    @Override
    public void handleSplitRequest(int subtaskId, @Nullable String requesterHostname) {
        // splits are pushed to their fixed reader; nothing to do on request
    }

    @Override
    public void addSplitsBack(List<BackfillSplit> splits, int subtaskId) {
        // Flink calls this on every regional reset of the subtask, with the splits it was given
        // after the restored checkpoint. The restored reader may hold older state than the table.
        LOG.info(
                "Subtask {} was reset; {} split(s) given back: {}. Its statuses wait for "
                        + "confirmation",
                subtaskId,
                splits.size(),
                splits);
        tracker.resetSubtask(
                subtaskId,
                lastCompletedCheckpoint == null
                        ? OptionalLong.empty()
                        : OptionalLong.of(lastCompletedCheckpoint));
        // the restored reader registers again and is told about no more splits again
        noMoreSplitsSignalled.remove(subtaskId);
        tracker.returnSplits(splits);
        if (invalidateGate()) {
            LOG.info("The source leaves forward mode until the next confirming checkpoint");
        }
        assignPendingSplits();
        signalBacklog();
    }

    @Override
    public void addReader(int subtaskId) {
        LOG.debug("Reader {} registered", subtaskId);
        // a reader that registers anew (a failover) is a new reader: it is told again
        assignmentSentTo.remove(subtaskId);
        if (control != null) {
            control.addReader(subtaskId);
        }
        assignPendingSplits();
    }

    @Override
    public void handleSourceEvent(int subtaskId, SourceEvent sourceEvent) {
        if (sourceEvent instanceof EnumeratorBoundEvent) {
            ((EnumeratorBoundEvent) sourceEvent).dispatchTo(subtaskId, this);
        } else {
            LOG.warn("Ignoring unknown event from subtask {}: {}", subtaskId, sourceEvent);
        }
    }

    @Override
    public void onStatusReport(int subtaskId, SplitStatusReportEvent report) {
        SplitStatusTracker.ReportOutcome outcome = tracker.apply(subtaskId, report);
        LOG.debug("Report from subtask {}: {} ({})", subtaskId, report, outcome);
        if (outcome == SplitStatusTracker.ReportOutcome.IGNORED) {
            return;
        }
        if (outcome == SplitStatusTracker.ReportOutcome.APPLIED_REGRESSED && invalidateGate()) {
            LOG.info(
                    "The source leaves forward mode: subtask {} reported {}",
                    subtaskId,
                    report.statuses());
        }
        context.sendEventToSourceReader(
                subtaskId,
                new ReportAcknowledgedEvent(report.readerIncarnation(), report.reportId()));
        signalBacklog();
    }

    @Override
    public BackfillEnumeratorState snapshotState(long checkpointId) {
        tracker.onSnapshot(checkpointId);
        boolean eligible = tracker.allConfirmedFinished();
        gate.onSnapshot(checkpointId, eligible);
        updateAwaitedConfirmation();
        if (LOG.isDebugEnabled()) {
            List<String> blocking = new ArrayList<>();
            for (TrackedSplit tracked : tracker.all()) {
                if (!tracked.isConfirmedFinished()) {
                    blocking.add(
                            String.format(
                                    "%s %s%s%s%s",
                                    tracked.split().splitId(),
                                    tracked.state(),
                                    tracked.isAssigned() ? " on " + tracked.owner() : " unassigned",
                                    tracked.isConfirmed() ? "" : " unconfirmed",
                                    tracked.isEnded() ? " ended" : ""));
                }
            }
            LOG.debug(
                    "Snapshot for checkpoint {}: {} splits, all confirmed FINISHED: {}{}",
                    checkpointId,
                    tracker.size(),
                    eligible,
                    blocking.isEmpty() ? "" : "; not yet: " + blocking);
        }
        signalBacklog();
        return new BackfillEnumeratorState(
                tracker.snapshotEntries(),
                initialDiscoveryDone,
                control != null ? control.current() : BackfillControl.asBuilt());
    }

    /**
     * A reader at its end passed on Flink's notification of a completed checkpoint ({@link
     * CheckpointCompletedEvent}): taken as the enumerator's own, which may come after the job's
     * end.
     */
    @Override
    public void onCheckpointCompleted(int subtaskId, long checkpointId) {
        LOG.debug("Subtask {} passed on the completion of checkpoint {}", subtaskId, checkpointId);
        notifyCheckpointComplete(checkpointId);
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) {
        lastCompletedCheckpoint =
                lastCompletedCheckpoint == null
                        ? checkpointId
                        : Math.max(lastCompletedCheckpoint, checkpointId);
        if (gate.onCheckpointComplete(checkpointId)) {
            LOG.info(
                    "Forward mode confirmed by completed checkpoint {}: every one of {} splits was "
                            + "FINISHED in its snapshot; telling {} readers",
                    checkpointId,
                    tracker.size(),
                    context.registeredReaders().size());
            ForwardModeEvent event = new ForwardModeEvent(checkpointId);
            for (int reader : context.registeredReaders().keySet()) {
                // an event to a finished task fails the job: skip readers that may have ended
                if (!mayHaveFinished(reader)) {
                    context.sendEventToSourceReader(reader, event);
                }
            }
            signalBacklog();
            callForwardModeHook(checkpointId);
        }
        updateAwaitedConfirmation();
    }

    /** Makes every snapshot so far unfit to confirm forward mode; whether the source was in it. */
    private boolean invalidateGate() {
        boolean wasForward = gate.invalidate();
        updateAwaitedConfirmation();
        return wasForward;
    }

    /**
     * Keeps {@link #awaitedConfirmation} in step with the gate: pending while a bounded source
     * whose splits have all ended (only then can its job end), not in forward mode, has a snapshot
     * that would confirm it once its checkpoint completes. A close while a split has not ended is a
     * cancellation or a failover, and waits for nothing.
     */
    private void updateAwaitedConfirmation() {
        CompletableFuture<Void> awaited = awaitedConfirmation;
        if (bounded
                && gate.awaitsCompletion()
                && tracker.size() > 0
                && tracker.countEnded() == tracker.size()) {
            if (awaited == null || awaited.isDone()) {
                awaitedConfirmation = new CompletableFuture<>();
            }
        } else if (awaited != null) {
            awaited.complete(null);
        }
    }

    /**
     * Tells the discoverer that forward mode is confirmed ({@link
     * LogSplitDiscoverer#onForwardMode}), with the ids of the log splits in the status table (a
     * restored discoverer knows them from nothing else). In the worker thread, where discoveries
     * run: the log may do I/O (a catalog commit) that must not hold up the coordinator thread, and
     * the discoverer is never called concurrently with itself. A failure is logged and counted.
     */
    private void callForwardModeHook(long checkpointId) {
        Set<String> splitIds = new TreeSet<>();
        Set<String> historyVersions = new TreeSet<>();
        for (TrackedSplit tracked : tracker.all()) {
            splitIds.add(tracked.split().logSplitId());
            tracked.split().historyVersion().ifPresent(historyVersions::add);
        }
        CompletableFuture<Void> done = new CompletableFuture<>();
        forwardModeHookDone = done;
        context.callAsync(
                () -> {
                    try {
                        if (closing) {
                            LOG.info(
                                    "The enumerator is closing: the log's action on forward mode "
                                            + "(confirmed by checkpoint {}) is not run",
                                    checkpointId);
                        } else {
                            discoverer.onForwardMode(checkpointId, splitIds, historyVersions);
                        }
                    } finally {
                        done.complete(null);
                    }
                    return null;
                },
                (ignored, error) -> {
                    if (error != null) {
                        metrics.forwardModeHookFailed();
                        LOG.warn(
                                "The log's action on forward mode (confirmed by checkpoint {}) "
                                        + "failed; the job goes on",
                                checkpointId,
                                error);
                    }
                });
    }

    /** A bounded reader that was told no more splits come and holds no split that goes on. */
    private boolean mayHaveFinished(int reader) {
        if (!noMoreSplitsSignalled.contains(reader)) {
            return false;
        }
        for (TrackedSplit tracked : tracker.all()) {
            Integer owner = tracked.owner();
            if (!tracked.isEnded() && (owner == null || owner == reader)) {
                return false;
            }
        }
        return true;
    }

    @Override
    public void notifyCheckpointAborted(long checkpointId) {
        gate.onCheckpointAborted(checkpointId);
        updateAwaitedConfirmation();
    }

    /**
     * Publishes metrics and tells Flink whether an unbounded source processes backlog. A bounded
     * source never does: Flink sends the backlog signal to every reader as an event, also right
     * after a reader registered (after {@link #addReader}, which may have told it that no more
     * splits come), and an event that reaches a reader that finished fails the job.
     */
    private void signalBacklog() {
        metrics.update(
                tracker.count(HandoverState.BACKFILLING),
                tracker.count(HandoverState.CACHING_UP),
                tracker.count(HandoverState.FINISHED),
                tracker.countEnded(),
                tracker.countUnconfirmed(),
                gate.forwardCheckpoint());
        if (bounded) {
            return;
        }
        boolean backlog = !gate.isForward();
        if (backlogSignalled == null || backlogSignalled != backlog) {
            backlogSignalled = backlog;
            LOG.info("The source {} processing backlog", backlog ? "is" : "is no longer");
            context.setIsProcessingBacklog(backlog);
        }
    }

    @Override
    public void close() throws IOException {
        try {
            awaitConfirmation();
            awaitForwardModeHook();
            // a completion handled after this (the coordinator thread runs until Flink shuts it
            // down) calls no hook on the closed discoverer
            closing = true;
            discoverer.close();
        } catch (IOException e) {
            throw e;
        } catch (Exception e) {
            throw new IOException("Closing the split discoverer failed", e);
        } finally {
            metrics.close();
        }
    }

    /**
     * Waits, bounded, for the completion of a checkpoint whose snapshot confirms forward mode, if
     * one is pending in a bounded source: its job ends right after that checkpoint, and Flink calls
     * {@link #close} in its own thread while its notification may still wait in the coordinator
     * thread's queue (whose executor is shut down, dropping what waits, right after close).
     */
    private void awaitConfirmation() {
        CompletableFuture<Void> awaited = awaitedConfirmation;
        if (awaited == null || awaited.isDone()) {
            return;
        }
        LOG.info(
                "Closing: waiting up to {} for the completion of a checkpoint that confirms forward "
                        + "mode (a bounded source's last)",
                confirmationWaitOnClose);
        try {
            awaited.get(confirmationWaitOnClose.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            LOG.info(
                    "Closing: no checkpoint confirmed forward mode within {} (the job did not "
                            + "end with it)",
                    confirmationWaitOnClose);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException e) {
            throw new IllegalStateException("not completed exceptionally", e);
        }
    }

    /** Waits, bounded, for a forward-mode hook that was called and has not returned. */
    private void awaitForwardModeHook() {
        CompletableFuture<Void> done = forwardModeHookDone;
        if (done == null || done.isDone()) {
            return;
        }
        LOG.info(
                "Closing: waiting up to {} for the log's action on forward mode to finish",
                hookWaitOnClose);
        try {
            done.get(hookWaitOnClose.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            LOG.warn(
                    "Closing: the log's action on forward mode did not finish within {}; it is "
                            + "interrupted and not retried",
                    hookWaitOnClose);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException e) {
            throw new IllegalStateException("not completed exceptionally", e);
        }
    }

    @VisibleForTesting
    void setHookWaitOnClose(Duration wait) {
        this.hookWaitOnClose = wait;
    }

    @VisibleForTesting
    void setConfirmationWaitOnClose(Duration wait) {
        this.confirmationWaitOnClose = wait;
    }

    @VisibleForTesting
    boolean isForwardMode() {
        return gate.isForward();
    }

    @VisibleForTesting
    long forwardModeHookFailures() {
        return metrics.forwardModeHookFailures();
    }

    @VisibleForTesting
    long controlErrors() {
        return metrics.controlErrors();
    }

    @VisibleForTesting
    SplitStatusTracker tracker() {
        return tracker;
    }
}
