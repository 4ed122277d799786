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
package dev.sourcebackfill.source.iceberg;

import dev.sourcebackfill.source.kafka.HistoryBeforeKafkaLog;
import dev.sourcebackfill.source.kafka.LiveTopics;
import dev.sourcebackfill.source.spi.LogReading;
import dev.sourcebackfill.source.spi.LogRecordDeserializer;
import dev.sourcebackfill.source.spi.LogSplitDiscoverer;
import dev.sourcebackfill.source.split.SplitKind;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.source.SourceReaderContext;

import javax.annotation.Nullable;

import java.util.List;

/**
 * An Iceberg table written from the topic in front of the live topic: the history from the table's
 * pinned snapshot, the live reader the Kafka adapter's.
 */
@Internal
final class IcebergBackfillLog<T> extends HistoryBeforeKafkaLog<T> {

    private static final long serialVersionUID = 1L;

    private final IcebergTableRef tableRef;
    private final RowColumns columns;

    /** The live topics, as the builder was given them. */
    private final List<String> topics;

    @Nullable private final IcebergRecordMapper<T> recordMapper;
    private final int maxRecordsPerPoll;

    /** The tag on the pinned snapshot until forward mode; {@code null}: none. */
    @Nullable private final SnapshotTag snapshotTag;

    /**
     * Ordered mode: each partition's rows read by its own split in offset order, handed over at
     * their end; otherwise the table's history as one split read in chunks.
     */
    private final boolean ordered;

    /**
     * @param recordMapper makes the values of a row; {@code null}: the live topic's deserializer
     *     makes them of the record the row keeps (the layout must have a value column)
     * @param snapshotTag the tag on the pinned snapshot until forward mode; {@code null}: none
     */
    IcebergBackfillLog(
            LiveTopics<T> liveTopics,
            IcebergTableRef tableRef,
            RowColumns columns,
            List<String> topics,
            @Nullable IcebergRecordMapper<T> recordMapper,
            int maxRecordsPerPoll,
            @Nullable SnapshotTag snapshotTag,
            boolean ordered) {
        super(liveTopics);
        this.tableRef = tableRef;
        this.columns = columns;
        this.topics = List.copyOf(topics);
        this.recordMapper = recordMapper;
        this.maxRecordsPerPoll = maxRecordsPerPoll;
        this.snapshotTag = snapshotTag;
        this.ordered = ordered;
    }

    @Override
    public LogSplitDiscoverer createSplitDiscoverer() throws Exception {
        return new IcebergDiscoverer(
                createTopicDiscoverer(),
                tableRef,
                columns.copy(),
                recordMapper == null,
                snapshotTag,
                ordered);
    }

    /**
     * The table's rows, read in the fetcher thread (in ordered mode per partition, in offset
     * order); values made in the task thread.
     */
    @Override
    public LogReading<TableRow, T> backfillReading() {
        if (ordered) {
            return LogReading.of(
                    context ->
                            new OrderedTableReader(
                                    tableRef,
                                    columns.copy(),
                                    topics,
                                    maxRecordsPerPoll,
                                    snapshotTag),
                    this::createRowDeserializer);
        }
        return LogReading.of(
                context ->
                        new IcebergTableReader(
                                tableRef,
                                columns.copy(),
                                topics,
                                maxRecordsPerPoll,
                                snapshotTag,
                                valuesFrom()),
                this::createRowDeserializer);
    }

    /**
     * What the values are made of: the rows (a mapper), or the Kafka records the rows keep, whole
     * or (a value-only deserializer) their values alone.
     */
    TableFiles.ValuesFrom valuesFrom() {
        if (recordMapper != null) {
            return TableFiles.ValuesFrom.ROWS;
        }
        return topicDeserializerReadsValueOnly()
                ? TableFiles.ValuesFrom.KAFKA_VALUES
                : TableFiles.ValuesFrom.KAFKA_RECORDS;
    }

    private LogRecordDeserializer<TableRow, T> createRowDeserializer(SourceReaderContext context)
            throws Exception {
        if (recordMapper != null) {
            return IcebergRowDeserializer.mapped(recordMapper, columns.copy());
        }
        // the job's Kafka schema, opened for the history, in its own metric group
        return IcebergRowDeserializer.throughKafkaDeserializer(
                columns.copy(), createTopicDeserializer(context));
    }

    /**
     * The table's history is cut at file starts ({@link IcebergDiscoverer#cutHistory}); in ordered
     * mode a partition's history is read by its own split only, in one piece.
     */
    @Override
    public boolean supportsHistoryChunks() {
        return !ordered;
    }

    boolean isOrdered() {
        return ordered;
    }

    /**
     * The table's parts were history splits before splits had a kind too: told apart by their ids,
     * which no partition of a topic has.
     */
    @Override
    public SplitKind kindOfSplitStoredWithoutKind(String splitId) {
        return TableHistorySplit.isTableHistory(splitId) ? SplitKind.HISTORY : SplitKind.LOG;
    }

    @Override
    public String toString() {
        return "IcebergBackfillLog{"
                + tableRef
                + ", "
                + columns.layout()
                + ", values "
                + (recordMapper != null ? "by " + recordMapper : "by the topic's deserializer")
                + (snapshotTag != null ? ", " + snapshotTag : ", no snapshot tag")
                + (ordered ? ", ordered" : "")
                + ", live "
                + describeTopics()
                + '}';
    }
}
