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
import dev.sourcebackfill.source.OffsetGapPolicy;
import dev.sourcebackfill.source.SplitTransition;
import dev.sourcebackfill.source.event.AssignmentSentEvent;
import dev.sourcebackfill.source.event.CheckpointCompletedEvent;
import dev.sourcebackfill.source.event.ForwardModeEvent;
import dev.sourcebackfill.source.event.ReportAcknowledgedEvent;
import dev.sourcebackfill.source.event.SplitStatus;
import dev.sourcebackfill.source.event.SplitStatusReportEvent;
import dev.sourcebackfill.source.metrics.BackfillReaderMetrics;
import dev.sourcebackfill.source.split.BackfillSplit;
import dev.sourcebackfill.source.split.HandoverState;
import dev.sourcebackfill.source.testutils.FakeLog;
import dev.sourcebackfill.source.testutils.IdleAwareReaderOutput;

import org.apache.flink.api.connector.source.SourceOutput;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.testutils.source.reader.TestingReaderContext;
import org.apache.flink.connector.testutils.source.reader.TestingReaderOutput;
import org.apache.flink.core.io.InputStatus;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Metric;
import org.apache.flink.runtime.metrics.groups.GenericMetricGroup;
import org.apache.flink.runtime.metrics.groups.InternalSourceReaderMetricGroup;
import org.apache.flink.runtime.metrics.groups.UnregisteredMetricGroups;
import org.apache.flink.runtime.metrics.util.TestingMetricRegistry;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;

import static dev.sourcebackfill.source.split.HandoverState.BACKFILLING;
import static dev.sourcebackfill.source.split.HandoverState.CACHING_UP;
import static dev.sourcebackfill.source.split.HandoverState.FINISHED;
import static org.assertj.core.api.Assertions.assertThat;

/** The reader's side of the protocol, on Flink's testing reader context. */
class BackfillSourceReaderTest {

    /** The reader's context; a test may give the next reader a fresh one. */
    private TestingReaderContext context = new TestingReaderContext();

    private final IdleAwareReaderOutput<String> output = new IdleAwareReaderOutput<>();
    private BackfillSourceReader<String> reader;

    private BackfillSourceReader<String> start(FakeLog log) throws Exception {
        reader =
                BackfillSourceReader.create(
                        log,
                        BackfillSourceConfig.<String>defaults()
                                .withPollTimeout(Duration.ofMillis(5))
                                .withListener(BackfillListener.NO_OP),
                        context);
        reader.start();
        return reader;
    }

    @AfterEach
    void close() throws Exception {
        if (reader != null) {
            reader.close();
        }
    }

    private static BackfillSplit split(String id, HandoverState state, long next, long target) {
        return new BackfillSplit(id, state, next, target, OptionalLong.empty());
    }

    private void pollUntil(String what, BooleanSupplier condition) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as("waiting for " + what).isLessThan(deadline);
            reader.pollNext(output);
            Thread.sleep(1);
        }
    }

    private List<SplitStatusReportEvent> reports() {
        return context.getSentEvents().stream()
                .filter(e -> e instanceof SplitStatusReportEvent)
                .map(e -> (SplitStatusReportEvent) e)
                .collect(Collectors.toList());
    }

    private List<SplitStatus> reportedStatuses() {
        return reports().stream().flatMap(r -> r.statuses().stream()).collect(Collectors.toList());
    }

    /**
     * More readers than splits: one without a split must not hold the job's watermark back, but
     * only once it knows its splits were sent (a reader still waiting for them is not idle).
     */
    @Test
    void aReaderWithoutSplitsMarksItsOutputIdleAndOneWithASplitDoesNot() throws Exception {
        start(new FakeLog(true));
        reader.pollNext(output);
        assertThat(output.idleMarks())
                .as("idle marks before the enumerator said every split was sent")
                .isZero();
        reader.handleSourceEvents(new AssignmentSentEvent());
        assertThat(output.idleMarks()).isEqualTo(1);
        reader.pollNext(output);
        assertThat(output.idleMarks()).isEqualTo(2);

        IdleAwareReaderOutput<String> holding = new IdleAwareReaderOutput<>();
        reader.addSplits(List.of(split("r", FINISHED, 7, 7)));
        for (int i = 0; i < 20; i++) {
            reader.pollNext(holding);
            Thread.sleep(1);
        }
        assertThat(holding.idleMarks()).as("idle marks while holding a split").isZero();
    }

    @Test
    void reportsEverySplitItIsGivenAndEveryTransitionInOrder() throws Exception {
        FakeLog log = new FakeLog(true).write("a", 0, 1, 2);
        start(log);
        reader.addSplits(List.of(split("a", BACKFILLING, 0, 3), split("r", FINISHED, 7, 7)));
        assertThat(reportedStatuses())
                .containsExactly(
                        new SplitStatus("a", BACKFILLING, 0, false),
                        new SplitStatus("r", FINISHED, 7, false));
        pollUntil("a finished", () -> reportedStatuses().size() == 4);
        assertThat(reportedStatuses().subList(2, 4))
                .containsExactly(
                        new SplitStatus("a", CACHING_UP, 3, false),
                        new SplitStatus("a", FINISHED, 3, false));
        assertThat(output.getEmittedRecords()).containsExactly("a@0", "a@1", "a@2");
        // the checkpointed split state is what was emitted (three records from the backfill)
        assertThat(reader.snapshotState(1))
                .contains(
                        new BackfillSplit("a", FINISHED, 3, 3, OptionalLong.empty(), 3),
                        split("r", FINISHED, 7, 7));
    }

    /**
     * Splits handed over together are reported together: the transitions of a fetch travel in as
     * few reports as hold each split once, not in one event each (thousands of splits handed over
     * at once would otherwise flood the coordinator's event loop).
     */
    @Test
    void splitsHandedOverTogetherAreReportedInFewReports() throws Exception {
        FakeLog log = new FakeLog(true);
        start(log);
        List<BackfillSplit> splits = new java.util.ArrayList<>();
        for (int i = 0; i < 50; i++) {
            splits.add(split("s" + i, BACKFILLING, 0, 0)); // nothing to backfill
        }
        reader.addSplits(splits);
        assertThat(reports()).hasSize(1); // the splits it was given
        pollUntil(
                "every split FINISHED",
                () -> reportedStatuses().stream().filter(s -> s.state() == FINISHED).count() == 50);
        List<SplitStatusReportEvent> reports = reports();
        assertThat(reports)
                .as("reports: given, then CACHING_UP of all, then FINISHED of all")
                .hasSize(3);
        for (SplitStatusReportEvent report : reports) {
            assertThat(report.statuses())
                    .extracting(SplitStatus::splitId)
                    .as("a report holds each split once")
                    .doesNotHaveDuplicates();
        }
        // every transition of every split, in order
        for (int i = 0; i < 50; i++) {
            String id = "s" + i;
            assertThat(reportedStatuses())
                    .filteredOn(s -> s.splitId().equals(id))
                    .extracting(SplitStatus::state)
                    .containsExactly(BACKFILLING, CACHING_UP, FINISHED);
        }
    }

    /**
     * A transition applied in the middle of a fetch is reported at the reader's next snapshot, not
     * only once the whole fetch was emitted. One fetch holds split "a" (3 records, then CACHING_UP
     * and FINISHED) before split "b" (2000 records): the reader emits one record per poll, so when
     * a's transitions are applied 1999 of b's records are still to come and nothing but the
     * snapshot sends them.
     */
    @Test
    void aTransitionAppliedMidFetchIsReportedAtTheSnapshot() throws Exception {
        List<SplitTransition> applied = new CopyOnWriteArrayList<>();
        BackfillListener listener =
                new BackfillListener() {
                    @Override
                    public void onTransition(SplitTransition transition) {
                        applied.add(transition);
                    }
                };
        long[] offsets = new long[2000];
        for (int i = 0; i < offsets.length; i++) {
            offsets[i] = i;
        }
        FakeLog log = new FakeLog(true).write("a", 0, 1, 2).write("b", offsets);
        reader =
                BackfillSourceReader.create(
                        log,
                        BackfillSourceConfig.<String>defaults()
                                .withPollTimeout(Duration.ofMillis(5))
                                .withListener(listener),
                        context);
        reader.start();
        // one addition: the fetcher takes both splits before its first fetch, a first
        reader.addSplits(List.of(split("a", BACKFILLING, 0, 3), split("b", BACKFILLING, 0, 2000)));
        pollUntil("a's transitions", () -> applied.size() == 2);
        assertThat(output.getEmittedRecords())
                .as("records emitted when a's transitions were applied (the poll goes on to b)")
                .containsExactly("a@0", "a@1", "a@2", "b@0");
        assertThat(reports()).as("reports before the snapshot: the splits given").hasSize(1);

        reader.snapshotState(1);

        assertThat(reportedStatuses())
                .as("reported by the snapshot")
                .containsSubsequence(
                        new SplitStatus("a", CACHING_UP, 3, false),
                        new SplitStatus("a", FINISHED, 3, false));
    }

    /**
     * {@code numRecordsIn} (counted by {@code SourceReaderBase}) is the number of records emitted:
     * the handover transitions travel with the records in each fetch but are not counted.
     */
    @Test
    void numRecordsInCountsTheRecordsEmittedAndNoTransition() throws Exception {
        TestingReaderContext counted =
                new TestingReaderContext(
                        new Configuration(),
                        InternalSourceReaderMetricGroup.wrap(
                                UnregisteredMetricGroups.createUnregisteredOperatorMetricGroup()));
        FakeLog log = new FakeLog(true).write("a", 0, 1, 2, 3, 4).write("b", 0, 1);
        reader =
                BackfillSourceReader.create(
                        log,
                        BackfillSourceConfig.<String>defaults()
                                .withPollTimeout(Duration.ofMillis(5))
                                .withListener(BackfillListener.NO_OP),
                        counted);
        reader.start();
        reader.addSplits(List.of(split("a", BACKFILLING, 0, 3), split("b", BACKFILLING, 0, 1)));
        Counter numRecordsIn = counted.metricGroup().getIOMetricGroup().getNumRecordsInCounter();
        pollUntil("a and b read live", () -> output.getEmittedRecords().size() == 7);
        List<SplitStatus> statuses =
                counted.getSentEvents().stream()
                        .filter(e -> e instanceof SplitStatusReportEvent)
                        .flatMap(e -> ((SplitStatusReportEvent) e).statuses().stream())
                        .collect(Collectors.toList());
        // each split was reported when given, then at CACHING_UP and at FINISHED
        assertThat(statuses).hasSize(6);
        assertThat(numRecordsIn.getCount()).isEqualTo(7);
        assertThat(reader.snapshotState(1)).extracting(BackfillSplit::state).containsOnly(FINISHED);
    }

    @Test
    void sendsUnacknowledgedStatusesAgainAfterACompletedCheckpoint() throws Exception {
        start(new FakeLog(true).write("a", 0));
        reader.addSplits(List.of(split("a", BACKFILLING, 0, 100), split("b", BACKFILLING, 0, 100)));
        SplitStatusReportEvent first = reports().get(0);
        context.clearSentEvents();

        reader.notifyCheckpointComplete(1);
        assertThat(reports()).hasSize(1);
        assertThat(reports().get(0).statuses()).isEqualTo(first.statuses());
        assertThat(reports().get(0).reportId()).isGreaterThan(first.reportId());

        // acknowledging an old incarnation's report changes nothing
        reader.handleSourceEvents(new ReportAcknowledgedEvent(reader.incarnation() + 1, 99));
        assertThat(reader.unacknowledgedReports()).isEqualTo(2);
        reader.handleSourceEvents(
                new ReportAcknowledgedEvent(reader.incarnation(), reports().get(0).reportId()));
        assertThat(reader.unacknowledgedReports()).isZero();
        context.clearSentEvents();
        reader.notifyCheckpointComplete(2);
        assertThat(reports()).isEmpty();
    }

    @Test
    void entersForwardModeOnlyWhenEverySplitItHoldsIsFinished() throws Exception {
        FakeLog log = new FakeLog(true).write("a", 0, 1).write("b", 0);
        start(log);
        reader.addSplits(List.of(split("a", BACKFILLING, 0, 2), split("b", BACKFILLING, 0, 50)));
        pollUntil(
                "a finished",
                () -> reportedStatuses().contains(new SplitStatus("a", FINISHED, 2, false)));

        reader.handleSourceEvents(new ForwardModeEvent(5));
        assertThat(reader.isForwardMode()).as("b still backfills").isFalse();

        log.endAt("b", 50);
        pollUntil(
                "b finished",
                () -> reportedStatuses().contains(new SplitStatus("b", FINISHED, 50, false)));
        reader.handleSourceEvents(new ForwardModeEvent(6));
        assertThat(reader.isForwardMode()).isTrue();
        assertThat(reader.forwardModeCheckpoint()).hasValue(6);
        assertThat(log.calls).doesNotContain("backfill.close");
        pollUntil("backfill reader closed", () -> log.calls.contains("backfill.close"));

        // a split that is not finished makes the reader leave forward mode and backfill it
        log.write("c", 0, 1);
        reader.addSplits(List.of(split("c", BACKFILLING, 0, 2)));
        assertThat(reader.isForwardMode()).isFalse();
        pollUntil("c backfilled", () -> output.getEmittedRecords().contains("c@1"));
        assertThat(log.calls)
                .containsSubsequence("backfill.close", "backfill.create", "backfill.add c@0");
    }

    @Test
    void aBoundedReaderEndsOnlyOnceItsReportsAreAcknowledged() throws Exception {
        FakeLog log = new FakeLog(true).write("a", 0, 1);
        start(log);
        reader.addSplits(List.of(new BackfillSplit("a", BACKFILLING, 0, 2, OptionalLong.of(2))));
        reader.notifyNoMoreSplits();
        pollUntil("a ended", () -> reportedStatuses().stream().anyMatch(SplitStatus::ended));
        // the enumerator still owes acknowledgements: ending now would make it send to a
        // finished task, which Flink treats as a lost event
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (!reader.isWaitingForAcknowledgements()) {
            assertThat(System.nanoTime()).as("waiting for the end of input").isLessThan(deadline);
            assertThat(reader.pollNext(output)).isNotEqualTo(InputStatus.END_OF_INPUT);
            Thread.sleep(1);
        }
        assertThat(reader.pollNext(output)).isNotEqualTo(InputStatus.END_OF_INPUT);
        // what the source operator waits on after NOTHING_AVAILABLE
        CompletableFuture<Void> waiting = reader.isAvailable();
        assertThat(waiting).isNotDone();
        long last = reports().get(reports().size() - 1).reportId();
        reader.handleSourceEvents(new ReportAcknowledgedEvent(reader.incarnation(), last));
        assertThat(waiting).isDone();
        assertThat(reader.pollNext(output)).isEqualTo(InputStatus.END_OF_INPUT);
    }

    /**
     * Issue 34: a bounded job ends as soon as its tasks have their final checkpoint's notification,
     * and Flink may close the enumerator before its own notification of that checkpoint comes; a
     * reader at its end passes each completion on, a reader still reading does not.
     */
    @Test
    void aReaderAtItsEndPassesOnEveryCompletedCheckpointToTheEnumerator() throws Exception {
        FakeLog log = new FakeLog(true).write("a", 0, 1);
        start(log);
        reader.addSplits(List.of(new BackfillSplit("a", BACKFILLING, 0, 2, OptionalLong.of(2))));
        reader.snapshotState(1);
        reader.notifyCheckpointComplete(1);
        assertThat(completionsPassedOn()).as("still reading").isEmpty();
        reader.notifyNoMoreSplits();
        pollUntil("a ended", () -> reportedStatuses().stream().anyMatch(SplitStatus::ended));
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (!reader.isWaitingForAcknowledgements()) {
            assertThat(System.nanoTime()).as("waiting for the end of input").isLessThan(deadline);
            reader.pollNext(output);
            Thread.sleep(1);
        }
        reader.snapshotState(2);
        reader.notifyCheckpointComplete(2);
        assertThat(completionsPassedOn()).as("its end not yet told to Flink").isEmpty();
        long last = reports().get(reports().size() - 1).reportId();
        reader.handleSourceEvents(new ReportAcknowledgedEvent(reader.incarnation(), last));
        assertThat(reader.pollNext(output)).isEqualTo(InputStatus.END_OF_INPUT);
        reader.snapshotState(3);
        reader.notifyCheckpointComplete(3);
        reader.notifyCheckpointComplete(4);
        assertThat(completionsPassedOn()).containsExactly(3L, 4L);
    }

    private List<Long> completionsPassedOn() {
        return context.getSentEvents().stream()
                .filter(CheckpointCompletedEvent.class::isInstance)
                .map(e -> ((CheckpointCompletedEvent) e).checkpointId())
                .toList();
    }

    @Test
    void anEndedSplitStaysInTheSnapshotAndARestoredReaderReportsTheEndWithoutReadingIt()
            throws Exception {
        FakeLog log = new FakeLog(true).write("a", 0, 1).write("b", 0);
        start(log);
        reader.addSplits(
                List.of(
                        new BackfillSplit("a", BACKFILLING, 0, 2, OptionalLong.of(2)),
                        split("b", BACKFILLING, 0, 1)));
        pollUntil("a ended", () -> reportedStatuses().stream().anyMatch(SplitStatus::ended));
        List<BackfillSplit> state = reader.snapshotState(1);
        BackfillSplit ended =
                state.stream().filter(s -> s.splitId().equals("a")).findFirst().orElseThrow();
        assertThat(ended.isEnded()).isTrue();
        assertThat(ended.nextOffset()).isEqualTo(2);
        assertThat(ended.backfilledRecords()).isEqualTo(2);

        // a new reader restored from that checkpoint
        reader.close();
        context.clearSentEvents();
        log.calls.clear();
        start(log);
        reader.addSplits(state);
        assertThat(reportedStatuses()).contains(SplitStatus.of(ended, true));
        pollUntil(
                "b finished",
                () -> reportedStatuses().contains(new SplitStatus("b", FINISHED, 1, false)));
        assertThat(log.calls).noneMatch(call -> call.contains(" a@"));
        assertThat(reader.snapshotState(2)).contains(ended);
    }

    /**
     * Under {@code SKIP}, a split restored FINISHED whose next offsets retention deleted (the live
     * log now starts at 6, the split stood at 3) goes on at 6 in the task thread's state too: the
     * next checkpoint stores 6 although no record comes (a quiet partition), so a reader restored
     * from it finds no gap and counts none again.
     */
    @Test
    void aGapSkippedWhenAFinishedSplitIsRestoredIsInTheNextCheckpointAndNotSkippedAgain()
            throws Exception {
        Map<String, Metric> metrics = new ConcurrentHashMap<>();
        FakeLog log = new FakeLog(true).endAt("a", 6);
        log.earliest.put("a", 6L);
        startSkippingGaps(log, metrics);
        reader.addSplits(List.of(split("a", FINISHED, 3, 3)));
        pollUntil(
                "the skip applied and reported",
                () -> reportedStatuses().contains(new SplitStatus("a", FINISHED, 6, false)));
        assertThat(skippedOffsets(metrics)).isEqualTo(3);
        List<BackfillSplit> state = reader.snapshotState(1);
        assertThat(state).singleElement().extracting(BackfillSplit::nextOffset).isEqualTo(6L);

        // a reader restored from that checkpoint
        reader.close();
        metrics.clear();
        startSkippingGaps(log, metrics);
        reader.addSplits(state);
        pollUntil("a read on", () -> log.calls.contains("live.add a@6"));
        for (int i = 0; i < 5; i++) {
            reader.pollNext(output);
        }
        assertThat(skippedOffsets(metrics)).as("offsets skipped again after the restore").isZero();
        assertThat(reader.snapshotState(2))
                .singleElement()
                .extracting(BackfillSplit::nextOffset)
                .isEqualTo(6L);
    }

    private void startSkippingGaps(FakeLog log, Map<String, Metric> metrics) throws Exception {
        TestingMetricRegistry registry =
                TestingMetricRegistry.builder()
                        .setRegisterConsumer(
                                (metric, name, group) ->
                                        metrics.put(group.getMetricIdentifier(name), metric))
                        .build();
        context =
                new TestingReaderContext(
                        new Configuration(),
                        InternalSourceReaderMetricGroup.mock(
                                new GenericMetricGroup(registry, null, "reader")));
        reader =
                BackfillSourceReader.create(
                        log,
                        BackfillSourceConfig.<String>defaults()
                                .withPollTimeout(Duration.ofMillis(5))
                                .withListener(BackfillListener.NO_OP)
                                .withGapPolicy(OffsetGapPolicy.SKIP),
                        context);
        reader.start();
    }

    private static long skippedOffsets(Map<String, Metric> metrics) {
        return ((Counter) metrics.get("reader.backfill." + BackfillReaderMetrics.SKIPPED_OFFSETS))
                .getCount();
    }

    @Test
    void aSplitsBackfilledRecordsArePartOfItsStateAcrossARestore() throws Exception {
        FakeLog log = new FakeLog(true).write("a", 0, 1, 2);
        List<Long> backfilledAtTransitions = new CopyOnWriteArrayList<>();
        BackfillListener listener =
                new BackfillListener() {
                    @Override
                    public void onTransition(SplitTransition transition) {
                        backfilledAtTransitions.add(transition.backfilledRecords());
                    }
                };
        reader =
                BackfillSourceReader.create(
                        log,
                        BackfillSourceConfig.<String>defaults()
                                .withPollTimeout(Duration.ofMillis(5))
                                .withListener(listener),
                        context);
        reader.start();
        reader.addSplits(List.of(split("a", BACKFILLING, 0, 6)));
        pollUntil("three backfilled", () -> output.getEmittedRecords().size() == 3);
        List<BackfillSplit> state = reader.snapshotState(1);
        assertThat(state)
                .containsExactly(
                        new BackfillSplit("a", BACKFILLING, 3, 6, OptionalLong.empty(), 3));

        reader.close();
        log.write("a", 3, 4, 5);
        reader =
                BackfillSourceReader.create(
                        log,
                        BackfillSourceConfig.<String>defaults()
                                .withPollTimeout(Duration.ofMillis(5))
                                .withListener(listener),
                        context);
        reader.start();
        reader.addSplits(state);
        pollUntil(
                "a finished",
                () -> reportedStatuses().contains(new SplitStatus("a", FINISHED, 6, false)));
        // the split's own figure: 3 before the restore and 3 after
        assertThat(backfilledAtTransitions).containsExactly(6L, 6L);
        assertThat(reader.snapshotState(2))
                .containsExactly(new BackfillSplit("a", FINISHED, 6, 6, OptionalLong.empty(), 6));
    }

    @Test
    void aFinishedSplitGivenInForwardModeKeepsForwardMode() throws Exception {
        start(new FakeLog(true));
        reader.addSplits(List.of(split("a", FINISHED, 0, 0)));
        reader.handleSourceEvents(new ForwardModeEvent(3));
        assertThat(reader.isForwardMode()).isTrue();
        reader.addSplits(List.of(split("new", FINISHED, 0, 0)));
        assertThat(reader.isForwardMode()).isTrue();
    }

    /**
     * Issue 34, defect 2: a chunk that waited for its turn on the backfill reader may have had its
     * split output marked idle by the job's idleness; it is marked active in the very call in which
     * the chunk before it ended and let go of its output (before any periodic watermark could run
     * with neither holding the watermark back), and the log split's own part, which reads last, is
     * marked active when its turn comes.
     */
    @Test
    void aChunkWhoseTurnStartsIsMarkedActiveInTheCallInWhichTheOneBeforeItEnded() throws Exception {
        FakeLog log = new FakeLog(true).write("a", 0, 1, 2, 3, 4, 5);
        List<String> events = new ArrayList<>();
        TestingReaderOutput<String> outputs =
                new TestingReaderOutput<>() {
                    @Override
                    public SourceOutput<String> createOutputForSplit(String splitId) {
                        TestingReaderOutput<String> main = this;
                        return new TestingReaderOutput<>() {
                            @Override
                            public void collect(String record) {
                                main.collect(record);
                            }

                            @Override
                            public void collect(String record, long timestamp) {
                                main.collect(record);
                            }

                            @Override
                            public void markActive() {
                                events.add("active " + splitId);
                            }
                        };
                    }

                    @Override
                    public void releaseOutputForSplit(String splitId) {
                        events.add("release " + splitId);
                    }
                };
        start(log);
        reader.addSplits(
                List.of(
                        BackfillSplit.historyChunk("a", 0, 0, 2),
                        BackfillSplit.historyChunk("a", 1, 2, 4),
                        split("a", BACKFILLING, 4, 6)));
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (!events.contains("active a")) {
            assertThat(System.nanoTime()).as("waiting for a's turn").isLessThan(deadline);
            reader.pollNext(outputs);
            events.add("poll");
            Thread.sleep(1);
        }
        List<String> turns =
                events.stream().filter(e -> !e.equals("poll")).collect(Collectors.toList());
        assertThat(turns)
                .containsExactly(
                        "release a#chunk-0", "active a#chunk-1", "release a#chunk-1", "active a");
        // each activation in the same call as the release before it
        assertThat(String.join(",", events))
                .contains("release a#chunk-0,active a#chunk-1")
                .contains("release a#chunk-1,active a");
        assertThat(outputs.getEmittedRecords()).startsWith("a@0", "a@1", "a@2", "a@3");
    }
}
