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
package dev.sourcebackfill.benchmark;

import dev.sourcebackfill.source.enumerator.BackfillEnumeratorState;
import dev.sourcebackfill.source.enumerator.BackfillEnumeratorStateSerializer;
import dev.sourcebackfill.source.enumerator.BackfillSplitEnumerator;
import dev.sourcebackfill.source.event.SplitStatus;
import dev.sourcebackfill.source.event.SplitStatusReportEvent;
import dev.sourcebackfill.source.spi.DiscoveredSplit;
import dev.sourcebackfill.source.spi.LogSplitDiscoverer;
import dev.sourcebackfill.source.split.BackfillSplit;
import dev.sourcebackfill.source.split.HandoverState;

import org.apache.flink.api.connector.source.ReaderInfo;
import org.apache.flink.api.connector.source.SplitsAssignment;
import org.apache.flink.api.connector.source.mocks.MockSplitEnumeratorContext;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The enumerator's own cost on its coordinator thread with many splits, on Flink's mock enumerator
 * context: handling one status report of one split (reports one after the other), and one {@code
 * snapshotState} (and the serialization Flink does after it) after each report. Warm-up runs first;
 * each figure is the median of many calls.
 */
final class EnumeratorCost {

    /** Microseconds per call: median, min and max over the measured calls. */
    static final class Result {
        final Samples snapshotMicros = new Samples();
        final Samples serializeMicros = new Samples();
        final Samples reportMicros = new Samples();
        int stateBytes;
    }

    private static final int PARALLELISM = 2;

    private EnumeratorCost() {}

    static Result measure(int splits, int iterations) throws Throwable {
        List<DiscoveredSplit> discovered = new ArrayList<>(splits);
        for (int i = 0; i < splits; i++) {
            discovered.add(DiscoveredSplit.backfilled("split-" + i, 0, 1_000_000));
        }
        LogSplitDiscoverer discoverer = initial -> discovered;
        Result result = new Result();
        BackfillEnumeratorStateSerializer serializer = new BackfillEnumeratorStateSerializer();
        try (MockSplitEnumeratorContext<BackfillSplit> context = new BacklogTakingContext()) {
            BackfillSplitEnumerator enumerator =
                    new BackfillSplitEnumerator(context, discoverer, false, Duration.ZERO, null);
            enumerator.start();
            context.runNextOneTimeCallable();
            for (int subtask = 0; subtask < PARALLELISM; subtask++) {
                context.registerReader(new ReaderInfo(subtask, "localhost"));
                enumerator.addReader(subtask);
            }
            List<String> ownedBy0 = new ArrayList<>();
            for (SplitsAssignment<BackfillSplit> a : context.getSplitsAssignmentSequence()) {
                a.assignment().getOrDefault(0, List.of()).forEach(s -> ownedBy0.add(s.splitId()));
            }
            if (ownedBy0.isEmpty()) {
                throw new IllegalStateException("Reader 0 was assigned no split");
            }
            // on the context's coordinator thread, as in Flink: elsewhere the mock context hands
            // every event the enumerator sends to that thread and waits, which is not our cost
            CompletableFuture<Void> done = new CompletableFuture<>();
            context.runInCoordinatorThread(
                    () -> {
                        try {
                            measureLoop(enumerator, serializer, ownedBy0, iterations, result);
                            done.complete(null);
                        } catch (Throwable t) {
                            done.completeExceptionally(t);
                        }
                    });
            done.get();
            enumerator.close();
        }
        return result;
    }

    private static void measureLoop(
            BackfillSplitEnumerator enumerator,
            BackfillEnumeratorStateSerializer serializer,
            List<String> ownedBy0,
            int iterations,
            Result result)
            throws Exception {
        ReportStream reports = new ReportStream(ownedBy0);
        // status reports alone: a snapshot of the whole table between two of them would leave
        // the next one to find the table outside the CPU's caches
        for (int i = 0; i < iterations * 2; i++) {
            SplitStatusReportEvent report = reports.next();
            long t0 = System.nanoTime();
            enumerator.handleSourceEvent(0, report);
            long t1 = System.nanoTime();
            if (i >= iterations) { // the first half warms up
                result.reportMicros.add((t1 - t0) / 1e3);
            }
        }
        long checkpointId = 0;
        for (int i = 0; i < iterations * 2; i++) {
            // as in a job, the table changes between checkpoints
            enumerator.handleSourceEvent(0, reports.next());
            long t1 = System.nanoTime();
            BackfillEnumeratorState state = enumerator.snapshotState(++checkpointId);
            long t2 = System.nanoTime();
            byte[] bytes = serializer.serialize(state);
            long t3 = System.nanoTime();
            enumerator.notifyCheckpointComplete(checkpointId);
            if (i >= iterations) {
                result.snapshotMicros.add((t2 - t1) / 1e3);
                result.serializeMicros.add((t3 - t2) / 1e3);
                result.stateBytes = bytes.length;
            }
        }
    }

    /** Reports of one split of reader 0 each, the splits in turn, each moving on its offset. */
    private static final class ReportStream {
        private final List<String> splits;
        private long reportId;
        private long offset;

        ReportStream(List<String> splits) {
            this.splits = splits;
        }

        SplitStatusReportEvent next() {
            String splitId = splits.get((int) (reportId % splits.size()));
            return new SplitStatusReportEvent(
                    7,
                    ++reportId,
                    List.of(new SplitStatus(splitId, HandoverState.BACKFILLING, ++offset, false)));
        }
    }

    /** Flink's mock context, which refuses backlog signals; the enumerator sends them. */
    private static final class BacklogTakingContext
            extends MockSplitEnumeratorContext<BackfillSplit> {
        BacklogTakingContext() {
            super(PARALLELISM);
        }

        @Override
        public void setIsProcessingBacklog(boolean isProcessingBacklog) {}
    }
}
