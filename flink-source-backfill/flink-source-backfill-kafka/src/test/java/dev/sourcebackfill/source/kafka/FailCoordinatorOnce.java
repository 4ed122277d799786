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
package dev.sourcebackfill.source.kafka;

import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.api.connector.source.SourceEvent;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.api.connector.source.SourceSplit;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.api.java.typeutils.ResultTypeQueryable;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.util.FlinkRuntimeException;

import javax.annotation.Nullable;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Wraps a source so that a test can fail the job once through its split enumerator, which makes
 * Flink do a <em>global</em> failover: the source coordinator is reset to the latest completed
 * checkpoint (a new enumerator from {@code restoreEnumerator}) and every task restarts. A task
 * failure (see {@link FailOnce}) only makes a regional failover, which keeps the enumerator.
 *
 * <p>The test {@linkplain #arm(String) arms} the failure; the enumerator's coordinator thread
 * checks every few milliseconds and throws once. The wrapper also records the latest checkpoint the
 * enumerator was told completed, so that a test can wait for a checkpoint before failing. State is
 * static and keyed, for jobs in this JVM (a MiniCluster) only.
 */
final class FailCoordinatorOnce<T, SplitT extends SourceSplit, CheckpointT>
        implements Source<T, SplitT, CheckpointT>, ResultTypeQueryable<T> {

    private static final long serialVersionUID = 1L;
    private static final long CHECK_INTERVAL_MS = 10;

    private static final Map<String, AtomicBoolean> ARMED = new ConcurrentHashMap<>();
    private static final Map<String, AtomicBoolean> FIRED = new ConcurrentHashMap<>();
    private static final Map<String, AtomicLong> COMPLETED = new ConcurrentHashMap<>();

    private final Source<T, SplitT, CheckpointT> delegate;
    private final String key;

    FailCoordinatorOnce(Source<T, SplitT, CheckpointT> delegate, String key) {
        this.delegate = delegate;
        this.key = key;
    }

    /** Makes the enumerator of the source with this key fail the job (once). */
    static void arm(String key) {
        flag(ARMED, key).set(true);
    }

    /** Whether the failure was thrown. */
    static boolean fired(String key) {
        return flag(FIRED, key).get();
    }

    /** The highest checkpoint id an enumerator of this key was told completed; -1 if none. */
    static long lastCompletedCheckpoint(String key) {
        return COMPLETED.computeIfAbsent(key, k -> new AtomicLong(-1)).get();
    }

    private static AtomicBoolean flag(Map<String, AtomicBoolean> flags, String key) {
        return flags.computeIfAbsent(key, k -> new AtomicBoolean());
    }

    @Override
    public Boundedness getBoundedness() {
        return delegate.getBoundedness();
    }

    @Override
    public SourceReader<T, SplitT> createReader(SourceReaderContext context) throws Exception {
        return delegate.createReader(context);
    }

    @Override
    public SplitEnumerator<SplitT, CheckpointT> createEnumerator(
            SplitEnumeratorContext<SplitT> context) throws Exception {
        return new Enumerator<>(delegate.createEnumerator(context), context, key);
    }

    @Override
    public SplitEnumerator<SplitT, CheckpointT> restoreEnumerator(
            SplitEnumeratorContext<SplitT> context, CheckpointT checkpoint) throws Exception {
        return new Enumerator<>(delegate.restoreEnumerator(context, checkpoint), context, key);
    }

    @Override
    public SimpleVersionedSerializer<SplitT> getSplitSerializer() {
        return delegate.getSplitSerializer();
    }

    @Override
    public SimpleVersionedSerializer<CheckpointT> getEnumeratorCheckpointSerializer() {
        return delegate.getEnumeratorCheckpointSerializer();
    }

    @Override
    @SuppressWarnings("unchecked")
    public TypeInformation<T> getProducedType() {
        return ((ResultTypeQueryable<T>) delegate).getProducedType();
    }

    /** Delegates everything; fails the job from the coordinator thread once armed. */
    private static final class Enumerator<SplitT extends SourceSplit, CheckpointT>
            implements SplitEnumerator<SplitT, CheckpointT> {
        private final SplitEnumerator<SplitT, CheckpointT> enumerator;
        private final SplitEnumeratorContext<SplitT> context;
        private final String key;

        Enumerator(
                SplitEnumerator<SplitT, CheckpointT> enumerator,
                SplitEnumeratorContext<SplitT> context,
                String key) {
            this.enumerator = enumerator;
            this.context = context;
            this.key = key;
        }

        @Override
        public void start() {
            enumerator.start();
            context.callAsync(
                    () -> flag(ARMED, key).get(),
                    (armed, error) -> {
                        // an exception in the coordinator thread fails the job globally
                        if (Boolean.TRUE.equals(armed)
                                && flag(FIRED, key).compareAndSet(false, true)) {
                            throw new FlinkRuntimeException(
                                    "Injected global failure (" + key + ")");
                        }
                    },
                    CHECK_INTERVAL_MS,
                    CHECK_INTERVAL_MS);
        }

        @Override
        public void handleSplitRequest(int subtaskId, @Nullable String requesterHostname) {
            enumerator.handleSplitRequest(subtaskId, requesterHostname);
        }

        @Override
        public void addSplitsBack(List<SplitT> splits, int subtaskId) {
            enumerator.addSplitsBack(splits, subtaskId);
        }

        @Override
        public void addReader(int subtaskId) {
            enumerator.addReader(subtaskId);
        }

        @Override
        public CheckpointT snapshotState(long checkpointId) throws Exception {
            return enumerator.snapshotState(checkpointId);
        }

        @Override
        public void notifyCheckpointComplete(long checkpointId) throws Exception {
            enumerator.notifyCheckpointComplete(checkpointId);
            COMPLETED
                    .computeIfAbsent(key, k -> new AtomicLong(-1))
                    .accumulateAndGet(checkpointId, Math::max);
        }

        @Override
        public void notifyCheckpointAborted(long checkpointId) throws Exception {
            enumerator.notifyCheckpointAborted(checkpointId);
        }

        @Override
        public void handleSourceEvent(int subtaskId, SourceEvent sourceEvent) {
            enumerator.handleSourceEvent(subtaskId, sourceEvent);
        }

        @Override
        public void close() throws IOException {
            enumerator.close();
        }
    }
}
