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
import dev.sourcebackfill.source.spi.LogSplitDiscoverer;
import dev.sourcebackfill.source.split.BackfillSplit;
import dev.sourcebackfill.source.split.HandoverState;

import org.apache.flink.api.connector.source.ReaderInfo;
import org.apache.flink.api.connector.source.SplitsAssignment;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The history version a discoverer fixes for a split ({@link DiscoveredSplit#withHistoryVersion})
 * reaches every piece of the split's history the backfill reads, its chunks too (review: a chunk
 * without it was read in the log's current history), and the log's forward-mode hook gets the
 * versions of the splits in the status table.
 */
class HistoryVersionEnumeratorTest {

    private static final int PARALLELISM = 2;

    private final BackfillSplitEnumeratorTest.RecordingContext context =
            new BackfillSplitEnumeratorTest.RecordingContext(PARALLELISM);
    private final BackfillSplitEnumeratorTest.FakeDiscoverer discoverer =
            new BackfillSplitEnumeratorTest.FakeDiscoverer();

    @AfterEach
    void tearDown() throws Throwable {
        context.close();
    }

    @Test
    void theChunksOfASplitWithAHistoryVersionCarryTheVersion() throws Throwable {
        discoverer.splits.add(DiscoveredSplit.backfilled("s-0", 0, 100).withHistoryVersion("v7"));
        BackfillSplitEnumerator enumerator =
                new BackfillSplitEnumerator(
                        context, discoverer, false, Duration.ZERO, OptionalLong.of(30), null);
        enumerator.start();
        context.runNextOneTimeCallable();
        for (int subtask = 0; subtask < PARALLELISM; subtask++) {
            context.registerReader(new ReaderInfo(subtask, "localhost"));
            enumerator.addReader(subtask);
        }
        Map<String, Optional<String>> versions = new HashMap<>();
        for (SplitsAssignment<BackfillSplit> a : context.getSplitsAssignmentSequence()) {
            a.assignment()
                    .values()
                    .forEach(l -> l.forEach(s -> versions.put(s.splitId(), s.historyVersion())));
        }
        assertThat(versions)
                .as("each piece of s-0's history, the split and its chunks, reads version v7")
                .containsOnly(
                        Map.entry("s-0", Optional.of("v7")),
                        Map.entry("s-0#chunk-0", Optional.of("v7")),
                        Map.entry("s-0#chunk-1", Optional.of("v7")),
                        Map.entry("s-0#chunk-2", Optional.of("v7")));
    }

    @Test
    void theForwardModeHookGetsTheHistoryVersionsOfTheStatusTable() throws Throwable {
        discoverer.splits.add(DiscoveredSplit.backfilled("s-0", 0, 100).withHistoryVersion("v7"));
        discoverer.splits.add(DiscoveredSplit.backfilled("s-1", 0, 100));
        BackfillSplitEnumerator enumerator =
                new BackfillSplitEnumerator(context, discoverer, false, Duration.ZERO, null);
        enumerator.start();
        context.runNextOneTimeCallable();
        context.registerReader(new ReaderInfo(0, "localhost"));
        enumerator.addReader(0);
        context.registerReader(new ReaderInfo(1, "localhost"));
        enumerator.addReader(1);
        Map<Integer, List<SplitStatus>> finished = new HashMap<>();
        for (SplitsAssignment<BackfillSplit> a : context.getSplitsAssignmentSequence()) {
            a.assignment()
                    .forEach(
                            (reader, splits) ->
                                    splits.forEach(
                                            split ->
                                                    finished.computeIfAbsent(
                                                                    reader, r -> new ArrayList<>())
                                                            .add(
                                                                    new SplitStatus(
                                                                            split.splitId(),
                                                                            HandoverState.FINISHED,
                                                                            100,
                                                                            false))));
        }
        finished.forEach(
                (reader, statuses) ->
                        enumerator.handleSourceEvent(
                                reader, new SplitStatusReportEvent(7L, 1, statuses)));
        enumerator.snapshotState(1);
        enumerator.notifyCheckpointComplete(1);
        assertThat(enumerator.isForwardMode()).isTrue();
        context.runNextOneTimeCallable();
        assertThat(discoverer.forwardModeCalls).containsExactly("1 [s-0, s-1]");
        assertThat(discoverer.forwardModeVersions).containsExactly(Set.of("v7"));
    }

    /** A discoverer written for the hook before history versions is still called. */
    @Test
    void aDiscovererOfTheHookWithoutVersionsIsStillCalled() throws Exception {
        List<String> calls = new ArrayList<>();
        @SuppressWarnings("deprecation")
        LogSplitDiscoverer old =
                new LogSplitDiscoverer() {
                    @Override
                    public List<DiscoveredSplit> discoverSplits(boolean initial) {
                        return List.of();
                    }

                    @Override
                    public void onForwardMode(long checkpointId, Set<String> splitIds) {
                        calls.add(checkpointId + " " + splitIds);
                    }
                };
        old.onForwardMode(4, Set.of("s-0"), Set.of("v7"));
        assertThat(calls).containsExactly("4 [s-0]");
    }
}
