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
package dev.sourcebackfill.source.testutils;

import dev.sourcebackfill.source.split.BackfillSplit;
import dev.sourcebackfill.source.split.HandoverState;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What one test run observed, shared between the MiniCluster's tasks and the test (one JVM): reader
 * snapshots, enumerator snapshots, forward-mode entries, split assignments, the checker's verdicts.
 * Keyed by a run id so that runs do not see each other.
 */
public final class Observations {

    private static final Map<String, Observations> RUNS = new ConcurrentHashMap<>();

    /** (checkpoint, subtask) -> the splits the reader snapshotted. */
    final Map<Long, Map<Integer, List<BackfillSplit>>> readerSnapshots = new ConcurrentHashMap<>();

    /** checkpoint -> the live (not ended) splits in the enumerator's snapshot. */
    final Map<Long, Set<String>> enumeratorSnapshots = new ConcurrentHashMap<>();

    /** A reader entered forward mode, confirmed by a checkpoint, at a wall-clock time. */
    public record ForwardModeEntry(int subtask, long checkpoint, long atMillis) {}

    public final ConcurrentLinkedQueue<ForwardModeEntry> forwardModeEntries =
            new ConcurrentLinkedQueue<>();

    /** split -> subtasks it was added to, in order. */
    public final Map<String, List<Integer>> splitAdds = new ConcurrentHashMap<>();

    public final ConcurrentLinkedQueue<String> violations = new ConcurrentLinkedQueue<>();

    /** partition -> records counted in checkpointed state when its last record arrived. */
    public final Map<Integer, Long> completedPartitions = new ConcurrentHashMap<>();

    /** Pieces of partitions ("partition/piece") whose records all arrived, with their count. */
    public final Map<String, Long> completedPieces = new ConcurrentHashMap<>();

    /** How many records the log has in each piece ("partition/piece"), once counted. */
    final Map<String, Long> piecesRecordCounts = new ConcurrentHashMap<>();

    public final AtomicLong recordsChecked = new AtomicLong();
    public final AtomicLong maxOffsetSeen = new AtomicLong();
    public final Map<String, AtomicBoolean> firedFailures = new ConcurrentHashMap<>();
    public final AtomicLong failuresInjected = new AtomicLong();

    /**
     * The (failover region, attempt) of every injected failure: Flink restarts a region once for
     * the failures of one attempt, so this is the number of restarts the failures cause.
     */
    public final Set<String> failureEpisodes = ConcurrentHashMap.newKeySet();

    /** How often Flink reset a single subtask (regional failover) through addSplitsBack. */
    public final AtomicLong subtaskResets = new AtomicLong();

    /** Splits some reader reported FINISHED at least once (through the source's listener). */
    public final Set<String> finishedSplits = ConcurrentHashMap.newKeySet();

    /** When a split last reached FINISHED (epoch ms); 0 before any. */
    public final AtomicLong lastFinishedAtMillis = new AtomicLong();

    /**
     * Checkpoints some reader task was notified of as completed. Not the enumerator's
     * notifications: forward mode is decided in those, so they would prove nothing.
     */
    public final Set<Long> completedCheckpoints = ConcurrentHashMap.newKeySet();

    /** How often an enumerator was created from a checkpoint (restore, global failover). */
    public final AtomicLong enumeratorRestores = new AtomicLong();

    public static Observations of(String runId) {
        return RUNS.computeIfAbsent(runId, k -> new Observations());
    }

    public static void forget(String runId) {
        RUNS.remove(runId);
    }

    /** What a reader's snapshot and the enumerator's held (for {@code ObservationsTest}). */
    public void recordSnapshots(
            long checkpointId, Map<Integer, List<BackfillSplit>> readers, Set<String> enumerator) {
        readers.forEach((subtask, splits) -> recordReaderSnapshot(checkpointId, subtask, splits));
        enumeratorSnapshots.put(checkpointId, enumerator);
    }

    void recordReaderSnapshot(long checkpointId, int subtask, List<BackfillSplit> splits) {
        readerSnapshots
                .computeIfAbsent(checkpointId, k -> new ConcurrentHashMap<>())
                .put(subtask, new ArrayList<>(splits));
    }

    void recordSplitAdd(String splitId, int subtask) {
        splitAdds.computeIfAbsent(splitId, k -> new CopyOnWriteArrayList<>()).add(subtask);
    }

    public boolean hasReaderSnapshots() {
        return !readerSnapshots.isEmpty();
    }

    public boolean anyForwardMode() {
        return !forwardModeEntries.isEmpty();
    }

    /** Number of splits that were added to more than one distinct subtask during the run. */
    public int splitsThatMoved() {
        int moved = 0;
        for (List<Integer> subtasks : splitAdds.values()) {
            moved += new HashSet<>(subtasks).size() > 1 ? 1 : 0;
        }
        return moved;
    }

    /**
     * Checks every forward-mode entry against the ground truth: the readers' own snapshots of that
     * checkpoint (taken after the enumerator's), which together must hold every split the
     * enumerator knew, each FINISHED.
     *
     * @return the problems found, empty if none
     */
    public List<String> forwardModeProblems() {
        List<String> problems = new ArrayList<>();
        for (ForwardModeEntry entry : forwardModeEntries) {
            int subtask = entry.subtask();
            long checkpoint = entry.checkpoint();
            Map<Integer, List<BackfillSplit>> readers =
                    readerSnapshots.getOrDefault(checkpoint, Map.of());
            Set<String> known = enumeratorSnapshots.get(checkpoint);
            if (known == null || known.isEmpty()) {
                problems.add(
                        "forward mode on subtask "
                                + subtask
                                + " at checkpoint "
                                + checkpoint
                                + " without an enumerator snapshot listing splits");
                continue;
            }
            if (!completedCheckpoints.contains(checkpoint)) {
                problems.add(
                        "forward mode on subtask "
                                + subtask
                                + " at checkpoint "
                                + checkpoint
                                + ", which no reader was told completed");
            }
            if (readers.isEmpty()) {
                problems.add(
                        "forward mode at checkpoint "
                                + checkpoint
                                + " but no reader snapshotted it");
                continue;
            }
            // readers that finished (no splits in a bounded job) take no snapshot; every split
            // the enumerator knew must be in some reader's snapshot, FINISHED
            Map<String, HandoverState> union = new HashMap<>();
            readers.values().forEach(l -> l.forEach(s -> union.put(s.splitId(), s.state())));
            for (String split : known) {
                HandoverState state = union.get(split);
                if (state != HandoverState.FINISHED) {
                    problems.add(
                            "forward mode at checkpoint "
                                    + checkpoint
                                    + " but split "
                                    + split
                                    + " was "
                                    + state
                                    + " in the readers' snapshots");
                }
            }
        }
        return problems;
    }
}
