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

import dev.sourcebackfill.source.datagen.DatagenLog;
import dev.sourcebackfill.source.datagen.DatagenRecord;

import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeinfo.TypeHint;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.java.tuple.Tuple4;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;

import javax.annotation.Nullable;

import java.util.HashMap;
import java.util.Map;

/**
 * Chained to the source (no shuffle, so a job of these is one region per subtask): checks every
 * record against per-partition progress kept in operator state. Valid only without rescaling, where
 * a subtask gets its own state back and its partitions stay with it.
 */
public final class ChainedExactlyOnceChecker extends RichMapFunction<DatagenRecord, DatagenRecord>
        implements CheckpointedFunction {

    private final DatagenLog log;
    private final String runId;
    private final long pieceSize;

    /** Per "partition/piece": its last offset checked and how many records it had. */
    private transient Map<String, Progress> progress;

    /** (partition, piece, last offset, count); a piece is in it once it had a record. */
    private transient ListState<Tuple4<Integer, Long, Long, Long>> state;

    private static final class Progress {
        @Nullable Long lastOffset;
        long count;
    }

    /** Checks each partition's records in order. */
    public ChainedExactlyOnceChecker(DatagenLog log, String runId) {
        this(log, runId, PartitionProgress.WHOLE_PARTITION);
    }

    /** Checks each piece of {@code pieceSize} offsets of a partition in order. */
    public ChainedExactlyOnceChecker(DatagenLog log, String runId, long pieceSize) {
        this.log = log;
        this.runId = runId;
        this.pieceSize = pieceSize;
    }

    @Override
    public DatagenRecord map(DatagenRecord record) {
        long piece = PartitionProgress.pieceOf(record.offset, pieceSize);
        Progress p = progress.computeIfAbsent(record.partition + "/" + piece, k -> new Progress());
        p.count =
                PartitionProgress.check(
                        log, record, p.lastOffset, p.count, pieceSize, Observations.of(runId));
        p.lastOffset = record.offset;
        return record;
    }

    @Override
    public void snapshotState(FunctionSnapshotContext context) throws Exception {
        state.clear();
        for (Map.Entry<String, Progress> e : progress.entrySet()) {
            String[] key = e.getKey().split("/");
            state.add(
                    Tuple4.of(
                            Integer.parseInt(key[0]),
                            Long.parseLong(key[1]),
                            e.getValue().lastOffset,
                            e.getValue().count));
        }
    }

    @Override
    public void initializeState(FunctionInitializationContext context) throws Exception {
        state =
                context.getOperatorStateStore()
                        .getListState(
                                new ListStateDescriptor<>(
                                        "pieces",
                                        TypeInformation.of(
                                                new TypeHint<
                                                        Tuple4<Integer, Long, Long, Long>>() {})));
        progress = new HashMap<>();
        for (Tuple4<Integer, Long, Long, Long> t : state.get()) {
            Progress p = new Progress();
            p.lastOffset = t.f2;
            p.count = t.f3;
            progress.put(t.f0 + "/" + t.f1, p);
        }
    }
}
