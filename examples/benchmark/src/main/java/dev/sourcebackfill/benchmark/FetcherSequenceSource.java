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

import dev.sourcebackfill.source.datagen.DatagenLog;
import dev.sourcebackfill.source.datagen.DatagenRecord;

import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.api.connector.source.SourceOutput;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.api.connector.source.lib.NumberSequenceSource;
import org.apache.flink.api.connector.source.lib.NumberSequenceSource.NumberSequenceSplit;
import org.apache.flink.connector.base.source.reader.RecordEmitter;
import org.apache.flink.connector.base.source.reader.RecordsBySplits;
import org.apache.flink.connector.base.source.reader.RecordsWithSplitIds;
import org.apache.flink.connector.base.source.reader.SingleThreadMultiplexSourceReaderBase;
import org.apache.flink.connector.base.source.reader.splitreader.SplitReader;
import org.apache.flink.connector.base.source.reader.splitreader.SplitsChange;
import org.apache.flink.core.io.SimpleVersionedSerializer;

import java.util.ArrayDeque;
import java.util.Collection;
import java.util.Map;
import java.util.function.Supplier;

/**
 * A reference for the backfill throughput figure: the records of {@link NumberSequenceSource}
 * through the datagen log's record function, read the way every source on Flink's {@code
 * SourceReaderBase} reads (a fetcher thread per reader making batches that the task thread emits),
 * with nothing else: no handover, no offsets kept. Its enumerator and splits are {@code
 * NumberSequenceSource}'s own; its split reader makes each split's records in batches as large as
 * the datagen log's polls. What this source costs against {@code NumberSequenceSource}, which makes
 * its records in the task thread, is what the design of {@code SourceReaderBase} costs; what our
 * source costs against this one is what the backfill machinery costs.
 */
final class FetcherSequenceSource
        implements Source<DatagenRecord, NumberSequenceSplit, Collection<NumberSequenceSplit>> {

    private static final long serialVersionUID = 1L;

    private final NumberSequenceSource numbers;
    private final DatagenLog log;
    private final int partitions;
    private final int batchSize;

    /**
     * @param records the numbers 0 to {@code records - 1}; number {@code i} is offset {@code i / P}
     *     of partition {@code i % P}, as in the baseline's map
     */
    FetcherSequenceSource(long records, DatagenLog log, int partitions, int batchSize) {
        this.numbers = new NumberSequenceSource(0, records - 1);
        this.log = log;
        this.partitions = partitions;
        this.batchSize = batchSize;
    }

    @Override
    public Boundedness getBoundedness() {
        return Boundedness.BOUNDED;
    }

    @Override
    public SplitEnumerator<NumberSequenceSplit, Collection<NumberSequenceSplit>> createEnumerator(
            SplitEnumeratorContext<NumberSequenceSplit> context) {
        return numbers.createEnumerator(context);
    }

    @Override
    public SplitEnumerator<NumberSequenceSplit, Collection<NumberSequenceSplit>> restoreEnumerator(
            SplitEnumeratorContext<NumberSequenceSplit> context,
            Collection<NumberSequenceSplit> checkpoint) {
        return numbers.restoreEnumerator(context, checkpoint);
    }

    @Override
    public SimpleVersionedSerializer<NumberSequenceSplit> getSplitSerializer() {
        return numbers.getSplitSerializer();
    }

    @Override
    public SimpleVersionedSerializer<Collection<NumberSequenceSplit>>
            getEnumeratorCheckpointSerializer() {
        return numbers.getEnumeratorCheckpointSerializer();
    }

    @Override
    public SourceReader<DatagenRecord, NumberSequenceSplit> createReader(
            SourceReaderContext context) {
        return new Reader(context, () -> new Fetcher(log, partitions, batchSize));
    }

    /** A split's next number; the rest is the split's. */
    private static final class Position {
        final NumberSequenceSplit split;
        long next;

        Position(NumberSequenceSplit split) {
            this.split = split;
            this.next = split.from();
        }
    }

    private static final class Reader
            extends SingleThreadMultiplexSourceReaderBase<
                    DatagenRecord, DatagenRecord, NumberSequenceSplit, Position> {

        Reader(
                SourceReaderContext context,
                Supplier<SplitReader<DatagenRecord, NumberSequenceSplit>> fetcher) {
            super(fetcher, new Emitter(), context.getConfiguration(), context);
        }

        @Override
        public void start() {
            context.sendSplitRequest();
        }

        @Override
        protected void onSplitFinished(Map<String, Position> finishedSplitIds) {
            context.sendSplitRequest();
        }

        @Override
        protected Position initializedState(NumberSequenceSplit split) {
            return new Position(split);
        }

        @Override
        protected NumberSequenceSplit toSplitType(String splitId, Position position) {
            return new NumberSequenceSplit(splitId, position.next, position.split.to());
        }
    }

    private static final class Emitter
            implements RecordEmitter<DatagenRecord, DatagenRecord, Position> {
        @Override
        public void emitRecord(
                DatagenRecord record, SourceOutput<DatagenRecord> output, Position position) {
            output.collect(record);
            position.next++;
        }
    }

    /** Makes the records of its splits, one split after the other, a batch per fetch. */
    private static final class Fetcher implements SplitReader<DatagenRecord, NumberSequenceSplit> {

        private final DatagenLog log;
        private final int partitions;
        private final int batchSize;
        private final ArrayDeque<Position> splits = new ArrayDeque<>();

        Fetcher(DatagenLog log, int partitions, int batchSize) {
            this.log = log;
            this.partitions = partitions;
            this.batchSize = batchSize;
        }

        @Override
        public RecordsWithSplitIds<DatagenRecord> fetch() {
            RecordsBySplits.Builder<DatagenRecord> batch = new RecordsBySplits.Builder<>();
            Position split = splits.peek();
            if (split == null) {
                return batch.build();
            }
            String id = split.split.splitId();
            long end = Math.min(split.split.to() + 1, split.next + batchSize);
            for (long i = split.next; i < end; i++) {
                batch.add(id, log.record((int) (i % partitions), i / partitions));
            }
            split.next = end;
            if (end > split.split.to()) {
                batch.addFinishedSplit(id);
                splits.poll();
            }
            return batch.build();
        }

        @Override
        public void handleSplitsChanges(SplitsChange<NumberSequenceSplit> change) {
            for (NumberSequenceSplit split : change.splits()) {
                splits.add(new Position(split));
            }
        }

        @Override
        public void wakeUp() {}

        @Override
        public void close() {}
    }
}
