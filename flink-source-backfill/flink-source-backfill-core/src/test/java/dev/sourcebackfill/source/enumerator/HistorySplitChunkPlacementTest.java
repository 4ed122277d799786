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
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The placement of a history split's chunks on every reader (03992b2): restores, resets and
 * rescales place them by the same rule, each split exactly once, without the split's kind being
 * lost on the way.
 */
class HistorySplitChunkPlacementTest {

    private BackfillSplitEnumeratorTest.RecordingContext context;
    private final BackfillSplitEnumeratorTest.FakeDiscoverer discoverer =
            new BackfillSplitEnumeratorTest.FakeDiscoverer();
    private BackfillSplitEnumerator enumerator;
    private final Map<Integer, Long> reportIds = new HashMap<>();

    @AfterEach
    void tearDown() throws Throwable {
        if (context != null) {
            context.close();
        }
    }

    private void create(int parallelism, BackfillEnumeratorState restored) throws Throwable {
        if (context != null) {
            context.close();
        }
        context = new BackfillSplitEnumeratorTest.RecordingContext(parallelism);
        enumerator =
                new BackfillSplitEnumerator(
                        context, discoverer, false, Duration.ZERO, OptionalLong.of(20), restored);
        enumerator.start();
        context.runNextOneTimeCallable();
    }

    private void register(int subtask) {
        context.registerReader(new ReaderInfo(subtask, "localhost"));
        enumerator.addReader(subtask);
    }

    private Map<String, List<Integer>> owners() {
        Map<String, List<Integer>> owners = new HashMap<>();
        for (SplitsAssignment<BackfillSplit> a : context.getSplitsAssignmentSequence()) {
            a.assignment()
                    .forEach(
                            (subtask, splits) ->
                                    splits.forEach(
                                            s ->
                                                    owners.computeIfAbsent(
                                                                    s.splitId(),
                                                                    k -> new ArrayList<>())
                                                            .add(subtask)));
        }
        return owners;
    }

    private void report(int subtask, SplitStatus... statuses) {
        long id = reportIds.merge(subtask, 1L, Long::sum);
        enumerator.handleSourceEvent(
                subtask, new SplitStatusReportEvent(100 + subtask, id, List.of(statuses)));
    }

    private static Map<String, List<Integer>> expected(int parallelism) {
        int own = BackfillSplitEnumerator.ownerOf("h", parallelism);
        Map<String, List<Integer>> expected = new HashMap<>();
        expected.put("h", List.of(own));
        for (int i = 0; i < 4; i++) {
            expected.put("h#chunk-" + i, List.of((own + 1 + i) % parallelism));
        }
        return expected;
    }

    /**
     * An enumerator snapshotted before any reader registered (every split unassigned), restored at
     * another parallelism through the state serializer: the history split's kind survives, and its
     * chunks go round every reader of the new parallelism, each once.
     */
    @Test
    void unassignedHistoryChunksRestoredAtAnotherParallelismGoRoundEveryReader() throws Throwable {
        discoverer.splits.add(DiscoveredSplit.historyOnly("h", 0, 100));
        create(2, null);
        BackfillEnumeratorState state = enumerator.snapshotState(1);
        BackfillEnumeratorStateSerializer serializer =
                new BackfillEnumeratorStateSerializer(id -> SplitKind.LOG);
        BackfillEnumeratorState restored =
                serializer.deserialize(serializer.getVersion(), serializer.serialize(state));

        for (int parallelism = 1; parallelism <= 5; parallelism++) {
            create(parallelism, restored);
            for (int subtask = 0; subtask < parallelism; subtask++) {
                register(subtask);
            }
            assertThat(owners()).as("parallelism %d", parallelism).isEqualTo(expected(parallelism));
        }
    }

    /**
     * The split's own reader is reset (regional failover) and gives back the split and its chunks:
     * they come back to the same reader once it registers again, and nothing goes to the other.
     */
    @Test
    void aResetOwnReaderGetsTheSplitAndItsChunksBackAndNothingElseMoves() throws Throwable {
        discoverer.splits.add(DiscoveredSplit.historyOnly("h", 0, 100));
        create(2, null);
        register(0);
        register(1);
        assertThat(owners()).isEqualTo(expected(2));
        int own = BackfillSplitEnumerator.ownerOf("h", 2);
        List<BackfillSplit> given = new ArrayList<>();
        for (SplitsAssignment<BackfillSplit> a : context.getSplitsAssignmentSequence()) {
            given.addAll(a.assignment().getOrDefault(own, List.of()));
        }
        int before = context.getSplitsAssignmentSequence().size();
        context.unregisterReader(own);
        enumerator.addSplitsBack(given, own);
        assertThat(context.getSplitsAssignmentSequence()).hasSize(before);
        register(own);
        List<String> again = new ArrayList<>();
        for (SplitsAssignment<BackfillSplit> a :
                context.getSplitsAssignmentSequence()
                        .subList(before, context.getSplitsAssignmentSequence().size())) {
            assertThat(a.assignment().keySet()).containsOnly(own);
            a.assignment().get(own).forEach(s -> again.add(s.splitId()));
        }
        assertThat(again)
                .containsExactlyInAnyOrderElementsOf(
                        given.stream().map(BackfillSplit::splitId).toList());
    }

    /**
     * A chunk given back after its split (the last part) ended and was snapshotted: the split's
     * kind is still known (its row stays), and the chunk goes back to its reader.
     */
    @Test
    void aChunkGivenBackAfterItsSplitEndedIsPlacedByTheHistoryRule() throws Throwable {
        discoverer.splits.add(DiscoveredSplit.historyOnly("h", 0, 100));
        create(3, null);
        for (int subtask = 0; subtask < 3; subtask++) {
            register(subtask);
        }
        int own = BackfillSplitEnumerator.ownerOf("h", 3);
        report(own, new SplitStatus("h", HandoverState.BACKFILLING, 100, true));
        enumerator.snapshotState(1);
        enumerator.notifyCheckpointComplete(1);
        int chunkOwner = (own + 1 + 2) % 3;
        BackfillSplit chunk = BackfillSplit.historyChunk("h", 2, 40, 60);
        int before = context.getSplitsAssignmentSequence().size();
        context.unregisterReader(chunkOwner);
        enumerator.addSplitsBack(List.of(chunk), chunkOwner);
        register(chunkOwner);
        List<SplitsAssignment<BackfillSplit>> after =
                context.getSplitsAssignmentSequence()
                        .subList(before, context.getSplitsAssignmentSequence().size());
        assertThat(after).hasSize(1);
        assertThat(after.get(0).assignment()).containsOnlyKeys(chunkOwner);
        assertThat(after.get(0).assignment().get(chunkOwner)).containsExactly(chunk);
    }

    /**
     * A log split's chunks keep the old rule: never on the split's own reader at parallelism 2+.
     */
    @Test
    void aLogSplitsChunksStillAvoidTheSplitsOwnReader() throws Throwable {
        discoverer.splits.add(DiscoveredSplit.backfilled("h", 0, 100));
        create(2, null);
        register(0);
        register(1);
        int own = BackfillSplitEnumerator.ownerOf("h", 2);
        Map<String, List<Integer>> owners = owners();
        assertThat(owners.get("h")).containsExactly(own);
        for (int i = 0; i < 4; i++) {
            assertThat(owners.get("h#chunk-" + i)).containsExactly(1 - own);
        }
    }
}
