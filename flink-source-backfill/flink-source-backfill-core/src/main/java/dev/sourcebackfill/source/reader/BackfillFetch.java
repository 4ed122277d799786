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
import java.util.Arrays;
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
final class BackfillFetch implements RecordsWithSplitIds<BackfillRecord> {

    /** Applies a transition or a skipped gap to the split's state, in the task thread. */
    interface TransitionSink {
        void apply(String splitId, HandoverTransition transition);

        /**
         * Under {@link dev.sourcebackfill.source.OffsetGapPolicy#SKIP}: offsets {@code from..to-1}
         * are in neither the backfill nor the live reader; the split goes on at {@code to} in the
         * state it has.
         */
        void gapSkipped(String splitId, long from, long to);

        /**
         * The split reads on the backfill reader from here on, after it waited for its turn (task
         * thread).
         */
        default void turnStarted(String splitId) {}

        /** Every record and transition of a fetch went out (task thread). */
        default void fetchEmitted() {}
    }

    /** The records of a run at first, when nothing suggests a size. */
    private static final int MIN_RUN_CAPACITY = 8;

    private final TransitionSink sink;
    private final int runCapacity;

    /** The records still to be sized for at {@link #runCapacity}; later runs start small. */
    private int sizedFor;

    private final Map<String, SplitRun> bySplit = new LinkedHashMap<>();
    private final Set<String> finishedSplits = new HashSet<>();
    @Nullable private Iterator<Map.Entry<String, SplitRun>> splits;
    @Nullable private String currentSplitId;
    @Nullable private SplitRun current;

    BackfillFetch(TransitionSink sink) {
        this(sink, null);
    }

    /**
     * @param last the split reader's last fetch, whose size this one is expected to have: its runs
     *     start at the last fetch's average run, so that they rarely grow, for as many records as
     *     it held (then at the smallest size: a fetch never reserves more than that)
     */
    BackfillFetch(TransitionSink sink, @Nullable BackfillFetch last) {
        this.sink = sink;
        int records = last == null ? 0 : last.recordCount();
        this.runCapacity =
                last == null
                        ? MIN_RUN_CAPACITY
                        : Math.max(MIN_RUN_CAPACITY, averageRun(records, last.bySplit.size()));
        this.sizedFor = records;
    }

    /** The split's part of this fetch, to append to (fetcher thread). */
    SplitRun split(String splitId) {
        SplitRun run = bySplit.get(splitId);
        if (run == null) {
            int capacity = MIN_RUN_CAPACITY;
            if (sizedFor >= runCapacity) {
                capacity = runCapacity;
                sizedFor -= runCapacity;
            }
            run = new SplitRun(capacity);
            bySplit.put(splitId, run);
        }
        return run;
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
        for (SplitRun run : bySplit.values()) {
            n += run.size;
        }
        return n;
    }

    /** The records of one split's run in this fetch, on average (fetcher thread). */
    int averageRun() {
        return averageRun(recordCount(), bySplit.size());
    }

    private static int averageRun(int records, int runs) {
        return runs == 0 ? 0 : (records + runs - 1) / runs;
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
        Map.Entry<String, SplitRun> next = splits.next();
        currentSplitId = next.getKey();
        current = next.getValue();
        return currentSplitId;
    }

    @Nullable
    @Override
    public BackfillRecord nextRecordFromSplit() {
        SplitRun run = current;
        if (run == null) {
            throw new IllegalStateException("nextRecordFromSplit() called before nextSplit()");
        }
        // the transitions due before the next record (or after the last one); the records
        // before them have been emitted, since SourceReaderBase emits each record it gets
        // before it asks for the next
        while (run.nextTransition < run.transitions.size()
                && run.transitions.get(run.nextTransition).position == run.nextRecord) {
            run.transitions.get(run.nextTransition++).applyTo(currentSplitId, sink);
        }
        return run.nextRecord < run.size ? run.records[run.nextRecord++] : null;
    }

    @Override
    public Set<String> finishedSplits() {
        return finishedSplits;
    }

    /** {@code SourceReaderBase} is done with the fetch: tells the sink. */
    @Override
    public void recycle() {
        sink.fetchEmitted();
    }

    /**
     * One split's records and the transitions between them. A record object each, in an array that
     * grows: keeping the records in columns and handing them out through one reused object was
     * measured slower (see docs/benchmarks.md, the profile).
     */
    static final class SplitRun {
        private BackfillRecord[] records;
        private int size;
        private final List<PendingTransition> transitions = new ArrayList<>(2);
        private int nextRecord;
        private int nextTransition;

        private SplitRun(int capacity) {
            records = new BackfillRecord[capacity];
        }

        /** Appends a record read by the backfill ({@code fromLive == false}) or the live reader. */
        void addRecord(Object raw, long offset, long timestamp, boolean fromLive) {
            if (size == records.length) {
                records = Arrays.copyOf(records, 2 * size);
            }
            records[size++] = new BackfillRecord(raw, offset, timestamp, fromLive);
        }

        /** Whether the run has a record (else only transitions). */
        boolean hasRecords() {
            return size > 0;
        }

        /** The timestamp of the run's last record so far; call only if it {@link #hasRecords}. */
        long lastTimestamp() {
            return records[size - 1].timestamp();
        }

        /** The transition applies after the records added so far and before the next one. */
        void addTransition(HandoverTransition transition) {
            transitions.add(new PendingTransition(size, new TransitionUpdate(transition)));
        }

        /**
         * The split skipped offsets {@code from..to-1}: applied after the records added so far and
         * before the next one, like a transition.
         */
        void addGapSkip(long from, long to) {
            transitions.add(new PendingTransition(size, new GapSkip(from, to)));
        }

        /** The split starts its turn on the backfill reader, before its next record. */
        void addTurnStart() {
            transitions.add(new PendingTransition(size, TURN_START));
        }
    }

    private static final SplitUpdate TURN_START = (splitId, sink) -> sink.turnStarted(splitId);

    /** What the task thread applies to a split's state between two of its records. */
    private interface SplitUpdate {
        void applyTo(String splitId, TransitionSink sink);
    }

    private static final class TransitionUpdate implements SplitUpdate {
        private final HandoverTransition transition;

        TransitionUpdate(HandoverTransition transition) {
            this.transition = transition;
        }

        @Override
        public void applyTo(String splitId, TransitionSink sink) {
            sink.apply(splitId, transition);
        }
    }

    private static final class GapSkip implements SplitUpdate {
        private final long from;
        private final long to;

        GapSkip(long from, long to) {
            this.from = from;
            this.to = to;
        }

        @Override
        public void applyTo(String splitId, TransitionSink sink) {
            sink.gapSkipped(splitId, from, to);
        }
    }

    /** An update at its place among the split's records. */
    private static final class PendingTransition {
        /** How many of the split's records in this fetch come before it. */
        final int position;

        final SplitUpdate update;

        PendingTransition(int position, SplitUpdate update) {
            this.position = position;
            this.update = update;
        }

        void applyTo(String splitId, TransitionSink sink) {
            update.applyTo(splitId, sink);
        }
    }
}
