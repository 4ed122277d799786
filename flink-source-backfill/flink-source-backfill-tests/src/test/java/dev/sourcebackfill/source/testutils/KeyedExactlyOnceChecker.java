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
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
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
    private transient ValueState<Long> lastOffset;
    private transient ValueState<Long> count;

    public KeyedExactlyOnceChecker(DatagenLog log, String runId) {
        this.log = log;
        this.runId = runId;
    }

    @Override
    public void open(OpenContext openContext) {
        lastOffset = getRuntimeContext().getState(new ValueStateDescriptor<>("last", Types.LONG));
        count = getRuntimeContext().getState(new ValueStateDescriptor<>("count", Types.LONG));
    }

    @Override
    public void processElement(DatagenRecord record, Context ctx, Collector<DatagenRecord> out)
            throws Exception {
        Long c = count.value();
        long newCount =
                PartitionProgress.check(
                        log, record, lastOffset.value(), c == null ? 0 : c, Observations.of(runId));
        lastOffset.update(record.offset);
        count.update(newCount);
        out.collect(record);
    }
}
