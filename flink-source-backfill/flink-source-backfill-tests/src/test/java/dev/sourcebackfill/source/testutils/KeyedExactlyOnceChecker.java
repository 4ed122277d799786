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

import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;

/**
 * Keyed by partition; checks every record against the partition's progress in keyed, checkpointed
 * state, so state moves with the key on any rescale.
 */
public final class KeyedExactlyOnceChecker
        extends KeyedProcessFunction<Integer, DatagenRecord, DatagenRecord> {

    private final DatagenLog log;
    private final String runId;
    private final long pieceSize;

    /** Per piece of the partition: its last offset, and how many records it had. */
    private transient MapState<Long, Long> lastOffsets;

    private transient MapState<Long, Long> counts;

    /** Checks each partition's records in order. */
    public KeyedExactlyOnceChecker(DatagenLog log, String runId) {
        this(log, runId, PartitionProgress.WHOLE_PARTITION);
    }

    /**
     * Checks each piece of {@code pieceSize} offsets of a partition in order (chunks of history of
     * that size: no order across them).
     */
    public KeyedExactlyOnceChecker(DatagenLog log, String runId, long pieceSize) {
        this.log = log;
        this.runId = runId;
        this.pieceSize = pieceSize;
    }

    @Override
    public void open(OpenContext openContext) {
        lastOffsets =
                getRuntimeContext()
                        .getMapState(new MapStateDescriptor<>("last", Types.LONG, Types.LONG));
        counts =
                getRuntimeContext()
                        .getMapState(new MapStateDescriptor<>("count", Types.LONG, Types.LONG));
    }

    @Override
    public void processElement(DatagenRecord record, Context ctx, Collector<DatagenRecord> out)
            throws Exception {
        long piece = PartitionProgress.pieceOf(record.offset, pieceSize);
        Long c = counts.get(piece);
        long newCount =
                PartitionProgress.check(
                        log,
                        record,
                        lastOffsets.get(piece),
                        c == null ? 0 : c,
                        pieceSize,
                        Observations.of(runId));
        lastOffsets.put(piece, record.offset);
        counts.put(piece, newCount);
        out.collect(record);
    }
}
