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

    /** Restores the table from a checkpoint: owners unknown, nothing confirmed. */
    void restore(Collection<BackfillEnumeratorState.SplitEntry> entries) {
        for (BackfillEnumeratorState.SplitEntry entry : entries) {
            splits.put(
                    entry.split().splitId(),
                    new TrackedSplit(entry.split(), entry.assigned(), entry.ended()));
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
        splits.put(split.splitId(), new TrackedSplit(split, false, false));
    }

    List<BackfillSplit> unassigned() {
        List<BackfillSplit> result = new ArrayList<>();
        for (TrackedSplit tracked : splits.values()) {
            if (!tracked.assigned && !tracked.ended) {
                result.add(tracked.split);
            }
        }
        return result;
    }

    void markAssigned(String splitId, int subtask) {
        TrackedSplit tracked = splits.get(splitId);
        tracked.assigned = true;
        tracked.owner = subtask;
        tracked.confirmed = false;
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
            if (tracked.reporterIncarnation == incarnation
                    && tracked.lastReportId >= report.reportId()) {
                continue; // an older report of the same reader, overtaken
            }
            boolean wasFinished = tracked.isConfirmedFinished();
            HandoverState before = tracked.state();
            tracked.reporterIncarnation = incarnation;
            tracked.lastReportId = report.reportId();
            tracked.split =
                    tracked.split.withProgress(
                            status.state(),
                            status.nextOffset(),
                            tracked.split.targetEndOffset());
            tracked.assigned = true;
            tracked.owner = subtask;
            tracked.confirmed = true;
            if (status.ended() != tracked.ended) {
                tracked.ended = status.ended();
                tracked.endedInSnapshot = -1;
            }
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
    void resetSubtask(int subtask, long lastCompletedCheckpoint) {
        Long incarnation = currentIncarnation.remove(subtask);
        if (incarnation != null) {
            retiredIncarnations.computeIfAbsent(subtask, k -> new HashSet<>()).add(incarnation);
        }
        for (TrackedSplit tracked : splits.values()) {
            if (tracked.owner != null && tracked.owner == subtask) {
                tracked.confirmed = false;
                if (tracked.ended
                        && (tracked.endedInSnapshot < 0
                                || tracked.endedInSnapshot > lastCompletedCheckpoint)) {
                    // the restored reader may still hold it: wait for its report
                    tracked.ended = false;
                    tracked.endedInSnapshot = -1;
                }
            }
        }
    }

    /** Splits a reset subtask had been given after its restored checkpoint come back as given. */
    void returnSplits(List<BackfillSplit> returned) {
        for (BackfillSplit split : returned) {
            TrackedSplit tracked = splits.get(split.splitId());
            if (tracked == null) {
                tracked = new TrackedSplit(split, false, false);
                splits.put(split.splitId(), tracked);
            }
            tracked.split = split;
            tracked.assigned = false;
            tracked.owner = null;
            tracked.confirmed = false;
            tracked.ended = false;
            tracked.endedInSnapshot = -1;
            tracked.reporterIncarnation = 0;
            tracked.lastReportId = 0;
        }
    }

    /** Whether the table is non-empty and every split is confirmed FINISHED (or ended). */
    boolean allConfirmedFinished() {
        boolean anyLive = false;
        for (TrackedSplit tracked : splits.values()) {
            if (!tracked.isConfirmedFinished()) {
                return false;
            }
            anyLive |= !tracked.ended;
        }
        // an empty table (nothing discovered or reported yet) never counts as finished
        return anyLive;
    }

    /** Notes which ended splits this snapshot is the first to record. */
    void onSnapshot(long checkpointId) {
        for (TrackedSplit tracked : splits.values()) {
            if (tracked.ended && tracked.endedInSnapshot < 0) {
                tracked.endedInSnapshot = checkpointId;
            }
        }
    }

    int count(HandoverState state) {
        int n = 0;
        for (TrackedSplit tracked : splits.values()) {
            if (!tracked.ended && tracked.state() == state) {
                n++;
            }
        }
        return n;
    }

    int countEnded() {
        int n = 0;
        for (TrackedSplit tracked : splits.values()) {
            n += tracked.ended ? 1 : 0;
        }
        return n;
    }

    int countUnconfirmed() {
        int n = 0;
        for (TrackedSplit tracked : splits.values()) {
            n += !tracked.ended && !(tracked.assigned && tracked.confirmed) ? 1 : 0;
        }
        return n;
    }

    List<BackfillEnumeratorState.SplitEntry> snapshotEntries() {
        List<BackfillEnumeratorState.SplitEntry> entries = new ArrayList<>(splits.size());
        for (TrackedSplit tracked : splits.values()) {
            entries.add(
                    new BackfillEnumeratorState.SplitEntry(
                            tracked.split, tracked.assigned, tracked.ended));
        }
        return entries;
    }
}
