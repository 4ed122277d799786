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

import dev.sourcebackfill.source.RecordOrigin;
import dev.sourcebackfill.source.split.BackfillSplitState;
import dev.sourcebackfill.source.split.HandoverState;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.source.SourceOutput;
import org.apache.flink.connector.base.source.reader.RecordEmitter;
import org.apache.flink.metrics.Counter;

/**
 * Emits records and advances the split state past each one, in the task thread; what it applies is
 * what the next checkpoint holds. Transitions never reach it: {@link BackfillFetch} applies them
 * between the records.
 */
@Internal
final class BackfillRecordEmitter<T>
        implements RecordEmitter<BackfillRecord<T>, T, BackfillSplitState> {

    private final Counter backfilledRecords;
    private final RecordOrigin.Marker<T> originMarker;

    BackfillRecordEmitter(Counter backfilledRecords, RecordOrigin.Marker<T> originMarker) {
        this.backfilledRecords = backfilledRecords;
        this.originMarker = originMarker;
    }

    @Override
    public void emitRecord(
            BackfillRecord<T> record, SourceOutput<T> output, BackfillSplitState split) {
        // a BACKFILLING split emits only what its backfill read: the live reader's records come
        // after the transition out of it, which the fetch applies before them
        boolean backfill = split.state() == HandoverState.BACKFILLING;
        output.collect(
                originMarker.mark(
                        record.value(), backfill ? RecordOrigin.BACKFILL : RecordOrigin.LIVE),
                record.timestamp());
        split.recordEmitted(record.offset());
        if (backfill) {
            split.countBackfilled();
            backfilledRecords.inc();
        }
    }
}
