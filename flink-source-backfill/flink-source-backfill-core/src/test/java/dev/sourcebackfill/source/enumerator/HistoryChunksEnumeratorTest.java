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

import dev.sourcebackfill.source.event.ForwardModeEvent;
import dev.sourcebackfill.source.event.SplitStatus;
import dev.sourcebackfill.source.event.SplitStatusReportEvent;
import dev.sourcebackfill.source.spi.DiscoveredSplit;
import dev.sourcebackfill.source.split.BackfillSplit;
import dev.sourcebackfill.source.split.HandoverState;
import dev.sourcebackfill.source.split.SplitKind;

import org.apache.flink.api.connector.source.ReaderInfo;
import org.apache.flink.api.connector.source.SplitsAssignment;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The enumerator's decisions on chunks of history ({@code setBackfillChunkSize}). */
class HistoryChunksEnumeratorTest {

    private static final int PARALLELISM = 2;

    private BackfillSplitEnumeratorTest.RecordingContext context =
            new BackfillSplitEnumeratorTest.RecordingContext(PARALLELISM);
    private final BackfillSplitEnumeratorTest.FakeDiscoverer discoverer =
            new BackfillSplitEnumeratorTest.FakeDiscoverer();
    private BackfillSplitEnumerator enumerator;
    private final Map<Integer, Long> reportIds = new HashMap<>();

    @AfterEach
    void tearDown() throws Throwable {
        context.close();
    }

    private void start(long chunkSize, BackfillEnumeratorState restored) throws Throwable {
        enumerator =
                new BackfillSplitEnumerator(
                        context,
                        discoverer,
                        false,
                        Duration.ZERO,
                        OptionalLong.of(chunkSize),
                        restored);
        enumerator.start();
        context.runNextOneTimeCallable();
        for (int subtask = 0; subtask < PARALLELISM; subtask++) {
            context.registerReader(new ReaderInfo(subtask, "localhost"));
            enumerator.addReader(subtask);
        }
    }

    private Map<String, BackfillSplit> assigned() {
        Map<String, BackfillSplit> splits = new HashMap<>();
        for (SplitsAssignment<BackfillSplit> a : context.getSplitsAssignmentSequence()) {
            a.assignment().values().forEach(list -> list.forEach(s -> splits.put(s.splitId(), s)));
        }
        return splits;
    }

    private List<String> owned(int subtask) {
        List<String> ids = new ArrayList<>();
        for (SplitsAssignment<BackfillSplit> a : context.getSplitsAssignmentSequence()) {
            a.assignment().getOrDefault(subtask, List.of()).forEach(s -> ids.add(s.splitId()));
        }
        return ids;
    }

    private void report(int subtask, SplitStatus... statuses) {
        long id = reportIds.merge(subtask, 1L, Long::sum);
        enumerator.handleSourceEvent(
                subtask, new SplitStatusReportEvent(100 + subtask, id, List.of(statuses)));
    }

    private boolean forwardModeSent() throws Exception {
        return context.getSentSourceEvent().values().stream()
                .flatMap(List::stream)
                .anyMatch(e -> e instanceof ForwardModeEvent);
    }

    /**
     * A history split the log found (a table's rows) is cut like a log split's history, and all of
     * it is history: its chunks and the part it keeps end at their stops and never go live, and its
     * positions, being no log positions, are never "history elsewhere".
     */
    @Test
    void aHistorySplitIsCutIntoHistoryChunksAndKeepsItsLastPartAsHistory() throws Throwable {
        discoverer.splits.add(DiscoveredSplit.historyOnly("h", 0, 100));
        start(30, null);

        Map<String, BackfillSplit> splits = assigned();
        assertThat(splits.keySet())
                .containsExactlyInAnyOrder("h", "h#chunk-0", "h#chunk-1", "h#chunk-2");
        assertThat(splits.values()).allMatch(s -> s.kind() == SplitKind.HISTORY);
        BackfillSplit own = splits.get("h");
        assertThat(own.nextOffset()).isEqualTo(90);
        assertThat(own.stoppingOffset()).hasValue(100);
        assertThat(own.targetEndOffset()).isEqualTo(100);
        assertThat(own.hasHistoryElsewhere()).isFalse();
        assertThat(own.state()).isEqualTo(HandoverState.BACKFILLING);
    }

    /**
     * The chunks of a history split (a table's files mixing partitions) have no live part to hold
     * back: they go round every reader, the split's own included, the next reader first.
     */
    @Test
    void theChunksOfAHistorySplitGoRoundEveryReader() {
        for (int parallelism = 1; parallelism <= 5; parallelism++) {
            int own = BackfillSplitEnumerator.ownerOf("h", parallelism);
            Set<Integer> chunkOwners = new HashSet<>();
            for (int i = 0; i < 12; i++) {
                BackfillSplit chunk = BackfillSplit.historyChunk("h", i, 10L * i, 10L * i + 10);
                int owner = BackfillSplitEnumerator.ownerOf(chunk, SplitKind.HISTORY, parallelism);
                assertThat(owner)
                        .as("chunk %d at parallelism %d", i, parallelism)
                        .isEqualTo((own + 1 + i) % parallelism);
                chunkOwners.add(owner);
            }
            assertThat(chunkOwners).hasSize(parallelism);
        }
    }

    /**
     * At parallelism 2 a history split's chunks are read by both readers (before, all went to the
     * reader other than the split's own, which read the whole table alone), and the split's own
     * reader also keeps its last part.
     */
    @Test
    void atParallelismTwoBothReadersReadAHistorySplitsChunks() throws Throwable {
        discoverer.splits.add(DiscoveredSplit.historyOnly("h", 0, 100));
        start(20, null);

        int own = BackfillSplitEnumerator.ownerOf("h", PARALLELISM);
        int other = 1 - own;
        assertThat(owned(other)).containsExactlyInAnyOrder("h#chunk-0", "h#chunk-2");
        assertThat(owned(own)).containsExactlyInAnyOrder("h", "h#chunk-1", "h#chunk-3");
    }

    /**
     * History [0, 100) in chunks of 30: chunks [0, 30), [30, 60), [60, 90) as splits of their own,
     * and the split keeps [90, 100) and its handover; the chunks go round the readers other than
     * the split's own (a reader reads a log split's chunks before its own part: on the split's own
     * reader they would hold its live records back).
     */
    @Test
    void aSplitsHistoryIsCutIntoChunksSpreadOverTheReadersAndTheSplitKeepsTheLastPart()
            throws Throwable {
        discoverer.splits.add(DiscoveredSplit.backfilled("s-0", 0, 100));
        start(30, null);

        Map<String, BackfillSplit> splits = assigned();
        assertThat(splits.keySet())
                .containsExactlyInAnyOrder("s-0", "s-0#chunk-0", "s-0#chunk-1", "s-0#chunk-2");
        BackfillSplit own = splits.get("s-0");
        assertThat(own.kind()).isEqualTo(SplitKind.LOG);
        assertThat(splits.get("s-0#chunk-0").kind()).isEqualTo(SplitKind.HISTORY);
        assertThat(own.nextOffset()).isEqualTo(90);
        assertThat(own.targetEndOffset()).isEqualTo(100);
        assertThat(own.stoppingOffset()).isEmpty();
        for (int i = 0; i < 3; i++) {
            BackfillSplit chunk = splits.get("s-0#chunk-" + i);
            assertThat(chunk.logSplitId()).isEqualTo("s-0");
            assertThat(chunk.nextOffset()).isEqualTo(30L * i);
            assertThat(chunk.stoppingOffset()).hasValue(30L * (i + 1));
            assertThat(chunk.state()).isEqualTo(HandoverState.BACKFILLING);
        }
        int ownOwner = BackfillSplitEnumerator.ownerOf("s-0", PARALLELISM);
        int other = 1 - ownOwner;
        assertThat(owned(ownOwner)).containsExactlyInAnyOrder("s-0");
        assertThat(owned(other))
                .containsExactlyInAnyOrder("s-0#chunk-0", "s-0#chunk-1", "s-0#chunk-2");
    }

    /** Chunks go round the readers other than the split's own; at parallelism 1 to that one. */
    @Test
    void chunksGoRoundTheReadersOtherThanTheSplitsOwn() {
        for (int parallelism = 1; parallelism <= 5; parallelism++) {
            int own = BackfillSplitEnumerator.ownerOf("s-0", parallelism);
            Set<Integer> chunkOwners = new HashSet<>();
            for (int i = 0; i < 12; i++) {
                BackfillSplit chunk = BackfillSplit.historyChunk("s-0", i, 10L * i, 10L * i + 10);
                int owner = BackfillSplitEnumerator.ownerOf(chunk, SplitKind.LOG, parallelism);
                assertThat(owner).isBetween(0, parallelism - 1);
                if (parallelism > 1) {
                    assertThat(owner)
                            .as("chunk %d at parallelism %d", i, parallelism)
                            .isNotEqualTo(own);
                }
                chunkOwners.add(owner);
            }
            assertThat(chunkOwners).hasSize(Math.max(1, parallelism - 1));
        }
    }

    /**
     * Forward mode needs every chunk ended as well as every split FINISHED, in a completed
     * checkpoint.
     */
    @Test
    void forwardModeWaitsForEveryChunkToEnd() throws Throwable {
        discoverer.splits.add(DiscoveredSplit.backfilled("s-0", 0, 100));
        start(50, null);
        int ownOwner = BackfillSplitEnumerator.ownerOf("s-0", PARALLELISM);
        report(ownOwner, new SplitStatus("s-0", HandoverState.FINISHED, 100, false));
        report(1 - ownOwner, new SplitStatus("s-0#chunk-0", HandoverState.BACKFILLING, 20, false));
        enumerator.snapshotState(1);
        enumerator.notifyCheckpointComplete(1);
        assertThat(forwardModeSent()).as("a chunk is still read").isFalse();
        assertThat(enumerator.isForwardMode()).isFalse();

        report(1 - ownOwner, new SplitStatus("s-0#chunk-0", HandoverState.BACKFILLING, 50, true));
        enumerator.notifyCheckpointComplete(2); // no snapshot 2 was taken: not eligible
        assertThat(forwardModeSent()).isFalse();
        enumerator.snapshotState(3);
        enumerator.notifyCheckpointComplete(3);
        assertThat(forwardModeSent()).isTrue();
    }

    /**
     * Chunks are cut once, at the job's first discovery: a restored enumerator keeps the chunks of
     * its state and cuts nothing again, chunk size or not.
     */
    @Test
    void aRestoredEnumeratorKeepsItsChunksAndCutsNothingAgain() throws Throwable {
        discoverer.splits.add(DiscoveredSplit.backfilled("s-0", 0, 100));
        start(50, null);
        BackfillEnumeratorState state = enumerator.snapshotState(1);
        assertThat(state.splits()).hasSize(2);
        context.close();

        context = new BackfillSplitEnumeratorTest.RecordingContext(PARALLELISM);
        discoverer.splits.clear();
        discoverer.splits.add(DiscoveredSplit.backfilled("s-0", 100, 500));
        start(10, state);
        assertThat(enumerator.tracker().size()).isEqualTo(2);
        assertThat(discoverer.calls).containsExactly(true, false);
    }

    /** A history no longer than a chunk, and a split read whole by the live reader, are not cut. */
    @Test
    void shortHistoriesAndSplitsReadByLiveAreNotCut() throws Throwable {
        discoverer.splits.add(DiscoveredSplit.backfilled("s-0", 0, 50));
        discoverer.splits.add(DiscoveredSplit.readByLive("s-1", 0));
        start(50, null);
        assertThat(assigned().keySet()).containsExactlyInAnyOrder("s-0", "s-1");
    }

    /** A bounded split's history ends at its stop: nothing past it is cut into chunks. */
    @Test
    void aBoundedSplitsHistoryIsCutUpToItsStop() throws Throwable {
        discoverer.splits.add(DiscoveredSplit.backfilled("s-0", 0, 100).withStoppingOffset(45));
        start(20, null);
        Map<String, BackfillSplit> splits = assigned();
        assertThat(splits.keySet()).containsExactlyInAnyOrder("s-0", "s-0#chunk-0", "s-0#chunk-1");
        assertThat(splits.get("s-0").nextOffset()).isEqualTo(40);
        assertThat(splits.get("s-0").stoppingOffset()).hasValue(45);
    }

    /** Cuts a log makes outside the history, or out of order, fail naming the split. */
    @Test
    void cutsOutsideTheHistoryFailTheDiscoveryNamingTheSplit() {
        BackfillSplitEnumeratorTest.FakeDiscoverer badCuts =
                new BackfillSplitEnumeratorTest.FakeDiscoverer() {
                    @Override
                    public List<Long> cutHistory(
                            DiscoveredSplit split, long from, long to, long chunkSize) {
                        return List.of(60L, 40L);
                    }
                };
        badCuts.splits.add(DiscoveredSplit.backfilled("s-7", 0, 100));
        enumerator =
                new BackfillSplitEnumerator(
                        context, badCuts, false, Duration.ZERO, OptionalLong.of(30), null);
        enumerator.start();
        assertThatThrownBy(() -> context.runNextOneTimeCallable())
                .hasStackTraceContaining("split s-7")
                .hasStackTraceContaining("[60, 40]");
    }

    /** The default cut: every chunk size offsets from the history's start. */
    @Test
    void theDefaultCutIsEveryChunkSizeOffsets() throws Exception {
        DiscoveredSplit split = DiscoveredSplit.backfilled("s-0", 5, 100);
        assertThat(discoverer.cutHistory(split, 5, 100, 30)).containsExactly(35L, 65L, 95L);
        assertThat(discoverer.cutHistory(split, 5, 35, 30)).isEmpty();
        assertThat(discoverer.cutHistory(split, 5, 100, Long.MAX_VALUE)).isEmpty();
    }

    /** A cut at the history's end (or past it) fails too: the split itself would have nothing. */
    @Test
    void aCutAtTheHistorysEndFailsTheDiscoveryNamingTheSplit() {
        BackfillSplitEnumeratorTest.FakeDiscoverer cutAtEnd =
                new BackfillSplitEnumeratorTest.FakeDiscoverer() {
                    @Override
                    public List<Long> cutHistory(
                            DiscoveredSplit split, long from, long to, long chunkSize) {
                        return List.of(50L, to);
                    }
                };
        cutAtEnd.splits.add(DiscoveredSplit.backfilled("s-8", 0, 100));
        enumerator =
                new BackfillSplitEnumerator(
                        context, cutAtEnd, false, Duration.ZERO, OptionalLong.of(30), null);
        enumerator.start();
        assertThatThrownBy(() -> context.runNextOneTimeCallable())
                .hasStackTraceContaining("split s-8")
                .hasStackTraceContaining("[50, 100]");
    }

    /** The split that keeps the last part of a cut history says so: its offset is not committed. */
    @Test
    void theSplitThatKeepsTheLastPartOfItsHistorySaysItsHistoryIsInChunks() throws Throwable {
        discoverer.splits.add(DiscoveredSplit.backfilled("s-0", 0, 100));
        discoverer.splits.add(DiscoveredSplit.backfilled("s-1", 0, 20));
        start(30, null);
        assertThat(assigned().get("s-0").hasHistoryElsewhere()).isTrue();
        assertThat(assigned().get("s-1").hasHistoryElsewhere()).isFalse();
    }

    /**
     * The log is asked where to cut whatever the history's length: a log of files cuts a history no
     * longer than one chunk where a file of another partition starts (a table of 400 rows, a file
     * per partition, in chunks of 1,000,000 rows is read as two runs of one partition each).
     */
    @Test
    void aHistoryNoLongerThanAChunkIsCutWhereTheLogSays() throws Throwable {
        BackfillSplitEnumeratorTest.FakeDiscoverer files =
                new BackfillSplitEnumeratorTest.FakeDiscoverer() {
                    @Override
                    public List<Long> cutHistory(
                            DiscoveredSplit split, long from, long to, long chunkSize) {
                        return List.of(200L); // where the second partition's file starts
                    }
                };
        files.splits.add(DiscoveredSplit.backfilled("table", 0, 400).withStoppingOffset(400));
        enumerator =
                new BackfillSplitEnumerator(
                        context, files, false, Duration.ZERO, OptionalLong.of(1_000_000), null);
        enumerator.start();
        context.runNextOneTimeCallable();
        for (int subtask = 0; subtask < PARALLELISM; subtask++) {
            context.registerReader(new ReaderInfo(subtask, "localhost"));
            enumerator.addReader(subtask);
        }
        Map<String, BackfillSplit> splits = assigned();
        assertThat(splits.keySet()).containsExactlyInAnyOrder("table", "table#chunk-0");
        assertThat(splits.get("table#chunk-0").nextOffset()).isZero();
        assertThat(splits.get("table#chunk-0").stoppingOffset()).hasValue(200);
        assertThat(splits.get("table").nextOffset()).isEqualTo(200);
    }

    /**
     * A split whose history another split of the log reads (a partition whose history is a table's)
     * says so, chunks or not: its position is not committed before forward mode.
     */
    @Test
    void aSplitWhoseHistoryIsReadElsewhereSaysSo() throws Throwable {
        discoverer.splits.add(DiscoveredSplit.readByLive("p-0", 250).withHistoryElsewhere());
        discoverer.splits.add(DiscoveredSplit.readByLive("p-1", 0));
        enumerator = new BackfillSplitEnumerator(context, discoverer, false, Duration.ZERO, null);
        enumerator.start();
        context.runNextOneTimeCallable();
        for (int subtask = 0; subtask < PARALLELISM; subtask++) {
            context.registerReader(new ReaderInfo(subtask, "localhost"));
            enumerator.addReader(subtask);
        }
        assertThat(assigned().get("p-0").hasHistoryElsewhere()).isTrue();
        assertThat(assigned().get("p-0").state()).isEqualTo(HandoverState.FINISHED);
        assertThat(assigned().get("p-1").hasHistoryElsewhere()).isFalse();
    }
}
