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

import dev.sourcebackfill.source.metrics.FetchProgress;
import dev.sourcebackfill.source.split.HandoverState;

import org.apache.flink.annotation.Internal;
import org.apache.flink.metrics.Counter;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.annotation.Nullable;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * What the handovers of one split reader put out during a fetch, in the fetcher thread: records,
 * transitions and skipped gaps go into the {@link BackfillFetch} in the order the task thread must
 * apply them; what a handover asks of the readers (start a split live) and the splits that reached
 * their stop are queued, for the split reader to carry out once the handover's call returned.
 */
@Internal
final class FetchAssembly implements SplitHandover.HandoverOutput<Object> {

    private static final Logger LOG = LoggerFactory.getLogger(FetchAssembly.class);

    /** A split to give to the live reader, at an offset. */
    record LiveStart(String splitId, long offset) {}

    private final BackfillFetch.TransitionSink transitionSink;
    private final BackfillTurns turns;
    private final Counter skippedOffsets;
    private final int subtask;

    private BackfillFetch batch;

    /**
     * The part of {@link #batch} of the split emitted last: a log delivers runs of one split, and
     * keeping it saves a map lookup per record (the hot path of the fetcher thread in the
     * benchmark's profile).
     */
    @Nullable private BackfillFetch.SplitRun run;

    @Nullable private String runSplitId;

    private final ArrayDeque<LiveStart> liveStarts = new ArrayDeque<>();

    /** Bounded splits that reached their stop since the last fetch; no scan of all splits. */
    private final List<String> completed = new ArrayList<>();

    FetchAssembly(
            BackfillFetch.TransitionSink transitionSink,
            BackfillTurns turns,
            Counter skippedOffsets,
            int subtask) {
        this.transitionSink = transitionSink;
        this.turns = turns;
        this.skippedOffsets = skippedOffsets;
        this.subtask = subtask;
        this.batch = new BackfillFetch(transitionSink);
    }

    @Override
    public void emit(String splitId, long offset, long timestamp, Object record, boolean live) {
        runOf(splitId).addRecord(record, offset, timestamp, live);
    }

    @Override
    public void gapSkipped(String splitId, long from, long to, boolean foundByReader) {
        // a state change like a transition: the task thread's split state (what a checkpoint
        // stores and what is committed) must move past the gap too, also when no record follows
        runOf(splitId).addGapSkip(from, to);
        skippedOffsets.inc(to - from);
        LOG.warn(
                "Offset gap in split {} on subtask {}, skipped as the source is told to: offsets "
                        + "{}..{} are gone from the log (it starts at {} now); the split goes on "
                        + "there; {} offsets skipped",
                splitId,
                subtask,
                from,
                to - 1,
                to,
                to - from);
    }

    @Override
    public void transition(String splitId, HandoverState newState, long nextOffset, long target) {
        runOf(splitId).addTransition(new HandoverTransition(newState, nextOffset, target));
        if (newState != HandoverState.BACKFILLING) {
            // not from inside the backfill reader's poll: let go of once the poll returns
            turns.stopReading(splitId);
        }
    }

    @Override
    public void startLive(String splitId, long offset) {
        liveStarts.add(new LiveStart(splitId, offset));
    }

    @Override
    public void completed(String splitId) {
        completed.add(splitId);
    }

    /** The split reads on the backfill reader from here on, after it waited for its turn. */
    void turnStarted(String splitId) {
        // its split output may have been marked idle while it waited: the task thread marks it
        // active before the split that read before it lets go of the reader's watermark
        runOf(splitId).addTurnStart();
    }

    /** The next split a handover asked to give to the live reader, in the order asked. */
    @Nullable
    LiveStart nextLiveStart() {
        return liveStarts.poll();
    }

    /** The splits that reached their stop since the last call. */
    List<String> takeCompleted() {
        List<String> splitIds = new ArrayList<>(completed);
        completed.clear();
        return splitIds;
    }

    void finished(String splitId) {
        batch.addFinishedSplit(splitId);
    }

    int recordCount() {
        return batch.recordCount();
    }

    /** For the reader's gauges: the fetch lag of the last record of the split emitted last. */
    void noteFetchLag(FetchProgress progress) {
        if (run != null && run.hasRecords()) {
            progress.fetched(System.currentTimeMillis(), run.lastTimestamp());
        }
    }

    /**
     * The fetch assembled so far (with transitions decided while adding splits); a new one starts.
     */
    BackfillFetch take() {
        BackfillFetch fetched = batch;
        batch = new BackfillFetch(transitionSink, fetched);
        run = null;
        runSplitId = null;
        return fetched;
    }

    /** The batch's part for the split; one map lookup per run of one split's elements. */
    private BackfillFetch.SplitRun runOf(String splitId) {
        if (run == null || !splitId.equals(runSplitId)) {
            run = batch.split(splitId);
            runSplitId = splitId;
        }
        return run;
    }
}
