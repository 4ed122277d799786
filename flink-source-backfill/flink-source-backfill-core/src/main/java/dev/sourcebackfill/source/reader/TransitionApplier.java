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
import dev.sourcebackfill.source.SplitTransition;
import dev.sourcebackfill.source.event.SplitStatus;
import dev.sourcebackfill.source.split.BackfillSplitState;
import dev.sourcebackfill.source.split.HandoverState;

import org.apache.flink.annotation.Internal;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Applies each handover transition to the split's state in the task thread (so that the next
 * checkpoint holds it), logs it, reports it to the enumerator and tells the listener.
 */
@Internal
final class TransitionApplier implements BackfillFetch.TransitionSink {

    private static final Logger LOG = LoggerFactory.getLogger(TransitionApplier.class);

    private final int subtask;
    private final Map<String, BackfillSplitState> heldSplits;
    private final StatusReporter reporter;
    private final BackfillListener listener;

    /** Splits whose turn on the backfill reader started, for the reader to mark active. */
    private final List<String> turnsStarted = new ArrayList<>();

    /**
     * @param heldSplits the states of the splits the reader reads, by id (the reader keeps it)
     */
    TransitionApplier(
            int subtask,
            Map<String, BackfillSplitState> heldSplits,
            StatusReporter reporter,
            BackfillListener listener) {
        this.subtask = subtask;
        this.heldSplits = heldSplits;
        this.reporter = reporter;
        this.listener = listener;
    }

    /** The task thread has emitted the whole fetch: its transitions go in one report. */
    @Override
    public void fetchEmitted() {
        reporter.flush();
    }

    /**
     * Noted for the reader, which marks the split's output active ({@link #takeTurnsStarted}) once
     * the fetch is emitted: a split that waited for its turn may have been marked idle meanwhile.
     */
    @Override
    public void turnStarted(String splitId) {
        turnsStarted.add(splitId);
    }

    /**
     * Whether a split's turn started since the last {@link #takeTurnsStarted} (a check per poll).
     */
    boolean hasTurnsStarted() {
        return !turnsStarted.isEmpty();
    }

    /** The splits whose turn started since the last call, in order; the list is then empty. */
    List<String> takeTurnsStarted() {
        if (turnsStarted.isEmpty()) {
            return List.of();
        }
        List<String> started = new ArrayList<>(turnsStarted);
        turnsStarted.clear();
        return started;
    }

    @Override
    public void apply(String splitId, HandoverTransition transition) {
        BackfillSplitState split = held(splitId, transition);
        HandoverState from = split.state();
        split.applyTransition(
                transition.newState(), transition.nextOffset(), transition.targetEndOffset());
        LOG.info(
                "Split {} on subtask {}: {} -> {} (next offset {}, target end offset {}, {} records backfilled)",
                splitId,
                subtask,
                from,
                split.state(),
                split.nextOffset(),
                split.targetEndOffset(),
                split.backfilledRecords());
        reporter.enqueue(new SplitStatus(splitId, split.state(), split.nextOffset(), false));
        listener.onTransition(
                new SplitTransition(
                        subtask,
                        splitId,
                        from,
                        split.state(),
                        split.nextOffset(),
                        split.backfilledRecords()));
    }

    /** The split goes on past a skipped gap: its state and the enumerator learn the new offset. */
    @Override
    public void gapSkipped(String splitId, long from, long to) {
        BackfillSplitState split = held(splitId, "gap skip " + from + ".." + (to - 1));
        split.skipTo(to);
        LOG.info(
                "Split {} on subtask {}: {} at offset {} after skipping offsets {}..{}",
                splitId,
                subtask,
                split.state(),
                to,
                from,
                to - 1);
        reporter.enqueue(new SplitStatus(splitId, split.state(), split.nextOffset(), false));
    }

    private BackfillSplitState held(String splitId, Object what) {
        BackfillSplitState split = heldSplits.get(splitId);
        if (split == null) {
            throw new IllegalStateException(
                    what
                            + " for split "
                            + splitId
                            + ", which subtask "
                            + subtask
                            + " does not hold");
        }
        return split;
    }
}
