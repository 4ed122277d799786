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

import dev.sourcebackfill.source.event.CheckpointCompletedEvent;
import dev.sourcebackfill.source.event.ForwardModeEvent;
import dev.sourcebackfill.source.event.ReportAcknowledgedEvent;
import dev.sourcebackfill.source.event.SplitStatus;
import dev.sourcebackfill.source.event.SplitStatusReportEvent;
import dev.sourcebackfill.source.spi.DiscoveredSplit;
import dev.sourcebackfill.source.spi.LogSplitDiscoverer;
import dev.sourcebackfill.source.split.BackfillSplit;
import dev.sourcebackfill.source.split.HandoverState;

import org.apache.flink.api.connector.source.ReaderInfo;
import org.apache.flink.api.connector.source.SourceEvent;
import org.apache.flink.api.connector.source.SplitsAssignment;
import org.apache.flink.api.connector.source.mocks.MockSplitEnumeratorContext;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;

import static dev.sourcebackfill.source.split.HandoverState.BACKFILLING;
import static dev.sourcebackfill.source.split.HandoverState.CACHING_UP;
import static dev.sourcebackfill.source.split.HandoverState.FINISHED;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/** Every decision of the enumerator, on Flink's mock enumerator context. */
class BackfillSplitEnumeratorTest {

    private static final int PARALLELISM = 2;

    private RecordingContext context;
    private FakeDiscoverer discoverer;
    private BackfillSplitEnumerator enumerator;

    /** The reader incarnation each subtask reports with. */
    private final Map<Integer, Long> incarnation = new HashMap<>();

    private final Map<Integer, Long> reportIds = new HashMap<>();

    @BeforeEach
    void setUp() throws Throwable {
        context = new RecordingContext(PARALLELISM);
        discoverer = new FakeDiscoverer();
        // split ids chosen so that each subtask owns two
        for (String id : List.of("s-0", "s-1", "s-2", "s-3")) {
            discoverer.splits.add(DiscoveredSplit.backfilled(id, 0, 100));
        }
        enumerator = newEnumerator(null);
        enumerator.start();
        context.runNextOneTimeCallable();
        registerReader(0);
        registerReader(1);
    }

    @AfterEach
    void tearDown() throws Throwable {
        context.close();
    }

    private BackfillSplitEnumerator newEnumerator(BackfillEnumeratorState restored) {
        return new BackfillSplitEnumerator(context, discoverer, false, Duration.ZERO, restored);
    }

    private void registerReader(int subtask) {
        incarnation.put(
                subtask, 1000L + subtask * 10 + incarnation.getOrDefault(subtask, 0L) % 10 + 1);
        reportIds.put(subtask, 0L);
        context.registerReader(new ReaderInfo(subtask, "localhost"));
        enumerator.addReader(subtask);
    }

    /** A regional failover of one subtask: Flink gives the splits back, the reader re-registers. */
    private void regionalFailover(int subtask, List<BackfillSplit> givenBack) {
        context.unregisterReader(subtask);
        enumerator.addSplitsBack(givenBack, subtask);
        registerReader(subtask);
    }

    private List<String> owned(int subtask) {
        List<String> ids = new ArrayList<>();
        for (SplitsAssignment<BackfillSplit> a : context.getSplitsAssignmentSequence()) {
            a.assignment().getOrDefault(subtask, List.of()).forEach(s -> ids.add(s.splitId()));
        }
        return ids;
    }

    private void report(int subtask, HandoverState state, String... splitIds) {
        List<SplitStatus> statuses = new ArrayList<>();
        for (String id : splitIds) {
            statuses.add(new SplitStatus(id, state, 100, false));
        }
        reportFrom(subtask, incarnation.get(subtask), statuses);
    }

    private void reportFrom(int subtask, long readerIncarnation, List<SplitStatus> statuses) {
        long id = reportIds.merge(subtask, 1L, Long::sum);
        enumerator.handleSourceEvent(
                subtask, new SplitStatusReportEvent(readerIncarnation, id, statuses));
    }

    private void reportAll(HandoverState state) {
        for (int subtask = 0; subtask < PARALLELISM; subtask++) {
            report(subtask, state, owned(subtask).toArray(new String[0]));
        }
    }

    private List<Long> forwardEvents(int subtask) throws Exception {
        return context.getSentSourceEvent().getOrDefault(subtask, List.of()).stream()
                .filter(e -> e instanceof ForwardModeEvent)
                .map(e -> ((ForwardModeEvent) e).checkpointId())
                .collect(Collectors.toList());
    }

    // ------------------------------------------------------------------ assignment

    @Test
    void eachReaderIsToldOnceAfterItsSplitsThatEverySplitForItWasSent() {
        assertThat(context.toReader.get(0))
                .containsExactly("assign s-0,s-2", "AssignmentSentEvent");
        assertThat(context.toReader.get(1))
                .containsExactly("assign s-1,s-3", "AssignmentSentEvent");

        // a regional failover: the reader registers anew and is told again, after its splits
        context.toReader.clear();
        regionalFailover(1, List.of());
        assertThat(context.toReader.get(1)).containsExactly("AssignmentSentEvent");
        assertThat(context.toReader.get(0)).isNull();
    }

    @Test
    void aReaderRegisteredBeforeTheFirstDiscoveryIsToldOnlyAfterIt() throws Throwable {
        context.close();
        context = new RecordingContext(PARALLELISM);
        enumerator = newEnumerator(null);
        enumerator.start();
        registerReader(0);
        assertThat(context.toReader.get(0)).as("before the first discovery").isNull();
        context.runNextOneTimeCallable();
        assertThat(context.toReader.get(0))
                .containsExactly("assign s-0,s-2", "AssignmentSentEvent");
    }

    /**
     * A restored enumerator has not discovered yet in this run (initialDiscoveryDone is restored
     * true): a reader registering before that discovery must not be told that every split for it
     * was sent before the splits that discovery finds (here one created while the job was down).
     */
    @Test
    void aReaderRegisteredBeforeARestoredEnumeratorsFirstDiscoveryIsToldOnlyAfterIt()
            throws Throwable {
        BackfillEnumeratorState state = enumerator.snapshotState(1);
        context.close();
        context = new RecordingContext(PARALLELISM);
        discoverer.splits.add(DiscoveredSplit.backfilled("s-4", 0, 100));
        int owner = BackfillSplitEnumerator.ownerOf("s-4", PARALLELISM);
        enumerator = newEnumerator(state);
        enumerator.start();
        registerReader(0);
        registerReader(1);
        context.runNextOneTimeCallable();
        assertThat(context.toReader.get(owner))
                .as("what reached reader %d, whose split s-4 the first discovery found", owner)
                .containsExactly("assign s-4", "AssignmentSentEvent");
    }

    @Test
    void assignsEverySplitOnceToItsFixedOwner() {
        assertThat(owned(0)).hasSize(2);
        assertThat(owned(1)).hasSize(2);
        assertThat(owned(0)).doesNotContainAnyElementsOf(owned(1));
        for (int subtask = 0; subtask < PARALLELISM; subtask++) {
            for (String id : owned(subtask)) {
                assertThat(BackfillSplitEnumerator.ownerOf(id, PARALLELISM)).isEqualTo(subtask);
            }
        }
    }

    @Test
    void acknowledgesEveryReport() throws Throwable {
        report(0, BACKFILLING, owned(0).get(0));
        report(0, CACHING_UP, owned(0).get(0));
        List<SourceEvent> sent = context.getSentSourceEvent().get(0);
        assertThat(sent)
                .filteredOn(e -> e instanceof ReportAcknowledgedEvent)
                .extracting(e -> ((ReportAcknowledgedEvent) e).reportId())
                .containsExactly(1L, 2L);
    }

    // ------------------------------------------------------------------ the forward-mode gate

    @Test
    void noForwardModeBeforeACompletedCheckpointWhoseOwnSnapshotHadAllFinished() throws Throwable {
        reportAll(FINISHED);
        // completion of a checkpoint the enumerator took no eligible snapshot for
        enumerator.notifyCheckpointComplete(1);
        assertThat(enumerator.isForwardMode()).isFalse();

        enumerator.snapshotState(2);
        assertThat(enumerator.isForwardMode()).isFalse();
        assertThat(forwardEvents(0)).isEmpty();

        enumerator.notifyCheckpointComplete(2);
        assertThat(enumerator.isForwardMode()).isTrue();
        assertThat(forwardEvents(0)).containsExactly(2L);
        assertThat(forwardEvents(1)).containsExactly(2L);
        assertThat(context.backlogSignals).endsWith(true, false);
    }

    @Test
    void aSplitNotFinishedInTheSnapshotBlocksForwardMode() throws Throwable {
        reportAll(FINISHED);
        report(1, CACHING_UP, owned(1).get(0));
        enumerator.snapshotState(1);
        enumerator.notifyCheckpointComplete(1);
        assertThat(enumerator.isForwardMode()).isFalse();
    }

    @Test
    void aReportArrivingAfterTheSnapshotCountsOnlyForTheNextCheckpoint() throws Throwable {
        reportAll(CACHING_UP);
        enumerator.snapshotState(1);
        // the reader sent FINISHED while the gateway was closed: delivered after the snapshot
        reportAll(FINISHED);
        enumerator.notifyCheckpointComplete(1);
        assertThat(enumerator.isForwardMode()).isFalse();

        enumerator.snapshotState(2);
        enumerator.notifyCheckpointComplete(2);
        assertThat(enumerator.isForwardMode()).isTrue();
        assertThat(forwardEvents(0)).containsExactly(2L);
    }

    @Test
    void aMissedNotificationIsMadeUpByTheNextCompletedCheckpoint() throws Throwable {
        reportAll(FINISHED);
        enumerator.snapshotState(1);
        enumerator.snapshotState(2);
        // notification of 1 never comes; 2 subsumes it
        enumerator.notifyCheckpointComplete(2);
        assertThat(forwardEvents(0)).containsExactly(2L);
    }

    @Test
    void aMissedNotificationDoesNotLetALaterIneligibleCheckpointConfirm() throws Throwable {
        reportAll(FINISHED);
        enumerator.snapshotState(1);
        // a new split appears: snapshot 2 does not have everything finished
        discoverer.splits.add(DiscoveredSplit.backfilled("s-4", 0, 10));
        enumerator.start();
        context.runNextOneTimeCallable();
        enumerator.snapshotState(2);
        enumerator.notifyCheckpointComplete(2);
        assertThat(enumerator.isForwardMode()).isFalse();
        // and the late notification of 1 is subsumed: it confirms nothing any more
        enumerator.notifyCheckpointComplete(1);
        assertThat(enumerator.isForwardMode()).isFalse();
    }

    /**
     * Issue 34, item 2: the log learns that forward mode is confirmed (the Iceberg adapter then
     * removes its snapshot tag), in the worker thread, with the log splits of the status table.
     */
    @Test
    void confirmedForwardModeCallsTheLogsHookWithTheLogSplitsInTheWorkerThread() throws Throwable {
        reportAll(FINISHED);
        enumerator.snapshotState(1);
        assertThat(context.getOneTimeCallables()).isEmpty();
        enumerator.notifyCheckpointComplete(1);
        assertThat(discoverer.forwardModeCalls).as("not in the coordinator thread").isEmpty();
        context.runNextOneTimeCallable();
        assertThat(discoverer.forwardModeCalls).containsExactly("1 [s-0, s-1, s-2, s-3]");
    }

    /**
     * A bounded job ends right after the checkpoint that confirms forward mode, and Flink closes
     * the worker thread after the enumerator, interrupting a hook that still runs: on the real
     * cluster the Iceberg tag stayed. Close waits for the hook, and closes the discoverer after it.
     */
    @Test
    void closeWaitsForAForwardModeHookThatIsCalledAndClosesTheDiscovererAfterIt() throws Throwable {
        reportAll(FINISHED);
        enumerator.snapshotState(1);
        enumerator.notifyCheckpointComplete(1);
        Thread closing = new Thread(this::closeEnumerator, "closing the enumerator");
        closing.start();
        // closed at once (the defect) or waiting for the hook
        while (closing.getState() != Thread.State.TERMINATED
                && closing.getState() != Thread.State.TIMED_WAITING) {
            Thread.onSpinWait();
        }
        context.runNextOneTimeCallable();
        closing.join();
        assertThat(discoverer.lifecycle).containsExactly("forward mode 1", "closed");
    }

    /**
     * Issue 34: the job of a bounded source ends right after the checkpoint that recorded the last
     * end, and Flink calls close in its own thread while the enumerator's notification of that
     * checkpoint may still wait in the coordinator thread (whose executor is shut down after close,
     * dropping it): close waits for it, then for the hook it calls.
     */
    @Test
    void closeOfABoundedSourceWaitsForTheCompletionOfACheckpointThatConfirmsForwardMode()
            throws Throwable {
        startBoundedWithOneSplitPerReader();
        endBothSplits();
        enumerator.snapshotState(1);
        Thread closing = new Thread(this::closeEnumerator, "closing the enumerator");
        closing.start();
        awaitWaitingOrEnded(closing);
        // the coordinator thread gets to the notification
        enumerator.notifyCheckpointComplete(1);
        awaitWaitingOrEnded(closing);
        context.runNextOneTimeCallable();
        closing.join();
        assertThat(discoverer.lifecycle).containsExactly("forward mode 1", "closed");
    }

    /**
     * Issue 34: a reader at its end passes on Flink's notification of a completed checkpoint, which
     * reaches the enumerator before the job's end: taken as the enumerator's own, once.
     */
    @Test
    void aCompletionPassedOnByAReaderConfirmsForwardModeAsFlinksOwnNotificationWould()
            throws Throwable {
        startBoundedWithOneSplitPerReader();
        endBothSplits();
        enumerator.snapshotState(1);
        enumerator.handleSourceEvent(1, new CheckpointCompletedEvent(1));
        assertThat(enumerator.isForwardMode()).isTrue();
        context.runNextOneTimeCallable();
        assertThat(discoverer.forwardModeCalls).containsExactly("1 [s-0, s-1]");
        enumerator.handleSourceEvent(0, new CheckpointCompletedEvent(1));
        enumerator.notifyCheckpointComplete(1);
        assertThat(context.getOneTimeCallables()).as("the hook runs once").isEmpty();
        assertThat(discoverer.forwardModeCalls).hasSize(1);
    }

    /** A completion passed on for a checkpoint whose snapshot was not eligible confirms nothing. */
    @Test
    void aCompletionPassedOnForACheckpointWhoseSnapshotWasNotEligibleConfirmsNothing()
            throws Throwable {
        startBoundedWithOneSplitPerReader();
        reportFrom(
                0,
                incarnation.get(0),
                List.of(new SplitStatus(owned(0).get(0), FINISHED, 20, true)));
        enumerator.snapshotState(1);
        endBothSplits();
        enumerator.handleSourceEvent(0, new CheckpointCompletedEvent(1));
        assertThat(enumerator.isForwardMode()).isFalse();
        assertThat(context.getOneTimeCallables()).isEmpty();
    }

    /**
     * Close waits only while a confirmation is pending: not when the snapshot was not eligible, not
     * once its checkpoint was aborted, not for an unbounded source (its job goes on after).
     */
    @Test
    void closeWaitsForNoConfirmationOfACheckpointThatWasAborted() throws Throwable {
        startBoundedWithOneSplitPerReader();
        enumerator.setConfirmationWaitOnClose(Duration.ofDays(1));
        endBothSplits();
        enumerator.snapshotState(1);
        enumerator.notifyCheckpointAborted(1);
        assertTimeoutPreemptively(Duration.ofSeconds(3), () -> enumerator.close());
        assertThat(discoverer.lifecycle).containsExactly("closed");
    }

    /** Nor when the last snapshot had a split that had not ended. */
    @Test
    void closeWaitsForNoConfirmationWhenTheLastSnapshotWasNotEligible() throws Throwable {
        startBoundedWithOneSplitPerReader();
        enumerator.setConfirmationWaitOnClose(Duration.ofDays(1));
        reportFrom(
                0,
                incarnation.get(0),
                List.of(new SplitStatus(owned(0).get(0), FINISHED, 20, true)));
        enumerator.snapshotState(1);
        assertTimeoutPreemptively(Duration.ofSeconds(3), () -> enumerator.close());
        assertThat(discoverer.lifecycle).containsExactly("closed");
    }

    /** Nor for an unbounded source: its job goes on after the confirming checkpoint. */
    @Test
    void closeOfAnUnboundedSourceWaitsForNoConfirmation() throws Throwable {
        enumerator.setConfirmationWaitOnClose(Duration.ofDays(1));
        reportAll(FINISHED);
        enumerator.snapshotState(1);
        assertTimeoutPreemptively(Duration.ofSeconds(3), () -> enumerator.close());
        assertThat(discoverer.lifecycle).containsExactly("closed");
    }

    /** A confirmation that never comes holds close up no longer than the bound. */
    @Test
    void closeWaitsNoLongerThanTheBoundForAConfirmationThatNeverComes() throws Throwable {
        startBoundedWithOneSplitPerReader();
        enumerator.setConfirmationWaitOnClose(Duration.ofMillis(50));
        endBothSplits();
        enumerator.snapshotState(1);
        assertTimeoutPreemptively(Duration.ofSeconds(10), () -> enumerator.close());
        assertThat(discoverer.lifecycle).containsExactly("closed");
    }

    /**
     * Review of issue 34: a bounded source's job ends only once every reader finished, and a reader
     * finishes only once the enumerator applied the end of each of its splits. With a split that
     * has not ended (here both are FINISHED and still read up to their stopping offset) close is
     * never the job's end: it is a cancellation or a global failover (whose new coordinator Flink
     * creates only once the old one closed). Close must not wait for a confirmation then.
     */
    @Test
    void closeOfABoundedSourceWhoseSplitsHaveNotAllEndedDoesNotWait() throws Throwable {
        startBoundedWithOneSplitPerReader();
        report(0, FINISHED, owned(0).get(0));
        report(1, FINISHED, owned(1).get(0));
        enumerator.snapshotState(1);
        long start = System.nanoTime();
        enumerator.close();
        long tookMs = (System.nanoTime() - start) / 1_000_000;
        assertThat(discoverer.lifecycle).containsExactly("closed");
        assertThat(tookMs)
                .as("close of a bounded source that cannot have ended (splits not ended), in ms")
                .isLessThan(1000);
    }

    /**
     * Review of issue 34: close waits for the confirmation no longer than its bound, then closes
     * the discoverer; a completion the coordinator thread handles after that (a relay or Flink's
     * own notification queued behind other work) must not call the log's hook on the closed
     * discoverer (the Iceberg adapter's catalog is gone), nor concurrently with its close.
     */
    @Test
    void aCompletionHandledAfterCloseDoesNotCallTheHookOnTheClosedDiscoverer() throws Throwable {
        startBoundedWithOneSplitPerReader();
        enumerator.setConfirmationWaitOnClose(Duration.ofMillis(50));
        endBothSplits();
        enumerator.snapshotState(1);
        enumerator.close();
        // the coordinator thread gets to the relayed completion only now
        enumerator.handleSourceEvent(0, new CheckpointCompletedEvent(1));
        while (!context.getOneTimeCallables().isEmpty()) {
            context.runNextOneTimeCallable();
        }
        assertThat(discoverer.lifecycle)
                .as("no hook call on a closed discoverer")
                .containsExactly("closed");
    }

    /**
     * Review of issue 34: a regional failover after the eligible snapshot makes it unfit to confirm
     * forward mode, and close does not wait for it.
     */
    @Test
    void closeDoesNotWaitOnceAFailoverInvalidatedThePendingConfirmation() throws Throwable {
        startBoundedWithOneSplitPerReader();
        enumerator.setConfirmationWaitOnClose(Duration.ofDays(1));
        endBothSplits();
        enumerator.snapshotState(1);
        regionalFailover(0, List.of());
        assertTimeoutPreemptively(Duration.ofSeconds(3), () -> enumerator.close());
        assertThat(discoverer.lifecycle).containsExactly("closed");
    }

    private void endBothSplits() {
        reportFrom(
                0,
                incarnation.get(0),
                List.of(new SplitStatus(owned(0).get(0), FINISHED, 20, true)));
        reportFrom(
                1,
                incarnation.get(1),
                List.of(new SplitStatus(owned(1).get(0), FINISHED, 20, true)));
    }

    private static void awaitWaitingOrEnded(Thread thread) {
        while (thread.getState() != Thread.State.TERMINATED
                && thread.getState() != Thread.State.TIMED_WAITING) {
            Thread.onSpinWait();
        }
    }

    /** A hook that never runs (its thread gone) holds close up no longer than the bound. */
    @Test
    void closeWaitsNoLongerThanTheBoundForAHookThatNeverRuns() throws Throwable {
        enumerator.setHookWaitOnClose(Duration.ofMillis(50));
        reportAll(FINISHED);
        enumerator.snapshotState(1);
        enumerator.notifyCheckpointComplete(1);
        enumerator.close();
        assertThat(discoverer.lifecycle).containsExactly("closed");
    }

    /** Without a confirmed forward mode close does not wait. */
    @Test
    void closeWithoutAHookCallClosesTheDiscoverer() throws Throwable {
        enumerator.setHookWaitOnClose(Duration.ofDays(1));
        enumerator.setConfirmationWaitOnClose(Duration.ofDays(1));
        reportAll(FINISHED);
        enumerator.snapshotState(1);
        assertTimeoutPreemptively(Duration.ofSeconds(3), () -> enumerator.close());
        assertThat(discoverer.lifecycle).containsExactly("closed");
    }

    private void closeEnumerator() {
        try {
            enumerator.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A failing hook is counted, and the source stays in forward mode. */
    @Test
    void aFailingForwardModeHookIsCountedAndNeverFailsTheJob() throws Throwable {
        discoverer.failOnForwardMode = true;
        reportAll(FINISHED);
        enumerator.snapshotState(1);
        enumerator.notifyCheckpointComplete(1);
        context.runNextOneTimeCallable();
        assertThat(discoverer.forwardModeCalls).hasSize(1);
        assertThat(enumerator.forwardModeHookFailures()).isOne();
        assertThat(enumerator.isForwardMode()).isTrue();
        assertThat(forwardEvents(0)).containsExactly(1L);
    }

    @Test
    void anAbortedCheckpointsSnapshotNeverCounts() throws Throwable {
        reportAll(FINISHED);
        enumerator.snapshotState(1);
        enumerator.notifyCheckpointAborted(1);
        enumerator.notifyCheckpointComplete(1);
        assertThat(enumerator.isForwardMode()).isFalse();
    }

    @Test
    void abortedCheckpointThenRegionalFailoverThenLaterCompletedCheckpoint() throws Throwable {
        // Flink CDC's hole: "some eligible snapshot <= n" would enter forward mode here
        reportAll(FINISHED);
        long oldIncarnation = incarnation.get(0);
        enumerator.snapshotState(3);
        enumerator.notifyCheckpointAborted(3);

        regionalFailover(0, List.of());
        // a late report of the replaced reader instance must not confirm anything
        reportFrom(0, oldIncarnation, statuses(owned(0), FINISHED));
        // the restored reader's report is delivered only after the next snapshot
        enumerator.snapshotState(4);
        report(0, CACHING_UP, owned(0).toArray(new String[0]));
        enumerator.notifyCheckpointComplete(4);
        assertThat(enumerator.isForwardMode()).isFalse();

        enumerator.snapshotState(5);
        enumerator.notifyCheckpointComplete(5);
        assertThat(enumerator.isForwardMode()).isFalse();

        report(0, FINISHED, owned(0).toArray(new String[0]));
        enumerator.snapshotState(6);
        enumerator.notifyCheckpointComplete(6);
        assertThat(forwardEvents(1)).containsExactly(6L);
    }

    @Test
    void regionalFailoverWithoutAbortNotificationStillInvalidatesOlderSnapshots() throws Exception {
        reportAll(FINISHED);
        enumerator.snapshotState(3);
        regionalFailover(1, List.of());
        // the abort notification of 3 was lost, and 3's completion can no longer happen; even a
        // stray completion of 3 must not confirm
        enumerator.notifyCheckpointComplete(3);
        assertThat(enumerator.isForwardMode()).isFalse();
    }

    @Test
    void aReaderRestoredWithOlderStateAfterForwardModeMakesTheSourceLeaveIt() throws Throwable {
        reportAll(FINISHED);
        enumerator.snapshotState(1);
        enumerator.notifyCheckpointComplete(1);
        assertThat(enumerator.isForwardMode()).isTrue();

        regionalFailover(1, List.of());
        assertThat(enumerator.isForwardMode()).isFalse();
        assertThat(context.backlogSignals).endsWith(true, false, true);
        // in-memory status said FINISHED; nothing is trusted until the restored reader reports
        enumerator.snapshotState(2);
        enumerator.notifyCheckpointComplete(2);
        assertThat(enumerator.isForwardMode()).isFalse();

        report(1, CACHING_UP, owned(1).toArray(new String[0]));
        assertThat(enumerator.tracker().get(owned(1).get(0)).state()).isEqualTo(CACHING_UP);
        report(1, FINISHED, owned(1).toArray(new String[0]));
        enumerator.snapshotState(3);
        enumerator.notifyCheckpointComplete(3);
        assertThat(forwardEvents(0)).containsExactly(1L, 3L);
    }

    @Test
    void anEmptyStatusTableNeverCountsAsAllFinished() throws Throwable {
        context.close();
        context = new RecordingContext(PARALLELISM);
        discoverer.splits.clear();
        enumerator = newEnumerator(null);
        enumerator.start();
        context.runNextOneTimeCallable();
        registerReader(0);
        enumerator.snapshotState(1);
        enumerator.notifyCheckpointComplete(1);
        assertThat(enumerator.isForwardMode()).isFalse();
    }

    @Test
    void aSplitWhoseReaderIsNotRegisteredBlocksForwardMode() throws Throwable {
        context.close();
        context = new RecordingContext(PARALLELISM);
        enumerator = newEnumerator(null);
        enumerator.start();
        context.runNextOneTimeCallable();
        registerReader(0);
        report(0, FINISHED, owned(0).toArray(new String[0]));
        enumerator.snapshotState(1);
        enumerator.notifyCheckpointComplete(1);
        assertThat(enumerator.isForwardMode()).isFalse();
    }

    // ------------------------------------------------------------------ failover and new splits

    @Test
    void splitsGivenBackAreReassignedAsGivenAndWaitForConfirmation() throws Throwable {
        reportAll(FINISHED);
        String id = owned(0).get(0);
        BackfillSplit asAssigned = new BackfillSplit(id, BACKFILLING, 0, 100, OptionalLong.empty());
        int assignmentsBefore = context.getSplitsAssignmentSequence().size();

        regionalFailover(0, List.of(asAssigned));
        List<SplitsAssignment<BackfillSplit>> sequence = context.getSplitsAssignmentSequence();
        assertThat(sequence).hasSize(assignmentsBefore + 1);
        assertThat(sequence.get(sequence.size() - 1).assignment())
                .containsOnlyKeys(0)
                .containsEntry(0, List.of(asAssigned));
        TrackedSplit tracked = enumerator.tracker().get(id);
        assertThat(tracked.state()).isEqualTo(BACKFILLING);
        assertThat(tracked.isConfirmed()).isFalse();

        enumerator.snapshotState(1);
        enumerator.notifyCheckpointComplete(1);
        assertThat(enumerator.isForwardMode()).isFalse();
    }

    @Test
    void aSplitDiscoveredAfterForwardModeThatNeedsBackfillLeavesForwardMode() throws Throwable {
        enterForwardMode(1);
        discoverer.splits.add(DiscoveredSplit.backfilled("s-4", 0, 50));
        enumerator.start();
        context.runNextOneTimeCallable();
        assertThat(enumerator.isForwardMode()).isFalse();
        assertThat(enumerator.tracker().get("s-4").state()).isEqualTo(BACKFILLING);
        assertThat(context.backlogSignals).endsWith(false, true);
    }

    @Test
    void aSplitDiscoveredAfterForwardModeThatTheLiveReadsWholeStartsFinished() throws Throwable {
        enterForwardMode(1);
        discoverer.splits.add(DiscoveredSplit.readByLive("s-4", 0));
        enumerator.start();
        context.runNextOneTimeCallable();
        assertThat(enumerator.tracker().get("s-4").state()).isEqualTo(FINISHED);
        int owner = BackfillSplitEnumerator.ownerOf("s-4", PARALLELISM);
        assertThat(owned(owner)).contains("s-4");
        // forward mode goes on for the others; the new split still needs its reader's word
        // before a later checkpoint may confirm again
        enumerator.snapshotState(2);
        assertThat(enumerator.tracker().allConfirmedFinished()).isFalse();
        report(owner, FINISHED, "s-4");
        assertThat(enumerator.tracker().allConfirmedFinished()).isTrue();
    }

    @Test
    void periodicDiscoveryFindsSplitsWhileRunning() throws Throwable {
        context.close();
        context = new RecordingContext(PARALLELISM);
        discoverer.calls.clear();
        enumerator =
                new BackfillSplitEnumerator(
                        context, discoverer, false, Duration.ofSeconds(1), null);
        enumerator.start();
        assertThat(context.getPeriodicCallables()).hasSize(1);
        context.runPeriodicCallable(0);
        assertThat(discoverer.calls).containsExactly(true);
        discoverer.splits.add(DiscoveredSplit.readByLive("s-9", 0));
        context.runPeriodicCallable(0);
        assertThat(discoverer.calls).containsExactly(true, false);
        assertThat(enumerator.tracker().get("s-9").state()).isEqualTo(FINISHED);
    }

    @Test
    void snapshotRestoreRoundTripKeepsTheTableAndTrustsNothing() throws Throwable {
        report(0, FINISHED, owned(0).toArray(new String[0]));
        report(1, CACHING_UP, owned(1).get(0));
        discoverer.splits.add(DiscoveredSplit.backfilled("s-pending", 0, 10));
        context.unregisterReader(BackfillSplitEnumerator.ownerOf("s-pending", PARALLELISM));
        enumerator.start();
        context.runNextOneTimeCallable();

        BackfillEnumeratorState state = enumerator.snapshotState(7);
        BackfillEnumeratorStateSerializer serializer = new BackfillEnumeratorStateSerializer();
        BackfillEnumeratorState restored =
                serializer.deserialize(serializer.getVersion(), serializer.serialize(state));
        assertThat(restored).isEqualTo(state);
        assertThat(restored.initialDiscoveryDone()).isTrue();

        context.close();
        context = new RecordingContext(PARALLELISM);
        enumerator = newEnumerator(restored);
        enumerator.start();
        context.runNextOneTimeCallable();
        assertThat(discoverer.calls).endsWith(false);
        registerReader(0);
        registerReader(1);
        // only the split that was pending is assigned; the others are in the readers' state
        List<String> assigned = new ArrayList<>(owned(0));
        assigned.addAll(owned(1));
        assertThat(assigned).containsExactly("s-pending");
        assertThat(enumerator.tracker().get("s-0").isConfirmed()).isFalse();
        assertThat(enumerator.tracker().countUnconfirmed()).isEqualTo(5);
        enumerator.snapshotState(8);
        enumerator.notifyCheckpointComplete(8);
        assertThat(enumerator.isForwardMode()).isFalse();
    }

    @Test
    void boundedSourceNeedsAStoppingOffsetPerSplitAndSignalsNoMoreSplits() throws Throwable {
        context.close();
        context = new RecordingContext(PARALLELISM);
        FakeDiscoverer bounded = new FakeDiscoverer();
        bounded.mayDiscoverMore = false;
        bounded.splits.add(DiscoveredSplit.backfilled("s-0", 0, 10).withStoppingOffset(20));
        enumerator = new BackfillSplitEnumerator(context, bounded, true, Duration.ZERO, null);
        enumerator.start();
        context.runNextOneTimeCallable();
        registerReader(0);
        registerReader(1);
        assertThat(context.hasNoMoreSplits(0)).isTrue();
        assertThat(context.hasNoMoreSplits(1)).isTrue();
        // readers told that no more splits come may finish: no event may reach them
        assertThat(context.toReader.get(0)).doesNotContain("AssignmentSentEvent");
        assertThat(context.toReader.get(1)).isNull();

        bounded.splits.add(DiscoveredSplit.backfilled("s-unbounded", 0, 10));
        BackfillSplitEnumerator other =
                new BackfillSplitEnumerator(context, bounded, true, Duration.ZERO, null);
        other.start();
        assertThatThrownBy(context::runNextOneTimeCallable)
                .hasStackTraceContaining("split s-unbounded has no stopping offset");
    }

    @Test
    void forwardModeIsNotSentToABoundedReaderThatMayHaveFinished() throws Throwable {
        startBoundedWithOneSplitPerReader();
        String ended = owned(0).get(0);
        String live = owned(1).get(0);
        reportFrom(0, incarnation.get(0), List.of(new SplitStatus(ended, FINISHED, 20, true)));
        report(1, FINISHED, live);
        enumerator.snapshotState(1);
        enumerator.notifyCheckpointComplete(1);
        assertThat(enumerator.isForwardMode()).isTrue();
        // reader 0 was told no more splits come and its only split ended: it may be gone, and an
        // event to a finished task fails the job
        assertThat(forwardEvents(0)).isEmpty();
        assertThat(forwardEvents(1)).containsExactly(1L);
    }

    /**
     * A bounded source whose splits all ended (an Iceberg table's history and a bounded topic, the
     * topic's live part ending first): the completed checkpoint whose snapshot recorded every end
     * confirms forward mode, so the log's hook runs (the Iceberg adapter removes its snapshot tag),
     * once; no reader gets the event, as each was told no more splits come and may be gone.
     */
    @Test
    void aBoundedSourceWhoseSplitsAllEndedConfirmsForwardModeAndCallsTheHookOnce()
            throws Throwable {
        startBoundedWithOneSplitPerReader();
        String first = owned(0).get(0);
        String second = owned(1).get(0);
        reportFrom(0, incarnation.get(0), List.of(new SplitStatus(first, FINISHED, 20, true)));
        reportFrom(1, incarnation.get(1), List.of(new SplitStatus(second, FINISHED, 20, true)));

        enumerator.snapshotState(1);
        enumerator.notifyCheckpointComplete(1);
        assertThat(enumerator.isForwardMode()).isTrue();
        context.runNextOneTimeCallable();
        assertThat(discoverer.forwardModeCalls).containsExactly("1 [s-0, s-1]");
        assertThat(forwardEvents(0)).isEmpty();
        assertThat(forwardEvents(1)).isEmpty();

        enumerator.snapshotState(2);
        enumerator.notifyCheckpointComplete(2);
        assertThat(context.getOneTimeCallables()).as("the hook runs once").isEmpty();
        assertThat(discoverer.forwardModeCalls).hasSize(1);
    }

    /**
     * As the e2e Iceberg run with a tag: one reader's split ends and a checkpoint records it, the
     * reader is reset (a task manager lost) and, restored finished or not yet running, reports
     * nothing; the other reader's split ends last. The end recorded in a completed checkpoint stays
     * trusted across the reset, and the next completed checkpoint confirms forward mode.
     */
    @Test
    void aBoundedSourceConfirmsForwardModeAfterAResetReaderWhoseEndedSplitWasCheckpointed()
            throws Throwable {
        startBoundedWithOneSplitPerReader();
        String first = owned(0).get(0);
        String second = owned(1).get(0);
        report(0, BACKFILLING, first);
        reportFrom(1, incarnation.get(1), List.of(new SplitStatus(second, FINISHED, 20, true)));
        enumerator.snapshotState(1);
        enumerator.notifyCheckpointComplete(1);
        assertThat(enumerator.isForwardMode()).isFalse();

        regionalFailover(1, List.of());
        enumerator.snapshotState(2);
        enumerator.notifyCheckpointComplete(2);
        assertThat(enumerator.isForwardMode()).isFalse();

        reportFrom(0, incarnation.get(0), List.of(new SplitStatus(first, FINISHED, 20, true)));
        enumerator.snapshotState(3);
        enumerator.notifyCheckpointComplete(3);
        assertThat(enumerator.isForwardMode()).isTrue();
        context.runNextOneTimeCallable();
        assertThat(discoverer.forwardModeCalls).containsExactly("3 [s-0, s-1]");
        assertThat(forwardEvents(0)).isEmpty();
        assertThat(forwardEvents(1)).isEmpty();
    }

    /**
     * The same when the reset reader's end was not yet in a completed checkpoint: the end is
     * forgotten until the restored reader reports it again, and only a checkpoint whose snapshot
     * has it again confirms forward mode.
     */
    @Test
    void aBoundedSourceWaitsForAResetReaderToReportAnEndNoCheckpointRecorded() throws Throwable {
        startBoundedWithOneSplitPerReader();
        String first = owned(0).get(0);
        String second = owned(1).get(0);
        reportFrom(0, incarnation.get(0), List.of(new SplitStatus(first, FINISHED, 20, true)));
        reportFrom(1, incarnation.get(1), List.of(new SplitStatus(second, FINISHED, 20, true)));
        enumerator.snapshotState(1);
        // checkpoint 1 never completes: reader 1 is restored to older state
        regionalFailover(1, List.of());
        enumerator.notifyCheckpointAborted(1);
        enumerator.snapshotState(2);
        enumerator.notifyCheckpointComplete(2);
        assertThat(enumerator.isForwardMode()).isFalse();
        assertThat(context.getOneTimeCallables()).isEmpty();

        // the restored reader reports the split it was given back in its state, then its end
        report(1, BACKFILLING, second);
        reportFrom(1, incarnation.get(1), List.of(new SplitStatus(second, FINISHED, 20, true)));
        enumerator.snapshotState(3);
        enumerator.notifyCheckpointComplete(3);
        assertThat(enumerator.isForwardMode()).isTrue();
        context.runNextOneTimeCallable();
        assertThat(discoverer.forwardModeCalls).containsExactly("3 [s-0, s-1]");
        assertThat(forwardEvents(1)).isEmpty();
    }

    @Test
    void aBoundedSourceTellsEachReaderOnceThatNoMoreSplitsComeAndSendsNoBacklogSignalNearTheEnd()
            throws Throwable {
        startBoundedWithOneSplitPerReader();
        String ended = owned(0).get(0);
        String live = owned(1).get(0);
        // every later call that assigns (reports, readers registering) must not signal again
        reportFrom(0, incarnation.get(0), List.of(new SplitStatus(ended, FINISHED, 20, true)));
        report(1, FINISHED, live);
        enumerator.addReader(1);
        assertThat(context.noMoreSplitsSignals).containsExactly(0, 1);
        List<Boolean> backlogBefore = new ArrayList<>(context.backlogSignals);

        enumerator.snapshotState(1);
        enumerator.notifyCheckpointComplete(1);
        assertThat(enumerator.isForwardMode()).isTrue();
        // reader 0 may be finishing: Flink would send the backlog signal to it as an event
        assertThat(context.backlogSignals).isEqualTo(backlogBefore);

        // a reset reader registers again and is told again, once
        regionalFailover(1, List.of());
        enumerator.addReader(1);
        assertThat(context.noMoreSplitsSignals).containsExactly(0, 1, 1);
    }

    /**
     * A bounded source signals no backlog at all: Flink sends the signal to a reader as an event
     * right after the reader registered, after {@code addReader} may have told it that no more
     * splits come; a reader without a split then finishes at once, and the late event failed the
     * job (seen in {@code KafkaConnectorParityITCase} on a loaded machine).
     */
    @Test
    void aBoundedSourceSignalsNoBacklog() throws Throwable {
        startBoundedWithOneSplitPerReader();
        report(0, FINISHED, owned(0).get(0));
        report(1, FINISHED, owned(1).get(0));
        enumerator.snapshotState(1);
        enumerator.notifyCheckpointComplete(1);
        assertThat(enumerator.isForwardMode()).isTrue();
        assertThat(context.backlogSignals).isEmpty();
    }

    @Test
    void anUnboundedSourceSignalsBacklogUntilForwardModeAndAgainWhenItLeavesIt() throws Throwable {
        assertThat(context.backlogSignals).containsExactly(true);
        enterForwardMode(1);
        assertThat(context.backlogSignals).containsExactly(true, false);
        regionalFailover(0, List.of());
        assertThat(context.backlogSignals).containsExactly(true, false, true);
    }

    @Test
    void anEndedSplitCountsAsDoneButComesBackIfItsReaderIsRestoredBeforeTheEnd() throws Exception {
        reportAll(FINISHED);
        String id = owned(0).get(0);
        reportFrom(0, incarnation.get(0), List.of(new SplitStatus(id, FINISHED, 100, true)));
        assertThat(enumerator.tracker().get(id).isEnded()).isTrue();
        enumerator.snapshotState(1);
        // checkpoint 1 never completes; the reader is restored to a state that still holds it
        regionalFailover(0, List.of());
        assertThat(enumerator.tracker().get(id).isEnded()).isFalse();

        // had checkpoint 1 completed, the end would have been kept
        report(0, FINISHED, owned(0).toArray(new String[0]));
        reportFrom(0, incarnation.get(0), List.of(new SplitStatus(id, FINISHED, 100, true)));
        enumerator.snapshotState(2);
        enumerator.notifyCheckpointComplete(2);
        regionalFailover(0, List.of());
        assertThat(enumerator.tracker().get(id).isEnded()).isTrue();
    }

    // ------------------------------------------------------------------ helpers

    /** A bounded source over two splits with stops, one per reader, both readers registered. */
    private void startBoundedWithOneSplitPerReader() throws Throwable {
        context.close();
        context = new RecordingContext(PARALLELISM);
        FakeDiscoverer bounded = new FakeDiscoverer();
        bounded.mayDiscoverMore = false;
        bounded.splits.add(DiscoveredSplit.backfilled("s-0", 0, 10).withStoppingOffset(20));
        bounded.splits.add(DiscoveredSplit.backfilled("s-1", 0, 10).withStoppingOffset(20));
        discoverer = bounded;
        enumerator = new BackfillSplitEnumerator(context, bounded, true, Duration.ZERO, null);
        enumerator.start();
        context.runNextOneTimeCallable();
        registerReader(0);
        registerReader(1);
    }

    /** Forward mode confirmed, and the log's hook on it run (in the worker thread). */
    private void enterForwardMode(long checkpointId) throws Throwable {
        reportAll(FINISHED);
        enumerator.snapshotState(checkpointId);
        enumerator.notifyCheckpointComplete(checkpointId);
        assertThat(enumerator.isForwardMode()).isTrue();
        context.runNextOneTimeCallable();
        assertThat(discoverer.forwardModeCalls).last().asString().startsWith(checkpointId + " ");
    }

    private static List<SplitStatus> statuses(List<String> ids, HandoverState state) {
        return ids.stream()
                .map(id -> new SplitStatus(id, state, 100, false))
                .collect(Collectors.toList());
    }

    /** Flink's mock context, recording the backlog signals too. */
    static final class RecordingContext extends MockSplitEnumeratorContext<BackfillSplit> {
        final List<Boolean> backlogSignals = new CopyOnWriteArrayList<>();
        final List<Integer> noMoreSplitsSignals = new CopyOnWriteArrayList<>();

        /** What went to each reader, in order: "assign s-0,s-2" and events by their names. */
        final Map<Integer, List<String>> toReader = new HashMap<>();

        RecordingContext(int parallelism) {
            super(parallelism);
        }

        @Override
        public void assignSplits(SplitsAssignment<BackfillSplit> assignment) {
            assignment
                    .assignment()
                    .forEach(
                            (subtask, splits) ->
                                    toReader.computeIfAbsent(subtask, k -> new ArrayList<>())
                                            .add(
                                                    "assign "
                                                            + splits.stream()
                                                                    .map(BackfillSplit::splitId)
                                                                    .collect(
                                                                            Collectors.joining(
                                                                                    ","))));
            super.assignSplits(assignment);
        }

        @Override
        public void sendEventToSourceReader(int subtask, SourceEvent event) {
            toReader.computeIfAbsent(subtask, k -> new ArrayList<>())
                    .add(event.getClass().getSimpleName());
            super.sendEventToSourceReader(subtask, event);
        }

        @Override
        public void signalNoMoreSplits(int subtask) {
            noMoreSplitsSignals.add(subtask);
            super.signalNoMoreSplits(subtask);
        }

        @Override
        public void setIsProcessingBacklog(boolean isProcessingBacklog) {
            backlogSignals.add(isProcessingBacklog);
        }
    }

    /** A discoverer whose answer the test sets. */
    static class FakeDiscoverer implements LogSplitDiscoverer {
        final List<DiscoveredSplit> splits = new CopyOnWriteArrayList<>();
        final List<Boolean> calls = new CopyOnWriteArrayList<>();
        final List<String> forwardModeCalls = new CopyOnWriteArrayList<>();
        final List<String> lifecycle = new CopyOnWriteArrayList<>();
        final List<Set<String>> forwardModeVersions = new CopyOnWriteArrayList<>();
        volatile boolean mayDiscoverMore = true;
        volatile boolean failOnForwardMode;

        @Override
        public void onForwardMode(
                long checkpointId, Set<String> splitIds, Set<String> historyVersions) {
            forwardModeCalls.add(checkpointId + " " + splitIds);
            lifecycle.add("forward mode " + checkpointId);
            forwardModeVersions.add(historyVersions);
            if (failOnForwardMode) {
                throw new IllegalStateException("the log's action failed");
            }
        }

        @Override
        public List<DiscoveredSplit> discoverSplits(boolean initial) {
            calls.add(initial);
            return new ArrayList<>(splits);
        }

        @Override
        public boolean mayDiscoverMoreSplits() {
            return mayDiscoverMore;
        }

        @Override
        public void close() {
            lifecycle.add("closed");
        }
    }
}
