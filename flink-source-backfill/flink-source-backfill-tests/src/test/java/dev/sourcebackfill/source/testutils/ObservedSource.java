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

import dev.sourcebackfill.source.BackfillSource;
import dev.sourcebackfill.source.enumerator.BackfillEnumeratorState;
import dev.sourcebackfill.source.reader.BackfillSourceReader;
import dev.sourcebackfill.source.split.BackfillSplit;

import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.connector.source.ReaderOutput;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.api.connector.source.SourceEvent;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.api.java.typeutils.ResultTypeQueryable;
import org.apache.flink.core.io.InputStatus;
import org.apache.flink.core.io.SimpleVersionedSerializer;

import javax.annotation.Nullable;

import java.io.IOException;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * Wraps a {@link BackfillSource} and records, into {@link Observations}, what its readers and its
 * enumerator snapshot and when readers enter forward mode. Pure delegation: it changes nothing.
 */
public final class ObservedSource<T>
        implements Source<T, BackfillSplit, BackfillEnumeratorState>, ResultTypeQueryable<T> {

    private static final long serialVersionUID = 1L;

    private final BackfillSource<T> delegate;
    private final String runId;

    public ObservedSource(BackfillSource<T> delegate, String runId) {
        this.delegate = delegate;
        this.runId = runId;
    }

    @Override
    public Boundedness getBoundedness() {
        return delegate.getBoundedness();
    }

    @Override
    public SourceReader<T, BackfillSplit> createReader(SourceReaderContext context)
            throws Exception {
        return new ObservedReader<>(
                (BackfillSourceReader<T>) delegate.createReader(context),
                Observations.of(runId),
                context.getIndexOfSubtask());
    }

    @Override
    public SplitEnumerator<BackfillSplit, BackfillEnumeratorState> createEnumerator(
            SplitEnumeratorContext<BackfillSplit> context) throws Exception {
        return new ObservedEnumerator(delegate.createEnumerator(context), Observations.of(runId));
    }

    @Override
    public SplitEnumerator<BackfillSplit, BackfillEnumeratorState> restoreEnumerator(
            SplitEnumeratorContext<BackfillSplit> context, BackfillEnumeratorState checkpoint)
            throws Exception {
        Observations.of(runId).enumeratorRestores.incrementAndGet();
        return new ObservedEnumerator(
                delegate.restoreEnumerator(context, checkpoint), Observations.of(runId));
    }

    @Override
    public SimpleVersionedSerializer<BackfillSplit> getSplitSerializer() {
        return delegate.getSplitSerializer();
    }

    @Override
    public SimpleVersionedSerializer<BackfillEnumeratorState> getEnumeratorCheckpointSerializer() {
        return delegate.getEnumeratorCheckpointSerializer();
    }

    @Override
    public TypeInformation<T> getProducedType() {
        return delegate.getProducedType();
    }

    private static final class ObservedReader<T> implements SourceReader<T, BackfillSplit> {
        private final BackfillSourceReader<T> reader;
        private final Observations observations;
        private final int subtask;

        ObservedReader(BackfillSourceReader<T> reader, Observations observations, int subtask) {
            this.reader = reader;
            this.observations = observations;
            this.subtask = subtask;
        }

        @Override
        public void start() {
            reader.start();
        }

        @Override
        public InputStatus pollNext(ReaderOutput<T> output) throws Exception {
            return reader.pollNext(output);
        }

        @Override
        public List<BackfillSplit> snapshotState(long checkpointId) {
            List<BackfillSplit> splits = reader.snapshotState(checkpointId);
            observations.recordReaderSnapshot(checkpointId, subtask, splits);
            return splits;
        }

        @Override
        public CompletableFuture<Void> isAvailable() {
            return reader.isAvailable();
        }

        @Override
        public void addSplits(List<BackfillSplit> splits) {
            splits.forEach(s -> observations.recordSplitAdd(s.splitId(), subtask));
            reader.addSplits(splits);
        }

        @Override
        public void notifyNoMoreSplits() {
            reader.notifyNoMoreSplits();
        }

        @Override
        public void handleSourceEvents(SourceEvent sourceEvent) {
            boolean before = reader.isForwardMode();
            reader.handleSourceEvents(sourceEvent);
            if (!before && reader.isForwardMode()) {
                observations.forwardModeEntries.add(
                        new Observations.ForwardModeEntry(
                                subtask,
                                reader.forwardModeCheckpoint().getAsLong(),
                                System.currentTimeMillis()));
            }
        }

        @Override
        public void notifyCheckpointComplete(long checkpointId) throws Exception {
            observations.completedCheckpoints.add(checkpointId);
            reader.notifyCheckpointComplete(checkpointId);
        }

        @Override
        public void notifyCheckpointAborted(long checkpointId) throws Exception {
            reader.notifyCheckpointAborted(checkpointId);
        }

        @Override
        public void pauseOrResumeSplits(
                Collection<String> splitsToPause, Collection<String> splitsToResume) {
            reader.pauseOrResumeSplits(splitsToPause, splitsToResume);
        }

        @Override
        public void close() throws Exception {
            reader.close();
        }
    }

    private static final class ObservedEnumerator
            implements SplitEnumerator<BackfillSplit, BackfillEnumeratorState> {
        private final SplitEnumerator<BackfillSplit, BackfillEnumeratorState> enumerator;
        private final Observations observations;

        ObservedEnumerator(
                SplitEnumerator<BackfillSplit, BackfillEnumeratorState> enumerator,
                Observations observations) {
            this.enumerator = enumerator;
            this.observations = observations;
        }

        @Override
        public void start() {
            enumerator.start();
        }

        @Override
        public void handleSplitRequest(int subtaskId, @Nullable String requesterHostname) {
            enumerator.handleSplitRequest(subtaskId, requesterHostname);
        }

        @Override
        public void addSplitsBack(List<BackfillSplit> splits, int subtaskId) {
            observations.subtaskResets.incrementAndGet();
            enumerator.addSplitsBack(splits, subtaskId);
        }

        @Override
        public void addReader(int subtaskId) {
            enumerator.addReader(subtaskId);
        }

        @Override
        public BackfillEnumeratorState snapshotState(long checkpointId) throws Exception {
            BackfillEnumeratorState state = enumerator.snapshotState(checkpointId);
            Set<String> live = new HashSet<>();
            state.splits()
                    .forEach(
                            e -> {
                                if (!e.ended()) {
                                    live.add(e.split().splitId());
                                }
                            });
            observations.enumeratorSnapshots.put(checkpointId, live);
            return state;
        }

        @Override
        public void close() throws IOException {
            enumerator.close();
        }

        @Override
        public void notifyCheckpointComplete(long checkpointId) throws Exception {
            enumerator.notifyCheckpointComplete(checkpointId);
        }

        @Override
        public void notifyCheckpointAborted(long checkpointId) throws Exception {
            enumerator.notifyCheckpointAborted(checkpointId);
        }

        @Override
        public void handleSourceEvent(int subtaskId, SourceEvent sourceEvent) {
            enumerator.handleSourceEvent(subtaskId, sourceEvent);
        }
    }
}
