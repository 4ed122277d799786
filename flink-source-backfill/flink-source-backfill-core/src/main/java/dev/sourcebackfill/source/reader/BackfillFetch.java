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

import org.apache.flink.annotation.Internal;
import org.apache.flink.connector.base.source.reader.RecordsWithSplitIds;

import javax.annotation.Nullable;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One fetch of the split reader: per split, its records in order and the handover transitions
 * between them. Only records leave it through {@link #nextRecordFromSplit()}, so that {@link
 * org.apache.flink.connector.base.source.reader.SourceReaderBase} counts (in {@code numRecordsIn})
 * and rate-limits records only. A transition is handed to the {@link TransitionSink} as the task
 * thread's iteration reaches it: after every record before it was emitted and before any record
 * after it, which is what the split's checkpointed state must show.
 *
 * <p>Filled in the fetcher thread, then iterated in the task thread; never both at once.
 */
@Internal
final class BackfillFetch<T> implements RecordsWithSplitIds<BackfillRecord<T>> {

    /** Applies a transition to the split's state, in the task thread. */
    interface TransitionSink {
        void apply(String splitId, HandoverTransition transition);
    }

    private final TransitionSink sink;
    private final Map<String, SplitRun<T>> bySplit = new LinkedHashMap<>();
    private final Set<String> finishedSplits = new HashSet<>();
    @Nullable private Iterator<Map.Entry<String, SplitRun<T>>> splits;
    @Nullable private String currentSplitId;
    @Nullable private SplitRun<T> current;

    BackfillFetch(TransitionSink sink) {
        this.sink = sink;
    }

    /** The split's part of this fetch, to append to (fetcher thread). */
    SplitRun<T> split(String splitId) {
        return bySplit.computeIfAbsent(splitId, id -> new SplitRun<>());
    }

    /** The split ends with this fetch (fetcher thread). */
    void addFinishedSplit(String splitId) {
        finishedSplits.add(splitId);
    }

    boolean isEmpty() {
        return bySplit.isEmpty() && finishedSplits.isEmpty();
    }

    /** The records added so far, over all splits (fetcher thread; one sum per split run). */
    int recordCount() {
        int n = 0;
        for (SplitRun<T> run : bySplit.values()) {
            n += run.records.size();
        }
        return n;
    }

    @Nullable
    @Override
    public String nextSplit() {
        if (splits == null) {
            splits = bySplit.entrySet().iterator();
        }
        if (!splits.hasNext()) {
            currentSplitId = null;
            current = null;
            return null;
        }
        Map.Entry<String, SplitRun<T>> next = splits.next();
        currentSplitId = next.getKey();
        current = next.getValue();
        return currentSplitId;
    }

    @Nullable
    @Override
    public BackfillRecord<T> nextRecordFromSplit() {
        SplitRun<T> run = current;
        if (run == null) {
            throw new IllegalStateException("nextRecordFromSplit() called before nextSplit()");
        }
        // the transitions due before the next record (or after the last one); the records
        // before them have been emitted, since SourceReaderBase emits each record it gets
        // before it asks for the next
        while (run.nextTransition < run.transitions.size()
                && run.transitions.get(run.nextTransition).position == run.nextRecord) {
            sink.apply(currentSplitId, run.transitions.get(run.nextTransition++).transition);
        }
        return run.nextRecord < run.records.size() ? run.records.get(run.nextRecord++) : null;
    }

    @Override
    public Set<String> finishedSplits() {
        return finishedSplits;
    }

    /** One split's records and the transitions between them. */
    static final class SplitRun<T> {
        private final List<BackfillRecord<T>> records = new ArrayList<>();
        private final List<PendingTransition> transitions = new ArrayList<>(2);
        private int nextRecord;
        private int nextTransition;

        void addRecord(BackfillRecord<T> record) {
            records.add(record);
        }

        /** The run's last record so far; {@code null} if it has none (only transitions). */
        @Nullable
        BackfillRecord<T> lastRecord() {
            return records.isEmpty() ? null : records.get(records.size() - 1);
        }

        /** The transition applies after the records added so far and before the next one. */
        void addTransition(HandoverTransition transition) {
            transitions.add(new PendingTransition(records.size(), transition));
        }
    }

    private static final class PendingTransition {
        /** How many of the split's records in this fetch come before it. */
        final int position;

        final HandoverTransition transition;

        PendingTransition(int position, HandoverTransition transition) {
            this.position = position;
            this.transition = transition;
        }
    }
}
