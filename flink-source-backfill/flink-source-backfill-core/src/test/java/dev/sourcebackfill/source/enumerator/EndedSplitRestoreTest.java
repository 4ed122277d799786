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

import dev.sourcebackfill.source.BackfillListener;
import dev.sourcebackfill.source.BackfillSourceConfig;
import dev.sourcebackfill.source.enumerator.BackfillSplitEnumeratorTest.FakeDiscoverer;
import dev.sourcebackfill.source.enumerator.BackfillSplitEnumeratorTest.RecordingContext;
import dev.sourcebackfill.source.event.SplitStatusReportEvent;
import dev.sourcebackfill.source.reader.BackfillSourceReader;
import dev.sourcebackfill.source.spi.DiscoveredSplit;
import dev.sourcebackfill.source.split.BackfillSplit;
import dev.sourcebackfill.source.split.HandoverState;
import dev.sourcebackfill.source.testutils.FakeLog;
import dev.sourcebackfill.source.testutils.IdleAwareReaderOutput;

import org.apache.flink.api.connector.source.ReaderInfo;
import org.apache.flink.api.connector.source.SourceEvent;
import org.apache.flink.api.connector.source.SplitsAssignment;
import org.apache.flink.connector.testutils.source.reader.TestingReaderContext;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A bounded split that ended, and a reader restored from a checkpoint the enumerator has not (or
 * not durably) recorded the end in: the real reader and the real enumerator, wired by hand, one
 * subtask. Split {@code a} ends at offset 3; split {@code b} is unbounded and goes live. Forward
 * mode must be confirmed again after the restore, in both orders of notification and reset.
 */
class EndedSplitRestoreTest {

    private final FakeLog log = new FakeLog(true).write("a", 0, 1, 2).write("b", 0, 1);
    private final BackfillEnumeratorStateSerializer stateSerializer =
            new BackfillEnumeratorStateSerializer();
    private final List<BackfillSourceReader<String>> readers = new ArrayList<>();
    private RecordingContext enumContext;
    private BackfillSplitEnumerator enumerator;
    private TestingReaderContext readerContext;
    private BackfillSourceReader<String> reader;
    private final IdleAwareReaderOutput<String> output = new IdleAwareReaderOutput<>();
    private int assignmentsDelivered;
    private int eventsDelivered;

    @AfterEach
    void close() throws Throwable {
        for (BackfillSourceReader<String> r : readers) {
            r.close();
        }
        if (enumContext != null) {
            enumContext.close();
        }
    }

    @Test
    void aReaderResetBeforeTheEnumeratorHeardOfTheCheckpointReportsTheEndAgain() throws Throwable {
        startEnumerator(null);
        startReader(null);
        pollUntil("a ended and b finished", this::aEndedAndBFinished);
        List<BackfillSplit> readerState = reader.snapshotState(5);
        enumerator.snapshotState(5);
        assertThat(enumerator.tracker().get("a").isEnded()).isTrue();

        // checkpoint 5 completes, but the notification has not reached the enumerator when the
        // subtask fails and is restored from checkpoint 5
        enumContext.unregisterReader(0);
        enumerator.addSplitsBack(List.of(), 0);
        startReader(readerState);
        pump();
        enumerator.notifyCheckpointComplete(5);

        confirmForwardModeWith(6);
    }

    @Test
    void anEndReportedJustAfterTheEnumeratorsSnapshotIsReportedAgainAfterAGlobalRestore()
            throws Throwable {
        startEnumerator(null);
        startReader(null);
        // the reader's reports stay in flight while the enumerator takes its snapshot
        pollReaderUntil("a ended and b finished", () -> readerReportedEnded("a"));
        byte[] enumeratorState = stateSerializer.serialize(enumerator.snapshotState(5));
        pump();
        List<BackfillSplit> readerState = reader.snapshotState(5);

        // global failover to checkpoint 5: new enumerator from its state, new reader from its own
        BackfillEnumeratorState restored =
                stateSerializer.deserialize(stateSerializer.getVersion(), enumeratorState);
        assertThat(restored.splits())
                .as("the enumerator's snapshot did not have the end")
                .noneMatch(BackfillEnumeratorState.SplitEntry::ended);
        enumContext.close();
        startEnumerator(restored);
        startReader(readerState);
        pump();

        confirmForwardModeWith(6);
        assertThat(enumerator.tracker().get("a").isEnded()).isTrue();
    }

    // ------------------------------------------------------------------ wiring

    private void startEnumerator(BackfillEnumeratorState restored) throws Throwable {
        enumContext = new RecordingContext(1);
        FakeDiscoverer discoverer = new FakeDiscoverer();
        discoverer.splits.add(DiscoveredSplit.backfilled("a", 0, 3).withStoppingOffset(3));
        discoverer.splits.add(DiscoveredSplit.backfilled("b", 0, 2));
        enumerator =
                new BackfillSplitEnumerator(
                        enumContext, discoverer, false, Duration.ZERO, restored);
        enumerator.start();
        enumContext.runNextOneTimeCallable();
        assignmentsDelivered = 0;
        eventsDelivered = 0;
    }

    /** A new reader incarnation on subtask 0, restored from {@code state} if given. */
    private void startReader(List<BackfillSplit> state) throws Exception {
        readerContext = new TestingReaderContext();
        reader =
                BackfillSourceReader.create(
                        log,
                        BackfillSourceConfig.<String>defaults()
                                .withPollTimeout(Duration.ofMillis(5))
                                .withListener(BackfillListener.NO_OP),
                        readerContext);
        readers.add(reader);
        reader.start();
        if (state != null) {
            // Flink gives a restored reader its checkpointed splits without the enumerator
            reader.addSplits(state);
        }
        enumContext.registerReader(new ReaderInfo(0, "localhost"));
        enumerator.addReader(0);
        pump();
    }

    /** Delivers the events each side sent to the other, until none is left. */
    private void pump() throws Exception {
        boolean moved = true;
        while (moved) {
            moved = false;
            List<SplitsAssignment<BackfillSplit>> assignments =
                    enumContext.getSplitsAssignmentSequence();
            for (; assignmentsDelivered < assignments.size(); assignmentsDelivered++) {
                reader.addSplits(
                        assignments
                                .get(assignmentsDelivered)
                                .assignment()
                                .getOrDefault(0, List.of()));
                moved = true;
            }
            List<SourceEvent> toEnumerator = new ArrayList<>(readerContext.getSentEvents());
            readerContext.clearSentEvents();
            for (SourceEvent event : toEnumerator) {
                enumerator.handleSourceEvent(0, event);
                moved = true;
            }
            // the mock context gives a copy of everything sent so far
            List<SourceEvent> toReader =
                    enumContext.getSentSourceEvent().getOrDefault(0, List.of());
            for (; eventsDelivered < toReader.size(); eventsDelivered++) {
                reader.handleSourceEvents(toReader.get(eventsDelivered));
                moved = true;
            }
        }
    }

    private void confirmForwardModeWith(long checkpointId) throws Exception {
        pollUntil("b finished after the restore", this::aEndedAndBFinished);
        enumerator.snapshotState(checkpointId);
        enumerator.notifyCheckpointComplete(checkpointId);
        assertThat(enumerator.isForwardMode())
                .as("forward mode confirmed by checkpoint %d", checkpointId)
                .isTrue();
        pump();
        assertThat(reader.isForwardMode()).isTrue();
        assertThat(reader.forwardModeCheckpoint()).hasValue(checkpointId);
    }

    private boolean aEndedAndBFinished() {
        TrackedSplit a = enumerator.tracker().get("a");
        TrackedSplit b = enumerator.tracker().get("b");
        return a != null && a.isEnded() && b != null && b.isConfirmedFinished();
    }

    private boolean readerReportedEnded(String splitId) {
        return readerContext.getSentEvents().stream()
                .filter(e -> e instanceof SplitStatusReportEvent)
                .flatMap(e -> ((SplitStatusReportEvent) e).statuses().stream())
                .anyMatch(s -> s.splitId().equals(splitId) && s.ended());
    }

    private void pollUntil(String what, BooleanSupplier condition) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as("waiting for " + what).isLessThan(deadline);
            reader.pollNext(output);
            pump();
            Thread.sleep(1);
        }
    }

    private void pollReaderUntil(String what, BooleanSupplier condition) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as("waiting for " + what).isLessThan(deadline);
            reader.pollNext(output);
            Thread.sleep(1);
        }
        // b must be FINISHED in the reader too before the snapshot
        while (reader.snapshotState(-1).stream()
                .anyMatch(s -> s.splitId().equals("b") && s.state() != HandoverState.FINISHED)) {
            assertThat(System.nanoTime()).as("waiting for b to finish").isLessThan(deadline);
            reader.pollNext(output);
            Thread.sleep(1);
        }
    }
}
