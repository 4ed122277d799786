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
import dev.sourcebackfill.source.OffsetGapException;
import dev.sourcebackfill.source.OffsetGapPolicy;
import dev.sourcebackfill.source.PollLimiter;
import dev.sourcebackfill.source.metrics.BackfillReaderMetrics;
import dev.sourcebackfill.source.metrics.FetchProgress;
import dev.sourcebackfill.source.split.BackfillSplit;
import dev.sourcebackfill.source.split.HandoverState;
import dev.sourcebackfill.source.testutils.FakeLog;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.connector.base.source.reader.RecordsWithSplitIds;
import org.apache.flink.connector.base.source.reader.splitreader.SplitsAddition;
import org.apache.flink.connector.base.source.reader.splitreader.SplitsRemoval;
import org.apache.flink.connector.testutils.source.reader.TestingReaderContext;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.SimpleCounter;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.apache.flink.runtime.metrics.groups.InternalSourceReaderMetricGroup;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The fetcher-side split reader over an in-memory log. */
class BackfillSplitReaderTest {

    private final ReaderMode mode = new ReaderMode();

    /** What the task thread sees, in order: record values and "STATE@next" transitions. */
    private final List<String> seen = new ArrayList<>();

    /** The gaps skipped, as the task thread applied them: "split:from..last". */
    private final List<String> skipsApplied = new ArrayList<>();

    /** Whether a turn started on the backfill reader is noted in {@link #seen} as "TURN". */
    private boolean turnsInSeen;

    private BackfillSplitReader<String> reader(FakeLog log) {
        return reader(
                log,
                new TestingReaderContext(),
                OffsetGapPolicy.FAIL,
                new SimpleCounter(),
                BackfillRateLimit.unlimited());
    }

    private BackfillSplitReader<String> reader(
            FakeLog log,
            TestingReaderContext context,
            OffsetGapPolicy gapPolicy,
            SimpleCounter skipped,
            BackfillRateLimit rateLimit) {
        return reader(
                log,
                context,
                gapPolicy,
                skipped,
                rateLimit,
                Duration.ofMillis(1),
                new FetchProgress());
    }

    private BackfillSplitReader<String> reader(
            FakeLog log,
            TestingReaderContext context,
            OffsetGapPolicy gapPolicy,
            SimpleCounter skipped,
            BackfillRateLimit rateLimit,
            Duration pollTimeout,
            FetchProgress progress) {
        return new BackfillSplitReader<>(
                log,
                BackfillSourceConfig.<String>defaults()
                        .withPollTimeout(pollTimeout)
                        .withGapPolicy(gapPolicy),
                context,
                mode,
                new BackfillFetch.TransitionSink() {
                    @Override
                    public void apply(String splitId, HandoverTransition t) {
                        seen.add(t.newState() + "@" + t.nextOffset());
                    }

                    @Override
                    public void gapSkipped(String splitId, long from, long to) {
                        skipsApplied.add(splitId + ":" + from + ".." + (to - 1));
                    }

                    @Override
                    public void turnStarted(String splitId) {
                        if (turnsInSeen) {
                            seen.add("TURN");
                        }
                    }
                },
                metrics(skipped, progress),
                rateLimit);
    }

    /** A reader told to skip offset gaps, counting them in {@code skipped}. */
    private BackfillSplitReader<String> skipping(FakeLog log, SimpleCounter skipped) {
        return reader(
                log,
                new TestingReaderContext(),
                OffsetGapPolicy.SKIP,
                skipped,
                BackfillRateLimit.unlimited());
    }

    /** Reader metrics whose skipped-offsets counter is {@code skipped}. */
    private static BackfillReaderMetrics metrics(SimpleCounter skipped, FetchProgress progress) {
        MetricGroup group =
                new UnregisteredMetricsGroup() {
                    @Override
                    public MetricGroup addGroup(String name) {
                        return this;
                    }

                    @Override
                    public Counter counter(String name) {
                        return name.equals(BackfillReaderMetrics.SKIPPED_OFFSETS)
                                ? skipped
                                : new SimpleCounter();
                    }
                };
        return new BackfillReaderMetrics(
                InternalSourceReaderMetricGroup.mock(group), List::of, () -> false, progress);
    }

    private static BackfillSplit backfilling(String id, long next, long target) {
        return new BackfillSplit(id, HandoverState.BACKFILLING, next, target, OptionalLong.empty());
    }

    /** Drains one fetch as the task thread does, into "value" and "STATE@next" strings. */
    private List<String> fetch(BackfillSplitReader<String> reader) throws Exception {
        seen.clear();
        RecordsWithSplitIds<BackfillRecord> records = reader.fetch();
        while (records.nextSplit() != null) {
            BackfillRecord record;
            while ((record = records.nextRecordFromSplit()) != null) {
                seen.add((String) record.raw());
            }
        }
        return new ArrayList<>(seen);
    }

    @Test
    void seekableLiveIsGivenASplitOnlyAtItsHandoverAtTheFirstOffsetNotBackfilled()
            throws Exception {
        FakeLog log = new FakeLog(true).write("a", 0, 1, 2, 3, 4);
        BackfillSplitReader<String> reader = reader(log);
        reader.handleSplitsChanges(new SplitsAddition<>(List.of(backfilling("a", 0, 5))));
        assertThat(log.calls).containsExactly("backfill.create", "backfill.add a@0");

        List<String> out = fetch(reader);
        assertThat(out)
                .containsExactly("a@0", "a@1", "a@2", "a@3", "a@4", "CACHING_UP@5", "FINISHED@5");
        assertThat(log.calls)
                .containsSubsequence(
                        "backfill.add a@0", "live.create", "live.add a@5", "backfill.remove a");

        log.write("a", 5, 7);
        assertThat(fetch(reader)).containsExactly("a@5", "a@7");
    }

    /**
     * A split with a history version: the backfill reader is given the version at the split's
     * start, and again when the split comes back after a restore; the live reader never is.
     */
    @Test
    void theBackfillReaderIsGivenTheSplitsHistoryVersionAtEveryStart() throws Exception {
        FakeLog log = new FakeLog(true).write("a", 0, 1, 2, 3, 4);
        BackfillSplitReader<String> reader = reader(log);
        reader.handleSplitsChanges(
                new SplitsAddition<>(List.of(backfilling("a", 0, 5).withHistoryVersion("v7"))));
        assertThat(log.calls).containsExactly("backfill.create", "backfill.add a@0 version v7");
        assertThat(fetch(reader)).contains("FINISHED@5");
        assertThat(log.calls).contains("live.add a@5").doesNotContain("live.add a@5 version v7");

        FakeLog restoredLog = new FakeLog(true).write("a", 0, 1, 2, 3, 4);
        BackfillSplitReader<String> restored = reader(restoredLog);
        restored.handleSplitsChanges(
                new SplitsAddition<>(List.of(backfilling("a", 3, 5).withHistoryVersion("v7"))));
        assertThat(restoredLog.calls).contains("backfill.add a@3 version v7");
    }

    @Test
    void aBackfillPositionPastTheTargetWithoutARecordHandsOver() throws Exception {
        // 3 and 4 are transaction markers: no record at target - 1
        FakeLog log = new FakeLog(true).write("a", 0, 1, 2).endAt("a", 5);
        BackfillSplitReader<String> reader = reader(log);
        reader.handleSplitsChanges(new SplitsAddition<>(List.of(backfilling("a", 0, 5))));
        assertThat(fetch(reader))
                .containsExactly("a@0", "a@1", "a@2", "CACHING_UP@5", "FINISHED@5");
        assertThat(log.calls).contains("live.add a@5");
    }

    @Test
    void aSplitWithNothingToBackfillIsHandedOverWithoutReadingTheBackfill() throws Exception {
        FakeLog log = new FakeLog(true).write("a", 0, 1, 2);
        BackfillSplitReader<String> reader = reader(log);
        reader.handleSplitsChanges(new SplitsAddition<>(List.of(backfilling("a", 3, 3))));
        assertThat(log.calls).containsExactly("live.create", "live.add a@3");
        assertThat(fetch(reader)).containsExactly("CACHING_UP@3", "FINISHED@3");
    }

    @Test
    void aGapAtTheHandoverFailsNamingTheSplitAndOffsets() {
        FakeLog log = new FakeLog(true).write("a", 0, 1, 2, 3);
        log.earliest.put("a", 3L);
        BackfillSplitReader<String> reader = reader(log);
        reader.handleSplitsChanges(new SplitsAddition<>(List.of(backfilling("a", 0, 2))));
        assertThatThrownBy(() -> fetch(reader))
                .isInstanceOf(OffsetGapException.class)
                .hasMessageContaining("split a")
                .hasMessageContaining("below 2")
                .hasMessageContaining("offset is 3");
    }

    @Test
    void aFeedLiveIsReadFromTheStartAndItsRecordsInsideTheBackfillAreDropped() throws Exception {
        FakeLog log = new FakeLog(false).write("a", 0, 1);
        log.backfillEnds.put("a", 2L); // an archive holding 0 and 1
        BackfillSplitReader<String> reader = reader(log);
        reader.handleSplitsChanges(new SplitsAddition<>(List.of(backfilling("a", 0, 2))));
        assertThat(log.calls).contains("live.add a@0", "backfill.add a@0");
        // the feed's 0 and 1 are dropped, the archive's emitted; the feed has passed 1: FINISHED
        assertThat(fetch(reader)).containsExactly("a@0", "a@1", "CACHING_UP@2", "FINISHED@2");
        log.write("a", 2, 3);
        assertThat(fetch(reader)).containsExactly("a@2", "a@3");
    }

    @Test
    void aFeedThatPassedRecordsTheArchiveDoesNotHoldFailsLoudly() {
        FakeLog log = new FakeLog(false).write("a", 0, 1, 2, 3);
        log.backfillEnds.put("a", 2L); // the archive ends before what the feed already delivered
        BackfillSplitReader<String> reader = reader(log);
        reader.handleSplitsChanges(new SplitsAddition<>(List.of(backfilling("a", 0, 2))));
        assertThatThrownBy(() -> fetch(reader))
                .isInstanceOf(OffsetGapException.class)
                .hasMessageContaining("split a")
                .hasMessageContaining("offsets up to 3");
    }

    @Test
    void forwardModeReleasesTheBackfillReaderAndANewBackfillingSplitBringsItBack()
            throws Exception {
        FakeLog log = new FakeLog(true).write("a", 0, 1).write("b", 0, 1, 2);
        BackfillSplitReader<String> reader = reader(log);
        reader.handleSplitsChanges(new SplitsAddition<>(List.of(backfilling("a", 0, 2))));
        fetch(reader);
        assertThat(reader.hasBackfillReader()).isTrue();
        mode.setForward(true);
        fetch(reader);
        assertThat(reader.hasBackfillReader()).isFalse();
        assertThat(log.calls).contains("backfill.close");

        reader.handleSplitsChanges(new SplitsAddition<>(List.of(backfilling("b", 0, 3))));
        assertThat(reader.hasBackfillReader()).isTrue();
        assertThat(fetch(reader))
                .containsExactly("b@0", "b@1", "b@2", "CACHING_UP@3", "FINISHED@3");
    }

    @Test
    void aBoundedSplitEndsAtItsStoppingOffset() throws Exception {
        FakeLog log = new FakeLog(true).write("a", 0, 1, 2, 3, 4, 5);
        BackfillSplitReader<String> reader = reader(log);
        reader.handleSplitsChanges(
                new SplitsAddition<>(
                        List.of(
                                new BackfillSplit(
                                        "a",
                                        HandoverState.BACKFILLING,
                                        0,
                                        2,
                                        OptionalLong.of(4)))));
        assertThat(fetch(reader)).containsExactly("a@0", "a@1", "CACHING_UP@2", "FINISHED@2");
        // the live reader takes over in the next fetch and stops below 4
        RecordsWithSplitIds<BackfillRecord> records = reader.fetch();
        List<String> out = new ArrayList<>();
        while (records.nextSplit() != null) {
            BackfillRecord record;
            while ((record = records.nextRecordFromSplit()) != null) {
                out.add((String) record.raw());
            }
        }
        assertThat(out).containsExactly("a@2", "a@3");
        assertThat(records.finishedSplits()).containsExactly("a");
        assertThat(log.calls).contains("live.remove a");
    }

    /**
     * A bounded split (stop 3) whose backfill reached its stop is complete: it is not given to the
     * live reader, whose earliest offset (5) past the stop is no loss of this source and must not
     * fail the job.
     */
    @Test
    void aBoundedSplitCompleteInTheBackfillIgnoresTheLiveReadersGapPastItsStop() throws Exception {
        FakeLog log = new FakeLog(true).write("a", 0, 1, 2);
        log.earliest.put("a", 5L); // the live reader's log starts at 5 now
        BackfillSplitReader<String> reader = reader(log);
        reader.handleSplitsChanges(
                new SplitsAddition<>(
                        List.of(
                                new BackfillSplit(
                                        "a",
                                        HandoverState.BACKFILLING,
                                        0,
                                        3,
                                        OptionalLong.of(3)))));
        RecordsWithSplitIds<BackfillRecord> records = reader.fetch();
        List<String> out = new ArrayList<>();
        while (records.nextSplit() != null) {
            BackfillRecord record;
            while ((record = records.nextRecordFromSplit()) != null) {
                out.add((String) record.raw());
            }
        }
        assertThat(out).containsExactly("a@0", "a@1", "a@2");
        assertThat(records.finishedSplits()).containsExactly("a");
        assertThat(log.calls).doesNotContain("live.create");
    }

    /** The same for a split the split reader is given at its stop: no reader is given it. */
    @Test
    void aSplitGivenAtItsStopIsGivenToNoReader() throws Exception {
        FakeLog log = new FakeLog(true).write("a", 0, 1, 2);
        log.earliest.put("a", 5L);
        BackfillSplitReader<String> reader = reader(log);
        reader.handleSplitsChanges(
                new SplitsAddition<>(
                        List.of(
                                new BackfillSplit(
                                        "a", HandoverState.FINISHED, 3, 3, OptionalLong.of(3)))));
        RecordsWithSplitIds<BackfillRecord> records = reader.fetch();
        assertThat(records.nextSplit()).isNull();
        assertThat(records.finishedSplits()).containsExactly("a");
        assertThat(log.calls).isEmpty();
    }

    /**
     * Told to skip gaps: a seekable live reader whose earliest offset is above the archive's end is
     * started again at its earliest offset, the split goes on there, and the skipped offsets are
     * counted.
     */
    @Test
    void aSkippedGapStartsTheLiveAgainAtItsEarliestOffsetAndCountsTheSkippedOffsets()
            throws Exception {
        FakeLog log = new FakeLog(true).write("a", 0, 1, 2, 3, 4, 5, 6, 7);
        log.backfillEnds.put("a", 3L);
        log.earliest.put("a", 6L);
        SimpleCounter skipped = new SimpleCounter();
        BackfillSplitReader<String> reader = skipping(log, skipped);
        reader.handleSplitsChanges(new SplitsAddition<>(List.of(backfilling("a", 0, 8))));
        List<String> out = new ArrayList<>();
        for (int i = 0; i < 10 && !out.contains("a@7"); i++) {
            out.addAll(fetch(reader));
        }
        assertThat(out)
                .containsExactly("a@0", "a@1", "a@2", "CACHING_UP@3", "FINISHED@6", "a@6", "a@7");
        assertThat(skipped.getCount()).isEqualTo(3);
        assertThat(log.calls).contains("live.add a@3", "live.remove a", "live.add a@6");
    }

    /**
     * Retention passes a finished split's live reader (a slow partition): the reader reports the
     * deleted offsets; told to skip, the split goes on after them in the task thread's state too,
     * counted once, and the live reader is not given the split again (its reader moved on by
     * itself).
     */
    @Test
    void deletedOffsetsTheLiveReaderFindsAreSkippedAndAppliedWhenToldTo() throws Exception {
        FakeLog log = new FakeLog(true).write("a", 6, 7, 12, 13);
        log.reportsDeletedOffsets = true;
        log.endAt("a", 8);
        SimpleCounter skipped = new SimpleCounter();
        BackfillSplitReader<String> reader = skipping(log, skipped);
        reader.handleSplitsChanges(new SplitsAddition<>(List.of(finished("a", 6))));
        assertThat(fetch(reader)).containsExactly("a@6", "a@7");

        log.earliest.put("a", 12L); // retention deletes up to 11 while the reader stands at 8
        log.endAt("a", 14);
        assertThat(fetch(reader)).containsExactly("a@12", "a@13");
        assertThat(skipsApplied).containsExactly("a:8..11");
        assertThat(skipped.getCount()).isEqualTo(4);
        assertThat(log.calls).containsOnlyOnce("live.add a@6").doesNotContain("live.remove a");
    }

    /** The same under the default policy fails the fetch, naming the split and the offsets. */
    @Test
    void deletedOffsetsTheLiveReaderFindsFailTheFetchByDefault() throws Exception {
        FakeLog log = new FakeLog(true).write("a", 6, 7, 12);
        log.reportsDeletedOffsets = true;
        log.endAt("a", 8);
        BackfillSplitReader<String> reader = reader(log);
        reader.handleSplitsChanges(new SplitsAddition<>(List.of(finished("a", 6))));
        assertThat(fetch(reader)).containsExactly("a@6", "a@7");

        log.earliest.put("a", 12L);
        log.endAt("a", 13);
        assertThatThrownBy(() -> fetch(reader))
                .isInstanceOf(OffsetGapException.class)
                .hasMessageContaining("split a")
                .hasMessageContaining("read from offset 8")
                .hasMessageContaining("starts at 12");
    }

    /**
     * A backfill whose start retention deleted (a committed or checkpointed offset below the log's
     * start now): told to skip, it backfills from the log's start, and the offsets below are
     * counted.
     */
    @Test
    void deletedOffsetsTheBackfillReaderFindsAreSkippedWhenToldTo() throws Exception {
        FakeLog log = new FakeLog(true).write("a", 5, 6, 7);
        log.reportsDeletedOffsets = true;
        log.earliest.put("a", 5L);
        SimpleCounter skipped = new SimpleCounter();
        BackfillSplitReader<String> reader = skipping(log, skipped);
        reader.handleSplitsChanges(new SplitsAddition<>(List.of(backfilling("a", 2, 8))));
        assertThat(fetch(reader))
                .containsExactly("a@5", "a@6", "a@7", "CACHING_UP@8", "FINISHED@8");
        assertThat(skipsApplied).containsExactly("a:2..4");
        assertThat(skipped.getCount()).isEqualTo(3);
    }

    /**
     * Review (issue 23): a bounded split (stop 4) whose start and stop lie inside a gap the
     * backfill reader finds (the log starts at 6): only the split's own offsets 2..3 are skipped;
     * 4..5 are beyond its stop and are no loss of this source.
     */
    @Test
    void aBackfillGapPastABoundedSplitsStopSkipsOnlyTheOffsetsBelowTheStop() throws Exception {
        FakeLog log = new FakeLog(true).write("a", 6, 7);
        log.reportsDeletedOffsets = true;
        log.earliest.put("a", 6L);
        SimpleCounter skipped = new SimpleCounter();
        BackfillSplitReader<String> reader = skipping(log, skipped);
        reader.handleSplitsChanges(
                new SplitsAddition<>(
                        List.of(
                                new BackfillSplit(
                                        "a",
                                        HandoverState.BACKFILLING,
                                        2,
                                        4,
                                        OptionalLong.of(4)))));
        fetch(reader);
        assertThat(skipsApplied).containsExactly("a:2..3");
        assertThat(skipped.getCount()).isEqualTo(2);
    }

    /**
     * Review (issue 23): the live reader of a bounded FINISHED split (stop 9) finds offsets up to
     * 11 deleted while it stands at 8: only offset 8 is below the stop; the skip must not count
     * 9..11.
     */
    @Test
    void aLiveGapPastABoundedSplitsStopSkipsOnlyTheOffsetsBelowTheStop() throws Exception {
        FakeLog log = new FakeLog(true).write("a", 6, 7, 12, 13);
        log.reportsDeletedOffsets = true;
        log.endAt("a", 8);
        SimpleCounter skipped = new SimpleCounter();
        BackfillSplitReader<String> reader = skipping(log, skipped);
        reader.handleSplitsChanges(
                new SplitsAddition<>(
                        List.of(
                                new BackfillSplit(
                                        "a", HandoverState.FINISHED, 6, 6, OptionalLong.of(9)))));
        assertThat(fetch(reader)).containsExactly("a@6", "a@7");

        log.earliest.put("a", 12L);
        log.endAt("a", 14);
        assertThat(fetch(reader)).isEmpty();
        assertThat(skipsApplied).containsExactly("a:8..8");
        assertThat(skipped.getCount()).isEqualTo(1);
    }

    /**
     * Review (issue 23): offsets 8 and 9 hold no record (transaction markers); the live reader read
     * past them and stands at 10 when retention deletes up to 11. It reports 10..11 deleted (what
     * an {@code OffsetGapException} would name too); the skip must not count the markers it read as
     * deleted offsets.
     */
    @Test
    void deletedOffsetsAreCountedFromWhereTheReaderFoundThemNotFromTheLastRecordEmitted()
            throws Exception {
        FakeLog log = new FakeLog(true).write("a", 6, 7, 12, 13);
        log.reportsDeletedOffsets = true;
        log.endAt("a", 10); // markers at 8 and 9
        SimpleCounter skipped = new SimpleCounter();
        BackfillSplitReader<String> reader = skipping(log, skipped);
        reader.handleSplitsChanges(new SplitsAddition<>(List.of(finished("a", 6))));
        assertThat(fetch(reader)).containsExactly("a@6", "a@7");

        log.earliest.put("a", 12L);
        log.endAt("a", 14);
        assertThat(fetch(reader)).containsExactly("a@12", "a@13");
        assertThat(skipsApplied).containsExactly("a:10..11");
        assertThat(skipped.getCount()).isEqualTo(2);
    }

    /**
     * A feed finds offsets 6..9 of a CACHING_UP split deleted (retention passed it): the backfill
     * stopped at 6, so they are lost, and the default policy fails the fetch, naming them, rather
     * than finish the split at the feed's next record.
     */
    @Test
    void deletedOffsetsAFeedFindsBeforeTheHandoverFailTheFetchByDefault() {
        FakeLog log = new FakeLog(false).write("a", 6, 7, 8, 9, 10, 11);
        log.reportsDeletedOffsets = true;
        BackfillSplitReader<String> reader = reader(log);
        reader.handleSplitsChanges(
                new SplitsAddition<>(
                        List.of(
                                new BackfillSplit(
                                        "a",
                                        HandoverState.CACHING_UP,
                                        6,
                                        6,
                                        OptionalLong.empty()))));
        log.earliest.put("a", 10L); // retention deletes 6..9 before the feed reads them
        assertThatThrownBy(() -> fetch(reader))
                .isInstanceOf(OffsetGapException.class)
                .hasMessageContaining("split a")
                .hasMessageContaining("read from offset 6")
                .hasMessageContaining("starts at 10");
    }

    /** The same told to skip: the offsets are skipped, counted, and the split goes on at 10. */
    @Test
    void deletedOffsetsAFeedFindsBeforeTheHandoverAreSkippedWhenToldTo() throws Exception {
        FakeLog log = new FakeLog(false).write("a", 6, 7, 8, 9, 10, 11);
        log.reportsDeletedOffsets = true;
        SimpleCounter skipped = new SimpleCounter();
        BackfillSplitReader<String> reader = skipping(log, skipped);
        reader.handleSplitsChanges(
                new SplitsAddition<>(
                        List.of(
                                new BackfillSplit(
                                        "a",
                                        HandoverState.CACHING_UP,
                                        6,
                                        6,
                                        OptionalLong.empty()))));
        log.earliest.put("a", 10L);
        assertThat(fetch(reader)).containsExactly("FINISHED@10", "a@10", "a@11");
        assertThat(skipsApplied).containsExactly("a:6..9");
        assertThat(skipped.getCount()).isEqualTo(4);
    }

    private static BackfillSplit finished(String id, long next) {
        return new BackfillSplit(id, HandoverState.FINISHED, next, next, OptionalLong.empty());
    }

    // ------------------------------------------------------------------ watermark alignment

    private static List<BackfillSplit> splits(BackfillSplit... splits) {
        return List.of(splits);
    }

    @Test
    void aPausedBackfillingSplitDeliversNothingAndResumesWhereItStoodWhileOthersRun()
            throws Exception {
        FakeLog log = new FakeLog(true).write("a", 0, 1).write("b", 0, 1);
        BackfillSplitReader<String> reader = reader(log);
        BackfillSplit a = backfilling("a", 0, 10);
        BackfillSplit b = backfilling("b", 0, 10);
        reader.handleSplitsChanges(new SplitsAddition<>(List.of(a, b)));
        assertThat(fetch(reader)).containsExactly("a@0", "a@1", "b@0", "b@1");

        reader.pauseOrResumeSplits(splits(a), List.of());
        assertThat(log.calls).contains("backfill.pause [a]");
        log.write("a", 2, 3).write("b", 2);
        assertThat(fetch(reader)).containsExactly("b@2");
        assertThat(fetch(reader)).isEmpty();

        reader.pauseOrResumeSplits(List.of(), splits(a));
        assertThat(log.calls).contains("backfill.resume [a]");
        assertThat(fetch(reader)).containsExactly("a@2", "a@3");
    }

    @Test
    void aPausedSplitIsPausedInBothReadersOfAFeed() throws Exception {
        FakeLog log = new FakeLog(false).write("a", 0, 1);
        log.backfillEnds.put("a", 2L);
        BackfillSplitReader<String> reader = reader(log);
        BackfillSplit a = backfilling("a", 0, 2);
        reader.handleSplitsChanges(new SplitsAddition<>(List.of(a)));
        reader.pauseOrResumeSplits(splits(a), List.of());
        assertThat(log.calls).contains("backfill.pause [a]", "live.pause [a]");
        assertThat(fetch(reader)).isEmpty();

        reader.pauseOrResumeSplits(List.of(), splits(a));
        assertThat(log.calls).contains("backfill.resume [a]", "live.resume [a]");
        assertThat(fetch(reader)).containsExactly("a@0", "a@1", "CACHING_UP@2", "FINISHED@2");
        log.write("a", 2);
        assertThat(fetch(reader)).containsExactly("a@2");
    }

    @Test
    void aPausedSplitWhoseBackfillEndsIsPausedOnTheLiveItIsHandedTo() throws Exception {
        // the archive (backfill) ends at 3 while the split is paused: the handover gives the
        // split to the seekable live reader, which must not read it until alignment resumes it
        FakeLog log = new FakeLog(true).write("a", 3, 4, 5);
        log.backfillEnds.put("a", 3L);
        BackfillSplitReader<String> reader = reader(log);
        BackfillSplit a = backfilling("a", 3, 6);
        reader.handleSplitsChanges(new SplitsAddition<>(List.of(a)));
        reader.pauseOrResumeSplits(splits(a), List.of());

        // a seekable live reader starts at the next offset: FINISHED at once, and still paused
        assertThat(fetch(reader)).containsExactly("CACHING_UP@3", "FINISHED@3");
        assertThat(log.calls).containsSubsequence("live.add a@3", "live.pause [a]");
        assertThat(fetch(reader)).isEmpty();

        reader.pauseOrResumeSplits(List.of(), splits(a));
        assertThat(log.calls).contains("live.resume [a]");
        assertThat(fetch(reader)).containsExactly("a@3", "a@4", "a@5");
    }

    @Test
    void pausingASplitTheReaderNoLongerHoldsIsIgnored() throws Exception {
        FakeLog log = new FakeLog(true).write("a", 0);
        BackfillSplitReader<String> reader = reader(log);
        reader.pauseOrResumeSplits(splits(backfilling("gone", 0, 1)), List.of());
        reader.handleSplitsChanges(new SplitsAddition<>(List.of(backfilling("a", 0, 5))));
        assertThat(fetch(reader)).containsExactly("a@0");
        assertThat(log.calls).noneMatch(call -> call.contains("pause"));
    }

    @Test
    void aLiveThatCannotPauseFailsAlignmentUnlessUnalignedSplitsAreAllowed() throws Exception {
        FakeLog log = new FakeLog(true).write("a", 3, 4);
        log.backfillEnds.put("a", 3L);
        log.livePausable = false;
        BackfillSplit a = backfilling("a", 3, 5);

        BackfillSplitReader<String> strict = reader(log);
        strict.handleSplitsChanges(new SplitsAddition<>(List.of(a)));
        strict.pauseOrResumeSplits(splits(a), List.of());
        assertThatThrownBy(() -> fetch(strict))
                .isInstanceOf(UnsupportedOperationException.class)
                .hasMessageContaining("cannot pause splits")
                .hasMessageContaining("allow-unaligned-source-splits");

        Configuration config = new Configuration();
        config.set(PipelineOptions.ALLOW_UNALIGNED_SOURCE_SPLITS, true);
        BackfillSplitReader<String> lenient =
                reader(
                        log,
                        new TestingReaderContext(config, null),
                        OffsetGapPolicy.FAIL,
                        new SimpleCounter(),
                        BackfillRateLimit.unlimited());
        lenient.handleSplitsChanges(new SplitsAddition<>(List.of(a)));
        lenient.pauseOrResumeSplits(splits(a), List.of());
        // read unaligned, as Flink reads a split its reader cannot pause
        List<String> out = new ArrayList<>(fetch(lenient));
        out.addAll(fetch(lenient));
        assertThat(out).containsExactly("CACHING_UP@3", "FINISHED@3", "a@3", "a@4");
    }

    // ------------------------------------------------------------------ backfill rate limit

    /** A limiter that records what it is asked and grants only what the test releases. */
    private static final class ManualLimiter implements PollLimiter {
        final List<Integer> acquired = new ArrayList<>();
        final List<String> added = new ArrayList<>();
        final List<Long> checkpoints = new ArrayList<>();
        CompletableFuture<Void> pending = new CompletableFuture<>();

        @Override
        public CompletionStage<Void> acquire(int records) {
            acquired.add(records);
            pending = new CompletableFuture<>();
            return pending;
        }

        @Override
        public void splitAdded(BackfillSplit split) {
            added.add(split.splitId());
        }

        @Override
        public void checkpointComplete(long checkpointId) {
            checkpoints.add(checkpointId);
        }
    }

    @Test
    void aRateLimitedBackfillWaitsForItsPermissionWhileLiveRecordsFlow() throws Exception {
        FakeLog log = new FakeLog(true).write("a", 0, 1, 2).write("b", 0, 1);
        ManualLimiter limiter = new ManualLimiter();
        BackfillRateLimit rateLimit = BackfillRateLimit.of(limiter);
        BackfillSplitReader<String> reader =
                reader(
                        log,
                        new TestingReaderContext(),
                        OffsetGapPolicy.FAIL,
                        new SimpleCounter(),
                        rateLimit);
        BackfillSplit live =
                new BackfillSplit("b", HandoverState.FINISHED, 0, 0, OptionalLong.empty());
        reader.handleSplitsChanges(new SplitsAddition<>(List.of(backfilling("a", 0, 100), live)));
        assertThat(limiter.added).containsExactly("a", "b");

        assertThat(fetch(reader)).containsExactly("b@0", "b@1", "a@0", "a@1", "a@2");
        // one permission per poll, for the backfill records only
        assertThat(limiter.acquired).containsExactly(3);

        log.write("a", 3, 4).write("b", 2, 3);
        assertThat(fetch(reader)).containsExactly("b@2", "b@3");
        assertThat(fetch(reader)).isEmpty();
        assertThat(limiter.acquired).containsExactly(3);

        limiter.pending.complete(null);
        assertThat(fetch(reader)).containsExactly("a@3", "a@4");
        assertThat(limiter.acquired).containsExactly(3, 2);

        rateLimit.notifyCheckpointComplete(7);
        assertThat(limiter.checkpoints).containsExactly(7L);
    }

    @Test
    void aWaitForAPermissionEndsAtAWakeUp() throws Exception {
        FakeLog log = new FakeLog(true).write("a", 0, 1);
        ManualLimiter limiter = new ManualLimiter();
        BackfillSplitReader<String> reader =
                reader(
                        log,
                        new TestingReaderContext(),
                        OffsetGapPolicy.FAIL,
                        new SimpleCounter(),
                        BackfillRateLimit.of(limiter),
                        Duration.ofSeconds(60),
                        new FetchProgress());
        reader.handleSplitsChanges(new SplitsAddition<>(List.of(backfilling("a", 0, 100))));
        assertThat(fetch(reader)).containsExactly("a@0", "a@1");
        CompletableFuture<List<String>> waiting =
                CompletableFuture.supplyAsync(
                        () -> {
                            try {
                                return fetch(reader);
                            } catch (Exception e) {
                                throw new RuntimeException(e);
                            }
                        });
        reader.wakeUp();
        // the wait is up to the 60 s poll timeout; the wake-up ends it
        assertThat(waiting.get(30, TimeUnit.SECONDS)).isEmpty();
    }

    // ------------------------------------------------------------------ found in review

    /**
     * a paused split whose handover skips a gap (SKIP policy) is started again on the seekable live
     * at its earliest offset (removeSplit + addSplit): the re-added split must stay paused while
     * alignment holds it.
     */
    @Test
    void aPausedSplitStaysPausedWhenItsHandoverSkipsAGap() throws Exception {
        FakeLog log = new FakeLog(true).write("a", 6, 7);
        log.backfillEnds.put("a", 3L); // the archive ends at 3
        log.earliest.put("a", 6L); // the live reader starts at 6: offsets 3..5 are a gap
        BackfillSplitReader<String> reader = skipping(log, new SimpleCounter());
        BackfillSplit a = backfilling("a", 3, 8);
        reader.handleSplitsChanges(new SplitsAddition<>(List.of(a)));
        reader.pauseOrResumeSplits(splits(a), List.of());

        assertThat(fetch(reader)).containsExactly("CACHING_UP@3", "FINISHED@6");
        assertThat(log.calls)
                .containsSubsequence(
                        "live.add a@3", "live.pause [a]", "live.remove a", "live.add a@6");
        // alignment still holds the split: nothing of it may be read
        assertThat(fetch(reader)).as("records of a split alignment holds paused").isEmpty();

        reader.pauseOrResumeSplits(List.of(), splits(a));
        assertThat(fetch(reader)).containsExactly("a@6", "a@7");
    }

    /**
     * the archive's backfill reader delivers its records with {@code
     * TimestampAssigner.NO_TIMESTAMP} (ArchiveReader.SplitRead#read): the fetch lag of such a
     * record is undefined, not "now minus Long.MIN_VALUE".
     */
    @Test
    void theFetchLagOfRecordsWithoutATimestampIsLeftUndefined() throws Exception {
        FakeLog archiveLike = new FakeLog(true).write("a", 0, 1);
        archiveLike.backfillWithoutTimestamps = true;
        FetchProgress progress = new FetchProgress();
        BackfillSplitReader<String> reader =
                reader(
                        archiveLike,
                        new TestingReaderContext(),
                        OffsetGapPolicy.FAIL,
                        new SimpleCounter(),
                        BackfillRateLimit.unlimited(),
                        Duration.ofMillis(1),
                        progress);
        reader.handleSplitsChanges(new SplitsAddition<>(List.of(backfilling("a", 0, 10))));
        assertThat(fetch(reader)).containsExactly("a@0", "a@1");
        assertThat(progress.fetchEventTimeLag())
                .as("currentFetchEventTimeLag after records without a timestamp")
                .isGreaterThanOrEqualTo(-1L);
    }

    /**
     * a backfill reader that cannot pause (the SPI's default), with {@code
     * allow-unaligned-source-splits} set, as the SPI's javadoc allows. Flink sends one call with
     * the splits to pause and those to resume; its task swallows the UnsupportedOperationException.
     * The live split resumed in that call must be read again.
     */
    @Test
    void aResumeInTheSameCallAsAPauseTheBackfillCannotDoStillResumesTheLive() throws Exception {
        FakeLog fake = new FakeLog(true).write("a", 0, 1).write("b", 0, 1);
        fake.backfillPausable = false; // the SPI's default: throws
        Configuration config = new Configuration();
        config.set(PipelineOptions.ALLOW_UNALIGNED_SOURCE_SPLITS, true);
        BackfillSplitReader<String> reader =
                reader(
                        fake,
                        new TestingReaderContext(config, null),
                        OffsetGapPolicy.FAIL,
                        new SimpleCounter(),
                        BackfillRateLimit.unlimited(),
                        Duration.ofMillis(1),
                        new FetchProgress());
        BackfillSplit a = backfilling("a", 0, 100);
        BackfillSplit b =
                new BackfillSplit("b", HandoverState.FINISHED, 0, 0, OptionalLong.empty());
        reader.handleSplitsChanges(new SplitsAddition<>(List.of(a, b)));
        assertThat(fetch(reader)).containsExactly("b@0", "b@1", "a@0", "a@1");

        // alignment pauses the live split b (only the live reader reads it)
        pauseOrResumeAsFlinkDoes(reader, List.of(b), List.of());
        assertThat(fake.calls).contains("live.pause [b]");
        fake.write("b", 2);
        assertThat(fetch(reader)).isEmpty();

        // one call: pause a (the backfill cannot), resume b
        pauseOrResumeAsFlinkDoes(reader, List.of(a), List.of(b));
        List<String> out = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            out.addAll(fetch(reader));
        }
        assertThat(fake.calls).as("calls to the log's readers").contains("live.resume [b]");
        assertThat(out).as("records of the resumed live split").contains("b@2");
    }

    /** As Flink's PauseOrResumeSplitsTask runs it with allow-unaligned-source-splits set. */
    private static void pauseOrResumeAsFlinkDoes(
            BackfillSplitReader<String> reader,
            List<BackfillSplit> pause,
            List<BackfillSplit> resume) {
        try {
            reader.pauseOrResumeSplits(pause, resume);
        } catch (UnsupportedOperationException e) {
            // allowed unaligned: swallowed
        }
    }

    // ------------------------------------------------------------------ chunks of history

    /** Drains one fetch into "split:value" and "split:STATE@next" strings and finished splits. */
    private List<String> fetchBySplit(BackfillSplitReader<String> reader) throws Exception {
        seen.clear();
        List<String> out = new ArrayList<>();
        RecordsWithSplitIds<BackfillRecord> records = reader.fetch();
        String split;
        while ((split = records.nextSplit()) != null) {
            int transitionsBefore = seen.size();
            BackfillRecord record;
            while ((record = records.nextRecordFromSplit()) != null) {
                for (String transition : seen.subList(transitionsBefore, seen.size())) {
                    out.add(split + ":" + transition);
                }
                transitionsBefore = seen.size();
                out.add(split + ":" + record.raw());
            }
            for (String transition : seen.subList(transitionsBefore, seen.size())) {
                out.add(split + ":" + transition);
            }
        }
        for (String finished : records.finishedSplits()) {
            out.add(finished + ":ended");
        }
        return out;
    }

    /**
     * Two chunks of log split {@code a} and {@code a} itself on one reader: the backfill reader
     * reads {@code a} once at a time, for one of them, in turn, oldest first (the chunks in offset
     * order, then {@code a} itself, which goes live after it); an older split that comes while a
     * younger one reads takes its place. Each chunk's records are its own, it ends at its stop (the
     * records the log reader delivers past it are not its own) and never goes to the live reader.
     */
    @Test
    void chunksOfOneLogSplitTakeTurnsOnTheBackfillReaderAndEndAtTheirStopsWithoutGoingLive()
            throws Exception {
        FakeLog log = new FakeLog(true).write("a", 0, 1, 2, 3, 4, 5);
        BackfillSplitReader<String> reader = reader(log);
        BackfillSplit chunk0 = BackfillSplit.historyChunk("a", 0, 0, 2);
        BackfillSplit chunk1 = BackfillSplit.historyChunk("a", 1, 2, 4);
        BackfillSplit own = backfilling("a", 4, 6);
        reader.handleSplitsChanges(new SplitsAddition<>(List.of(chunk1, chunk0, own)));
        // the first to come reads; the older chunk that comes next takes its place; a waits
        assertThat(log.calls)
                .containsExactly(
                        "backfill.create",
                        "backfill.add a@2",
                        "backfill.remove a",
                        "backfill.add a@0");

        assertThat(fetchBySplit(reader))
                .containsExactly("a#chunk-0:a@0", "a#chunk-0:a@1", "a#chunk-0:ended");
        assertThat(log.calls).endsWith("backfill.remove a", "backfill.add a@2");

        assertThat(fetchBySplit(reader))
                .containsExactly("a#chunk-1:a@2", "a#chunk-1:a@3", "a#chunk-1:ended");
        assertThat(log.calls).endsWith("backfill.remove a", "backfill.add a@4");
        assertThat(log.calls).noneMatch(call -> call.startsWith("live."));

        assertThat(fetchBySplit(reader))
                .containsExactly("a:a@4", "a:a@5", "a:CACHING_UP@6", "a:FINISHED@6");
        assertThat(log.calls).contains("live.add a@6");
        log.write("a", 6);
        assertThat(fetchBySplit(reader)).containsExactly("a:a@6");
        assertThat(log.calls.stream().filter(call -> call.startsWith("live.add")))
                .containsExactly("live.add a@6");
    }

    /**
     * A chunk whose last offsets are transaction markers ends when the position passes its stop.
     */
    @Test
    void aChunkWhoseLastOffsetsHoldNoRecordEndsWhenTheBackfillPassesItsStop() throws Exception {
        FakeLog log = new FakeLog(true).write("a", 0, 1, 5).endAt("a", 6);
        BackfillSplitReader<String> reader = reader(log);
        BackfillSplit chunk = BackfillSplit.historyChunk("a", 0, 0, 4);
        reader.handleSplitsChanges(new SplitsAddition<>(List.of(chunk)));
        assertThat(fetchBySplit(reader))
                .containsExactly("a#chunk-0:a@0", "a#chunk-0:a@1", "a#chunk-0:ended");
        assertThat(log.calls).noneMatch(call -> call.startsWith("live."));
    }

    /**
     * A history split that is no chunk (a table's rows in front of a feed) is read by the backfill
     * alone, also when the live reader is a feed that is given every log split at once: the feed
     * never hears of it, and it ends at its stop.
     */
    @Test
    void aHistorySplitIsNeverGivenToAFeedAndEndsAtItsStop() throws Exception {
        FakeLog log = new FakeLog(false).write("t", 0, 1, 2, 3);
        BackfillSplitReader<String> reader = reader(log);
        reader.handleSplitsChanges(
                new SplitsAddition<>(List.of(BackfillSplit.historyOnly("t", 0, 4))));
        List<String> out = fetchBySplit(reader);
        out.addAll(fetchBySplit(reader));
        assertThat(out).containsExactly("t:t@0", "t:t@1", "t:t@2", "t:t@3", "t:ended");
        assertThat(log.calls).noneMatch(call -> call.startsWith("live."));
    }

    /**
     * A history split whose backfill ends below its stop lacks the rest: a gap naming it, never a
     * handover to a seekable live reader (which would read the log's offsets as the history's).
     */
    @Test
    void aHistorySplitWhoseBackfillEndsBelowItsStopIsAGapNotAHandover() {
        FakeLog log = new FakeLog(true).write("t", 0, 1, 2, 3, 4);
        log.backfillEnds.put("t", 3L);
        BackfillSplitReader<String> reader = reader(log);
        reader.handleSplitsChanges(
                new SplitsAddition<>(List.of(BackfillSplit.historyOnly("t", 0, 5))));
        assertThatThrownBy(
                        () -> {
                            for (int i = 0; i < 3; i++) {
                                fetchBySplit(reader);
                            }
                        })
                .isInstanceOf(OffsetGapException.class)
                .hasMessageContaining("t")
                .hasMessageContaining("3");
        assertThat(log.calls).noneMatch(call -> call.startsWith("live."));
    }

    /**
     * A history split cut into chunks is read oldest first, its chunks before the part it keeps,
     * whatever the live reader's kind: the own-part-first turn of a feed is for a log split's
     * handover, which a history split does not have; its rows first would let the reader's
     * watermark pass the chunks' older rows (review of the split kinds, with a feed: the part's
     * rows came first).
     */
    @ParameterizedTest(name = "seekable live reader: {0}")
    @ValueSource(booleans = {true, false})
    void aHistorySplitsChunksAreReadBeforeItsOwnPartWhateverTheLiveReader(boolean seekable)
            throws Exception {
        FakeLog log = new FakeLog(seekable).write("h", 0, 1, 2, 3);
        BackfillSplitReader<String> reader = reader(log);
        // as the enumerator assigns them at parallelism 1: the split, then its chunk
        reader.handleSplitsChanges(
                new SplitsAddition<>(
                        List.of(
                                BackfillSplit.historyOnly("h", 2, 4),
                                BackfillSplit.historyChunk("h", 0, 0, 2))));
        List<String> out = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            out.addAll(fetchBySplit(reader));
        }
        assertThat(out).containsSubsequence("h#chunk-0:h@0", "h#chunk-0:h@1", "h:h@2", "h:h@3");
        assertThat(log.calls).noneMatch(call -> call.startsWith("live."));
    }

    /** A chunk's history ends below its stop (files gone): a gap, failed by default. */
    @Test
    void aChunkWhoseBackfillEndsBelowItsStopFailsNamingTheChunk() {
        FakeLog log = new FakeLog(true).write("a", 0, 1, 2, 3, 4, 5);
        log.backfillEnds.put("a", 3L);
        BackfillSplitReader<String> reader = reader(log);
        reader.handleSplitsChanges(
                new SplitsAddition<>(List.of(BackfillSplit.historyChunk("a", 0, 0, 5))));
        assertThatThrownBy(() -> fetchBySplit(reader))
                .isInstanceOf(OffsetGapException.class)
                .hasMessageContaining("a#chunk-0")
                .hasMessageContaining("3");
        assertThat(log.calls).noneMatch(call -> call.startsWith("live."));
    }

    /** Told to skip, a chunk whose history ends below its stop skips the rest and ends. */
    @Test
    void aChunkWhoseBackfillEndsBelowItsStopSkipsTheRestWhenToldTo() throws Exception {
        FakeLog log = new FakeLog(true).write("a", 0, 1, 2, 3, 4, 5);
        log.backfillEnds.put("a", 3L);
        SimpleCounter skipped = new SimpleCounter();
        BackfillSplitReader<String> reader = skipping(log, skipped);
        reader.handleSplitsChanges(
                new SplitsAddition<>(List.of(BackfillSplit.historyChunk("a", 0, 0, 5))));
        List<String> out = fetchBySplit(reader);
        out.addAll(fetchBySplit(reader));
        assertThat(out)
                .containsExactly(
                        "a#chunk-0:a@0", "a#chunk-0:a@1", "a#chunk-0:a@2", "a#chunk-0:ended");
        assertThat(skipsApplied).containsExactly("a#chunk-0:3..4");
        assertThat(skipped.getCount()).isEqualTo(2);
        assertThat(log.calls).noneMatch(call -> call.startsWith("live."));
    }

    /**
     * A chunk is paused by its log split's id on the backfill reader; one that waits for its turn
     * while paused is paused there once it reads.
     */
    @Test
    void aPausedChunkIsPausedByItsLogSplitOnTheBackfillReaderAlsoWhenItsTurnComes()
            throws Exception {
        FakeLog log = new FakeLog(true).write("a", 0, 1, 2, 3);
        BackfillSplitReader<String> reader = reader(log);
        BackfillSplit chunk0 = BackfillSplit.historyChunk("a", 0, 0, 2);
        BackfillSplit chunk1 = BackfillSplit.historyChunk("a", 1, 2, 4);
        reader.handleSplitsChanges(new SplitsAddition<>(List.of(chunk0, chunk1)));
        reader.pauseOrResumeSplits(splits(chunk1), List.of());
        // chunk 1 waits: nothing to pause in the log reader yet
        assertThat(log.calls).noneMatch(call -> call.startsWith("backfill.pause"));
        assertThat(fetchBySplit(reader))
                .containsExactly("a#chunk-0:a@0", "a#chunk-0:a@1", "a#chunk-0:ended");
        assertThat(log.calls).endsWith("backfill.add a@2", "backfill.pause [a]");
        assertThat(fetchBySplit(reader)).isEmpty();

        reader.pauseOrResumeSplits(List.of(), splits(chunk1));
        assertThat(log.calls).endsWith("backfill.resume [a]");
        assertThat(fetchBySplit(reader))
                .containsExactly("a#chunk-1:a@2", "a#chunk-1:a@3", "a#chunk-1:ended");
    }

    /** A chunk taken away (a rescale) frees its log split for the next chunk waiting. */
    @Test
    void aChunkRemovedFromTheReaderGivesItsTurnToTheNext() throws Exception {
        FakeLog log = new FakeLog(true).write("a", 0, 1, 2, 3);
        BackfillSplitReader<String> reader = reader(log);
        BackfillSplit chunk0 = BackfillSplit.historyChunk("a", 0, 0, 2);
        BackfillSplit chunk1 = BackfillSplit.historyChunk("a", 1, 2, 4);
        reader.handleSplitsChanges(new SplitsAddition<>(List.of(chunk0, chunk1)));
        reader.handleSplitsChanges(new SplitsRemoval<>(List.of(chunk0)));
        assertThat(log.calls).endsWith("backfill.remove a", "backfill.add a@2");
        assertThat(fetchBySplit(reader))
                .containsExactly("a#chunk-1:a@2", "a#chunk-1:a@3", "a#chunk-1:ended");
    }

    /**
     * Watermark alignment pauses the chunk that reads while another chunk of the same log split
     * waits: the waiting one holds the reader's watermark back (it emitted nothing), so the paused
     * one gives way, and goes on at its next offset once its turn comes back and it is resumed.
     */
    @Test
    void aChunkPausedForAlignmentGivesItsLogSplitToAWaitingChunkAndGoesOnWhereItStood()
            throws Exception {
        FakeLog log = new FakeLog(true).write("a", 0, 1);
        BackfillSplitReader<String> reader = reader(log);
        BackfillSplit chunk0 = BackfillSplit.historyChunk("a", 0, 0, 4);
        BackfillSplit chunk1 = BackfillSplit.historyChunk("a", 1, 4, 6);
        reader.handleSplitsChanges(new SplitsAddition<>(List.of(chunk0, chunk1)));
        assertThat(fetchBySplit(reader)).containsExactly("a#chunk-0:a@0", "a#chunk-0:a@1");

        reader.pauseOrResumeSplits(splits(chunk0), List.of());
        assertThat(log.calls)
                .endsWith("backfill.pause [a]", "backfill.remove a", "backfill.add a@4");
        log.write("a", 2, 3, 4, 5);
        assertThat(fetchBySplit(reader))
                .containsExactly("a#chunk-1:a@4", "a#chunk-1:a@5", "a#chunk-1:ended");
        // chunk 0's turn again, still paused
        assertThat(log.calls).endsWith("backfill.add a@2", "backfill.pause [a]");
        assertThat(fetchBySplit(reader)).isEmpty();

        reader.pauseOrResumeSplits(List.of(), splits(chunk0));
        assertThat(fetchBySplit(reader))
                .containsExactly("a#chunk-0:a@2", "a#chunk-0:a@3", "a#chunk-0:ended");
    }

    /**
     * A chunk that comes while another chunk of its log split is paused for alignment reads at
     * once: waiting behind the paused one, it would hold the reader's watermark back for ever.
     */
    @Test
    void aChunkThatComesWhileItsLogSplitsReaderIsPausedReadsAtOnce() throws Exception {
        FakeLog log = new FakeLog(true).write("a", 0, 1, 2, 3, 4, 5);
        BackfillSplitReader<String> reader = reader(log);
        BackfillSplit chunk0 = BackfillSplit.historyChunk("a", 0, 0, 4);
        reader.handleSplitsChanges(new SplitsAddition<>(List.of(chunk0)));
        reader.pauseOrResumeSplits(splits(chunk0), List.of());
        BackfillSplit chunk1 = BackfillSplit.historyChunk("a", 1, 4, 6);
        reader.handleSplitsChanges(new SplitsAddition<>(List.of(chunk1)));
        assertThat(log.calls).endsWith("backfill.remove a", "backfill.add a@4");
        assertThat(fetchBySplit(reader))
                .containsExactly("a#chunk-1:a@4", "a#chunk-1:a@5", "a#chunk-1:ended");
    }

    /**
     * Review of issue 34 (defect 2, oldest first): with a feed (a live reader that is not seekable)
     * and a backfill that ends where an archive ends, the log split's own part used to read its
     * short last part first and hand over to the feed at once. Now it waits for every chunk of it
     * on the same reader (parallelism 1, or a rescale): meanwhile the feed delivers the partition's
     * new records, which a backfilling split drops (the backfill is to cover them), and the archive
     * cannot: the handover is a gap (FAIL: the job fails, again after each restore; SKIP: the
     * records the feed delivered while the own part waited are lost). Before the change this test
     * passed: a@2 and a@3 from the archive, FINISHED@4, then a@4 and a@5 from the feed.
     */
    @Test
    void aFeedsOwnPartWaitingBehindItsChunksLosesNothingTheFeedDeliversMeanwhile()
            throws Exception {
        FakeLog log = new FakeLog(false).write("a", 0, 1, 2, 3);
        log.backfillEnds.put("a", 4L); // an archive holding 0..3
        BackfillSplitReader<String> reader = reader(log);
        // as the enumerator assigns them at parallelism 1: the split, then its chunk
        BackfillSplit own = backfilling("a", 2, 4);
        BackfillSplit chunk0 = BackfillSplit.historyChunk("a", 0, 0, 2);
        reader.handleSplitsChanges(new SplitsAddition<>(List.of(own, chunk0)));

        List<String> out = new ArrayList<>(fetchBySplit(reader));
        // live records come while the history is read (at parallelism 1: all of it)
        log.write("a", 4, 5);
        for (int i = 0; i < 4; i++) {
            out.addAll(fetchBySplit(reader));
        }
        assertThat(out)
                .contains("a#chunk-0:a@0", "a#chunk-0:a@1", "a#chunk-0:ended")
                .containsSubsequence("a:a@2", "a:a@3", "a:a@4", "a:a@5");
    }

    /**
     * A chunk that takes over its log split because the reading one was paused for alignment
     * (give-way) starts its turn before its records, and so does each chunk whose turn comes at a
     * release; the paused one, when its turn comes back, is paused again on the backfill reader
     * (its removal dropped the pause), and reads once resumed. With nothing reading, the backfill
     * reader stays open outside forward mode and closes in it.
     */
    @Test
    void aSplitThatTakesOverAtAGiveWayOrAReleaseStartsItsTurn() throws Exception {
        turnsInSeen = true;
        FakeLog log = new FakeLog(true).write("a", 0, 1);
        BackfillSplitReader<String> reader = reader(log);
        BackfillSplit chunk0 = BackfillSplit.historyChunk("a", 0, 0, 4);
        BackfillSplit chunk1 = BackfillSplit.historyChunk("a", 1, 4, 6);
        BackfillSplit chunk2 = BackfillSplit.historyChunk("a", 2, 6, 8);
        reader.handleSplitsChanges(new SplitsAddition<>(List.of(chunk0, chunk1, chunk2)));
        assertThat(fetchBySplit(reader)).containsExactly("a#chunk-0:a@0", "a#chunk-0:a@1");

        reader.pauseOrResumeSplits(List.of(chunk0), List.of());
        assertThat(log.calls)
                .endsWith("backfill.pause [a]", "backfill.remove a", "backfill.add a@4");
        log.write("a", 2, 3, 4, 5, 6, 7);
        // chunk 1 took over at the give-way; when it ends, chunk 2 (not paused) goes before
        // chunk 0 (paused): each starts its turn before its first record
        assertThat(fetchBySplit(reader))
                .containsExactly(
                        "a#chunk-1:TURN",
                        "a#chunk-1:a@4",
                        "a#chunk-1:a@5",
                        "a#chunk-2:TURN",
                        "a#chunk-1:ended");
        assertThat(log.calls).endsWith("backfill.remove a", "backfill.add a@6");
        assertThat(fetchBySplit(reader))
                .containsExactly(
                        "a#chunk-2:a@6", "a#chunk-2:a@7", "a#chunk-0:TURN", "a#chunk-2:ended");
        assertThat(log.calls)
                .endsWith("backfill.remove a", "backfill.add a@2", "backfill.pause [a]");
        assertThat(fetchBySplit(reader)).isEmpty();
        reader.pauseOrResumeSplits(List.of(), List.of(chunk0));
        assertThat(fetchBySplit(reader))
                .containsExactly("a#chunk-0:a@2", "a#chunk-0:a@3", "a#chunk-0:ended");
        assertThat(reader.hasBackfillReader()).isTrue();
        mode.setForward(true);
        fetchBySplit(reader);
        assertThat(reader.hasBackfillReader()).isFalse();
        assertThat(log.calls).contains("backfill.close");
    }

    /** Closing closes the live reader also when closing the backfill reader fails. */
    @Test
    void closingClosesTheLiveReaderAlsoWhenClosingTheBackfillReaderFails() throws Exception {
        FakeLog log = new FakeLog(true).write("a", 0, 1, 2, 3);
        log.backfillCloseFailure = new IOException("backfill close failed");
        BackfillSplitReader<String> reader = reader(log);
        reader.handleSplitsChanges(
                new SplitsAddition<>(
                        List.of(
                                new BackfillSplit(
                                        "a",
                                        HandoverState.BACKFILLING,
                                        0,
                                        2,
                                        OptionalLong.empty()))));
        fetch(reader);
        log.write("a", 4);
        fetch(reader);
        assertThat(log.calls).contains("live.add a@2");
        assertThatThrownBy(reader::close).hasMessageContaining("backfill close failed");
        assertThat(log.calls).contains("backfill.close", "live.close");
    }

    /** An error closing the backfill reader does not keep the live reader open either. */
    @Test
    void anErrorClosingTheBackfillReaderStillClosesTheLiveReader() throws Exception {
        FakeLog log = new FakeLog(true).write("a", 0, 1, 2, 3);
        log.backfillCloseFailure = new NoClassDefFoundError("torn down");
        BackfillSplitReader<String> reader = reader(log);
        reader.handleSplitsChanges(new SplitsAddition<>(List.of(backfilling("a", 0, 2))));
        fetch(reader);
        log.write("a", 4);
        fetch(reader);
        assertThat(log.calls).contains("live.add a@2");
        assertThatThrownBy(reader::close).isInstanceOf(NoClassDefFoundError.class);
        assertThat(log.calls).endsWith("backfill.close", "live.close");
    }
}
