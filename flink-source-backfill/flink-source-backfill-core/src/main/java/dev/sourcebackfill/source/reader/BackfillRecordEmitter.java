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
import dev.sourcebackfill.source.spi.LogRecordDeserializer;
import dev.sourcebackfill.source.spi.PassingCollector;
import dev.sourcebackfill.source.split.BackfillSplitState;
import dev.sourcebackfill.source.split.HandoverState;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.source.SourceOutput;
import org.apache.flink.connector.base.source.reader.RecordEmitter;
import org.apache.flink.metrics.Counter;
import org.apache.flink.util.Collector;

import java.io.IOException;

/**
 * Makes the values of each record with the deserializer of the reader that read it, emits them and
 * advances the split state past the record's offset, in the task thread; what it applies is what
 * the next checkpoint holds. A record may make any number of values: all of them are emitted before
 * the state moves, and no checkpoint falls between them. Transitions never reach it: {@link
 * BackfillFetch} applies them between the records.
 */
@Internal
final class BackfillRecordEmitter<T>
        implements RecordEmitter<BackfillRecord, T, BackfillSplitState> {

    private final Counter backfilledRecords;
    private final LogRecordDeserializer<Object, T> backfillDeserializer;
    private final LogRecordDeserializer<Object, T> liveDeserializer;
    private final ValueOutput<T> values;

    BackfillRecordEmitter(
            Counter backfilledRecords,
            RecordOrigin.Marker<T> originMarker,
            LogRecordDeserializer<Object, T> backfillDeserializer,
            LogRecordDeserializer<Object, T> liveDeserializer) {
        this.backfilledRecords = backfilledRecords;
        this.backfillDeserializer = backfillDeserializer;
        this.liveDeserializer = liveDeserializer;
        this.values = new ValueOutput<>(originMarker);
    }

    @Override
    public void emitRecord(BackfillRecord record, SourceOutput<T> output, BackfillSplitState split)
            throws IOException {
        // a BACKFILLING split emits only what its backfill read: the live reader's records come
        // after the transition out of it, which the fetch applies before them
        boolean backfill = split.state() == HandoverState.BACKFILLING;
        if (backfill == record.isLive()) {
            throw new IllegalStateException(
                    String.format(
                            "Split %s is %s, but its record at offset %d was read by the %s reader",
                            split.splitId(),
                            split.state(),
                            record.offset(),
                            record.isLive() ? "live" : "backfill"));
        }
        values.emitTo(output, backfill ? RecordOrigin.BACKFILL : RecordOrigin.LIVE, record);
        try {
            (backfill ? backfillDeserializer : liveDeserializer)
                    .deserialize(split.logSplitId(), record.offset(), record.raw(), values);
        } catch (IOException | RuntimeException e) {
            if (values.failedDownstream()) {
                // the operators after the source failed, not the deserializer
                throw e;
            }
            throw new IOException(
                    String.format(
                            "Failed to deserialize the record at offset %d of split %s (read by the %s reader)",
                            record.offset(), split.splitId(), backfill ? "backfill" : "live"),
                    e);
        }
        split.recordEmitted(record.offset());
        if (backfill) {
            split.countBackfilled();
            backfilledRecords.inc();
        }
    }

    /**
     * Hands a record's values to the reader's output, marked and with the record's timestamp,
     * noting while a value is downstream (as {@link PassingCollector} does, in one call per value).
     */
    private static final class ValueOutput<T> implements Collector<T> {
        private final RecordOrigin.Marker<T> originMarker;
        private SourceOutput<T> output;
        private RecordOrigin origin;
        private long timestamp;
        private boolean downstream;

        ValueOutput(RecordOrigin.Marker<T> originMarker) {
            this.originMarker = originMarker;
        }

        void emitTo(SourceOutput<T> output, RecordOrigin origin, BackfillRecord record) {
            this.output = output;
            this.origin = origin;
            this.timestamp = record.timestamp();
            this.downstream = false;
        }

        @Override
        public void collect(T value) {
            T marked = originMarker.mark(value, origin);
            downstream = true;
            output.collect(marked, timestamp);
            downstream = false;
        }

        /** Whether the failure came from handing a value downstream. */
        boolean failedDownstream() {
            return downstream;
        }

        @Override
        public void close() {}
    }
}
