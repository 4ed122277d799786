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
import dev.sourcebackfill.source.split.BackfillSplit;
import dev.sourcebackfill.source.split.HandoverState;

import org.apache.flink.annotation.Internal;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;

/**
 * The enumerator's global status table: every split's assignment, handover state and offsets, fed
 * by the readers' reports. It trusts a status only when the reader that holds the split now has
 * reported it since that reader was last reset (a restored reader may hold older state than the
 * table).
 */
@Internal
final class SplitStatusTracker {

    private static final Logger LOG = LoggerFactory.getLogger(SplitStatusTracker.class);

    /** What applying a report did. */
    enum ReportOutcome {
        /** Stale: from a reader incarnation that a reset replaced. */
        IGNORED,
        /** Applied; nothing became less finished. */
        APPLIED,
        /** Applied, and some split is now less finished than the table had it. */
        APPLIED_REGRESSED
    }

    private final Map<String, TrackedSplit> splits = new LinkedHashMap<>();
    private final Map<Integer, Long> currentIncarnation = new HashMap<>();
    private final Map<Integer, Set<Long>> retiredIncarnations = new HashMap<>();
    private final SplitCounts counts = new SplitCounts();

    /** Restores the table from a checkpoint: owners unknown, nothing confirmed. */
    void restore(Collection<BackfillEnumeratorState.SplitEntry> entries) {
        for (BackfillEnumeratorState.SplitEntry entry : entries) {
            put(new TrackedSplit(counts, entry.split(), entry.assigned(), entry.ended()));
        }
    }

    boolean contains(String splitId) {
        return splits.containsKey(splitId);
    }

    TrackedSplit get(String splitId) {
        return splits.get(splitId);
    }

    int size() {
        return splits.size();
    }

    Collection<TrackedSplit> all() {
        return splits.values();
    }

    /** Adds a newly discovered split, not yet assigned. */
    void add(BackfillSplit split) {
        put(new TrackedSplit(counts, split, false, false));
    }

    /** Puts a (counted) row into the table, replacing any of the same split. */
    private void put(TrackedSplit tracked) {
        TrackedSplit replaced = splits.put(tracked.split().splitId(), tracked);
        if (replaced != null) {
            replaced.discard();
        }
    }

    List<BackfillSplit> unassigned() {
        List<BackfillSplit> result = new ArrayList<>();
        for (TrackedSplit tracked : splits.values()) {
            if (!tracked.isAssigned() && !tracked.isEnded()) {
                result.add(tracked.split());
            }
        }
        return result;
    }

    void markAssigned(String splitId, int subtask) {
        splits.get(splitId).assignTo(subtask);
    }

    ReportOutcome apply(int subtask, SplitStatusReportEvent report) {
        long incarnation = report.readerIncarnation();
        if (retiredIncarnations.getOrDefault(subtask, Set.of()).contains(incarnation)) {
            LOG.debug("Ignoring stale report from subtask {}: {}", subtask, report);
            return ReportOutcome.IGNORED;
        }
        currentIncarnation.put(subtask, incarnation);
        boolean regressed = false;
        for (SplitStatus status : report.statuses()) {
            TrackedSplit tracked = splits.get(status.splitId());
            if (tracked == null) {
                LOG.warn(
                        "Subtask {} reported split {} that the enumerator does not know; ignored",
                        subtask,
                        status.splitId());
                continue;
            }
            if (tracked.isOvertakenBy(incarnation, report.reportId())) {
                continue; // an older report of the same reader, overtaken
            }
            boolean wasFinished = tracked.isConfirmedFinished();
            HandoverState before = tracked.state();
            tracked.applyReport(subtask, incarnation, report.reportId(), status);
            if (before.code() > status.state().code()) {
                LOG.info(
                        "Split {} is {} on subtask {} although the enumerator had it {}: "
                                + "the reader was restored to older state",
                        status.splitId(),
                        status.state(),
                        subtask,
                        before);
            }
            if (wasFinished && !tracked.isConfirmedFinished()
                    || before.code() > status.state().code()) {
                regressed = true;
            }
        }
        return regressed ? ReportOutcome.APPLIED_REGRESSED : ReportOutcome.APPLIED;
    }

    /**
     * A subtask was reset (regional failover): the restored reader may hold older state than the
     * table, so nothing it held is trusted until it reports again, and reports of the replaced
     * reader instance are ignored from now on.
     *
     * @param lastCompletedCheckpoint the latest checkpoint known complete; the reader is restored
     *     to it or to a later one
     */
    void resetSubtask(int subtask, OptionalLong lastCompletedCheckpoint) {
        Long incarnation = currentIncarnation.remove(subtask);
        if (incarnation != null) {
            retiredIncarnations.computeIfAbsent(subtask, k -> new HashSet<>()).add(incarnation);
        }
        for (TrackedSplit tracked : splits.values()) {
            Integer owner = tracked.owner();
            if (owner != null && owner == subtask) {
                tracked.ownerReset(lastCompletedCheckpoint);
            }
        }
    }

    /** Splits a reset subtask had been given after its restored checkpoint come back as given. */
    void returnSplits(List<BackfillSplit> returned) {
        for (BackfillSplit split : returned) {
            TrackedSplit tracked = splits.get(split.splitId());
            if (tracked == null) {
                put(new TrackedSplit(counts, split, false, false));
            } else {
                tracked.returned(split);
            }
        }
    }

    /** Whether the table is non-empty and every split is confirmed FINISHED (or ended). */
    boolean allConfirmedFinished() {
        // an empty table (nothing discovered or reported yet) never counts as finished
        return counts.allConfirmedFinished();
    }

    /** Notes which ended splits this snapshot is the first to record. */
    void onSnapshot(long checkpointId) {
        for (TrackedSplit tracked : splits.values()) {
            tracked.snapshotted(checkpointId);
        }
    }

    int count(HandoverState state) {
        return counts.count(state);
    }

    int countEnded() {
        return counts.ended();
    }

    int countUnconfirmed() {
        return counts.unconfirmed();
    }

    /** The kept totals; equal to {@link SplitCounts#of} the rows (checked by the tests). */
    SplitCounts counts() {
        return counts;
    }

    List<BackfillEnumeratorState.SplitEntry> snapshotEntries() {
        List<BackfillEnumeratorState.SplitEntry> entries = new ArrayList<>(splits.size());
        for (TrackedSplit tracked : splits.values()) {
            entries.add(
                    new BackfillEnumeratorState.SplitEntry(
                            tracked.split(), tracked.isAssigned(), tracked.isEnded()));
        }
        return entries;
    }
}
