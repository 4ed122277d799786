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

import dev.sourcebackfill.source.iceberg.IcebergTestTables.Kind;
import dev.sourcebackfill.source.spi.LogRecordCollector;
import dev.sourcebackfill.source.spi.LogRecordDeserializer;

import org.apache.flink.api.common.functions.util.ListCollector;

import org.apache.iceberg.DataFile;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.data.Record;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The fetcher reading each row's Kafka columns once ({@link TableRow}; written by the adversarial
 * review of that change): rows keep their own values after the fetcher read on, rows without an
 * offset fail naming themselves, rows below a restore position are not read.
 */
class TableRowTest {

    private static final String TOPIC = "orders";

    @TempDir Path warehouse;
    private Map<String, String> properties;
    private Catalog catalog;

    @BeforeEach
    void openCatalog() {
        properties = IcebergTestTables.hadoopCatalog(warehouse);
        catalog = IcebergTestTables.open("local", properties);
    }

    private IcebergTableReader reader(Kind kind, int maxRecordsPerPoll) {
        return new IcebergTableReader(
                new IcebergTableRef("local", properties, "db.t"),
                new RowColumns(kind.layout, TOPIC),
                List.of(TOPIC),
                maxRecordsPerPoll,
                null,
                valuesFrom());
    }

    /**
     * What the values are made of: the rows ({@link TableRowKafkaRecordsTest}: the Kafka records).
     */
    TableFiles.ValuesFrom valuesFrom() {
        return TableFiles.ValuesFrom.ROWS;
    }

    private static List<TableRow> readToEnd(IcebergTableReader reader, String split)
            throws IOException {
        List<TableRow> rows = new ArrayList<>();
        LogRecordCollector<TableRow> out = (s, offset, timestamp, row) -> rows.add(row);
        for (int polls = 0; !reader.isEndOfSplit(split); polls++) {
            assertThat(polls).as("polls until the end").isLessThan(1_000);
            reader.poll(Duration.ofMillis(10), out);
        }
        return rows;
    }

    /**
     * The rows the fetcher delivered are made values of later, in the task thread, after the
     * fetcher read further rows (the hand-over queue). The Kafka columns of a {@link TableRow} are
     * read in the fetcher, its key and value in the task thread: if the fetcher's Iceberg reader
     * ever reused its records (Parquet's {@code reuseContainers()}, a likely speed-up), a row would
     * go with another row's value (with {@code .reuseContainers()} added in {@link
     * TableFiles#readRows} this test fails; IcebergTableReaderTest's collector checks each row
     * before the next is read and cannot see it).
     */
    @Test
    void rowsMadeValuesOfAfterTheFetcherReadOnKeepTheirOwnValues() throws Exception {
        Table table = IcebergTestTables.create(catalog, "db.t", Kind.REDPANDA);
        for (int file = 0; file < 2; file++) {
            List<Record> rows = new ArrayList<>();
            for (long i = 0; i < 40; i++) {
                int partition = (int) (i % 4);
                long offset = file * 10 + i / 4;
                rows.add(
                        IcebergTestTables.row(
                                Kind.REDPANDA,
                                table.schema(),
                                TOPIC,
                                partition,
                                offset,
                                partition + "@" + offset));
            }
            IcebergTestTables.append(table, rows);
        }
        table.refresh();
        String split =
                TableHistorySplit.id("db.t", table.currentSnapshot().snapshotId(), List.of(TOPIC));
        List<TableRow> delivered;
        try (IcebergTableReader reader = reader(Kind.REDPANDA, 7)) {
            reader.addSplit(split, 0);
            delivered = readToEnd(reader, split);
        }
        assertThat(delivered).hasSize(80);

        List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
        LogRecordDeserializer<TableRow, String> values =
                IcebergRowDeserializer.throughKafkaDeserializer(
                        new RowColumns(Kind.REDPANDA.layout, TOPIC),
                        (splitId, offset, record, out) -> records.add(record));
        for (TableRow row : delivered) {
            values.deserialize(split, 0, row, new ListCollector<>(new ArrayList<>()));
        }
        assertThat(records)
                .allSatisfy(
                        record -> {
                            assertThat(new String(record.value(), StandardCharsets.UTF_8))
                                    .isEqualTo(record.partition() + "@" + record.offset());
                            assertThat(new String(record.key(), StandardCharsets.UTF_8))
                                    .isEqualTo("k" + record.offset());
                        });
    }

    /** An AutoMQ table (a record mapper's layout): one file of partition 0, offsets 0-4. */
    private Table autoMqTableWithANullOffsetAt(int nullAt) {
        Table table = IcebergTestTables.create(catalog, "db.t", Kind.AUTOMQ);
        List<Record> rows = new ArrayList<>();
        for (long o = 0; o < 5; o++) {
            Record row = IcebergTestTables.row(Kind.AUTOMQ, table.schema(), TOPIC, 0, o, "v" + o);
            if (o == nullAt) {
                ((Record) row.getField("_kafka_metadata")).setField("offset", null);
            }
            rows.add(row);
        }
        IcebergTestTables.append(table, rows);
        table.refresh();
        return table;
    }

    /**
     * A row without an offset cannot be placed against its partition's live records: it fails the
     * read naming the file and the row's position, also with a record mapper (which does not need
     * the offset to make its values), though the enumerator accepted the table (the file's bounds
     * name one partition, nulls not counted). Chosen over handing the mapper a row no offset places
     * (found by the review of the change that reads a row's Kafka columns in the fetcher).
     */
    @Test
    void aRowWithoutAnOffsetFailsTheReadNamingItsFileAndPosition() throws Exception {
        Table table = autoMqTableWithANullOffsetAt(2);
        long snapshot = table.currentSnapshot().snapshotId();
        // the enumerator's side: the file names one partition, its highest offset from the bounds
        TableHistory history =
                TableHistory.plan(table, "db.t", snapshot, Kind.AUTOMQ.layout, List.of(TOPIC));
        assertThat(
                        history.lastOffsets(
                                new RowColumns(Kind.AUTOMQ.layout, TOPIC),
                                List.of(TOPIC),
                                new TableFiles(table.io(), "db.t")))
                .containsExactly(Map.entry(new TopicPartition(TOPIC, 0), 4L));

        String split = TableHistorySplit.id("db.t", snapshot, List.of(TOPIC));
        try (IcebergTableReader reader = reader(Kind.AUTOMQ, 100)) {
            reader.addSplit(split, 0);
            assertThatThrownBy(() -> readToEnd(reader, split))
                    .hasMessageContaining("the row at position 2")
                    .hasMessageContaining(".parquet")
                    .hasMessageContaining("offset");
        }
    }

    /**
     * A chunk restored at position 3 drops the rows below it without reading their Kafka columns: a
     * row below the restore position (delivered before the checkpoint) does not fail the restore.
     */
    @Test
    void aRowBelowTheRestorePositionIsSkippedWithoutReadingItsKafkaColumns() throws Exception {
        Table table = autoMqTableWithANullOffsetAt(1);
        String split =
                TableHistorySplit.id("db.t", table.currentSnapshot().snapshotId(), List.of(TOPIC));
        try (IcebergTableReader reader = reader(Kind.AUTOMQ, 100)) {
            reader.addSplit(split, 3);
            assertThat(readToEnd(reader, split))
                    .extracting(TableRow::kafkaOffset)
                    .containsExactly(3L, 4L);
        }
    }

    /**
     * A row the fetcher fails on is named by its own position, not the cursor's (rows 5-8 deleted,
     * row 9 with a null partition: "position 9", not 5).
     */
    @Test
    void aRowTheFetcherFailsOnIsNamedByItsOwnPosition() throws Exception {
        Table table = IcebergTestTables.create(catalog, "db.t", Kind.AIVEN);
        List<Record> rows = new ArrayList<>();
        for (long o = 0; o < 10; o++) {
            Record row = IcebergTestTables.row(Kind.AIVEN, table.schema(), TOPIC, 0, o, "v");
            if (o == 9) {
                ((Record) row.getField("kafka")).setField("partition", null);
            }
            rows.add(row);
        }
        List<DataFile> files = IcebergTestTables.append(table, rows);
        IcebergTestTables.deletePositions(table, files.get(0), 5, 6, 7, 8);
        table.refresh();
        String split =
                TableHistorySplit.id("db.t", table.currentSnapshot().snapshotId(), List.of(TOPIC));
        try (IcebergTableReader reader = reader(Kind.AIVEN, 100)) {
            reader.addSplit(split, 0);
            assertThatThrownBy(() -> readToEnd(reader, split))
                    .isInstanceOf(IOException.class)
                    .hasMessageContaining("partition")
                    .hasMessageContaining("position 9");
        }
    }

    /**
     * Issue 34, defect 3: a row whose Kafka columns are all null in a layout with a topic column
     * (Kafka Connect's) is not left out by the topic filter of a split cut now: the read fails
     * naming its file and position, as a row without an offset does in every layout.
     */
    @Test
    void aRowWithoutKafkaColumnsFailsTheReadAlsoWithATopicColumn() throws Exception {
        Table table = IcebergTestTables.create(catalog, "db.t", Kind.KAFKA_CONNECT);
        List<Record> rows = new ArrayList<>();
        for (long o = 0; o < 5; o++) {
            Record row =
                    IcebergTestTables.row(Kind.KAFKA_CONNECT, table.schema(), TOPIC, 0, o, "v" + o);
            if (o == 3) {
                row.setField("_kafka_metadata_topic", null);
                row.setField("_kafka_metadata_partition", null);
                row.setField("_kafka_metadata_offset", null);
            }
            rows.add(row);
        }
        IcebergTestTables.append(table, rows);
        table.refresh();
        long snapshot = table.currentSnapshot().snapshotId();
        TableHistory history =
                TableHistory.plan(
                        table, "db.t", snapshot, Kind.KAFKA_CONNECT.layout, List.of(TOPIC));
        assertThat(history.records()).isEqualTo(5);

        String split = TableHistorySplit.id("db.t", snapshot, List.of(TOPIC));
        assertThat(TableHistorySplit.planOf(split))
                .isEqualTo(TableHistorySplit.Plan.TOPICS_AND_ROWS_WITHOUT_TOPIC);
        try (IcebergTableReader reader = reader(Kind.KAFKA_CONNECT, 100)) {
            reader.addSplit(split, 0);
            // the table is partitioned by the Kafka partition: the row without one is a file of
            // its own, planned after the four rows of partition 0
            assertThatThrownBy(() -> readToEnd(reader, split))
                    .hasMessageContaining("the row at position 4")
                    .hasMessageContaining("_kafka_metadata_partition=null")
                    .hasMessageContaining("no topic");
        }
    }

    /**
     * Review of issue 34 (defect 3, rows without a topic): the scan now keeps files whose topic is
     * null, so the same pinned snapshot is planned into other positions than before the change. A
     * table history split is restored with positions of the plan it was cut and read with: a
     * checkpoint written before the change holds the split (or its chunks) at positions of the old
     * plan, in which a file of rows without a topic was left out. Here files M1 and M2 mix
     * partitions (positions [0, 10) and [10, 20) in the old plan) and a file without Kafka columns
     * sorts first among the files mixing partitions: the restored split at position 10 (its part
     * [10, 20) as the enumerator cut it) reads the last three rows of M1 again and never the last
     * three of M2, silently (no row without a topic is read). Expected: the rows at [10, 20) are
     * M2's, or the reader fails, naming the changed plan.
     */
    @Test
    void aTableHistorySplitPlannedBeforeTheChangeReadsTheRowsItWasPlannedWith() throws Exception {
        Kind kind = Kind.KAFKA_CONNECT_NESTED; // a topic column, files mixing partitions
        Table table = IcebergTestTables.create(catalog, "db.t", kind);
        List<Record> m1 = new ArrayList<>();
        for (long o = 0; o < 5; o++) {
            for (int p = 0; p < 2; p++) {
                m1.add(IcebergTestTables.row(kind, table.schema(), TOPIC, p, o, p + "@" + o));
            }
        }
        IcebergTestTables.append(table, m1);
        List<Record> orphans = new ArrayList<>();
        for (long o = 0; o < 3; o++) {
            Record row = IcebergTestTables.row(kind, table.schema(), TOPIC, 0, o, "orphan" + o);
            row.setField("_kafka_metadata", null); // written by another writer: no Kafka columns
            orphans.add(row);
        }
        IcebergTestTables.append(table, orphans);
        List<Record> m2 = new ArrayList<>();
        for (long o = 5; o < 10; o++) {
            for (int p = 0; p < 2; p++) {
                m2.add(IcebergTestTables.row(kind, table.schema(), TOPIC, p, o, p + "@" + o));
            }
        }
        IcebergTestTables.append(table, m2);
        table.refresh();
        long snapshot = table.currentSnapshot().snapshotId();

        // the plan before the change: the topic filter alone left the file without topics out
        List<org.apache.iceberg.FileScanTask> before = new ArrayList<>();
        try (org.apache.iceberg.io.CloseableIterable<org.apache.iceberg.FileScanTask> tasks =
                table.newScan()
                        .useSnapshot(snapshot)
                        .filter(
                                org.apache.iceberg.expressions.Expressions.in(
                                        kind.layout.topicColumn().get(), TOPIC))
                        .planFiles()) {
            tasks.forEach(before::add);
        }
        assertThat(before).as("files planned before the change").hasSize(2);
        TableHistory now = TableHistory.plan(table, "db.t", snapshot, kind.layout, List.of(TOPIC));
        assertThat(now.records()).as("positions planned now").isEqualTo(23);

        // restored from a checkpoint written before the change: the part [10, 20) at 10, in the
        // id's form then (no plan mark)
        String split = "iceberg:db.t@" + snapshot + "/" + TOPIC;
        assertThat(TableHistorySplit.planOf(split)).isEqualTo(TableHistorySplit.Plan.TOPICS);
        List<String> delivered = new ArrayList<>();
        Throwable failure;
        try (IcebergTableReader reader = reader(kind, 100)) {
            reader.addSplit(split, 10);
            LogRecordCollector<TableRow> out =
                    (s, position, timestamp, row) -> {
                        if (position < 20) {
                            delivered.add(row.partition() + "@" + row.kafkaOffset());
                        }
                    };
            failure =
                    org.assertj.core.api.Assertions.catchThrowable(
                            () -> {
                                for (int polls = 0; !reader.isEndOfSplit(split); polls++) {
                                    assertThat(polls).isLessThan(1_000);
                                    reader.poll(Duration.ofMillis(10), out);
                                }
                            });
        }
        if (failure == null) {
            assertThat(delivered)
                    .as("the rows at positions [10, 20), M2's when the split was planned")
                    .containsExactlyInAnyOrder(
                            "0@5", "1@5", "0@6", "1@6", "0@7", "1@7", "0@8", "1@8", "0@9", "1@9");
        }
    }

    /**
     * A row's Kafka record without headers has headers as a Kafka consumer's record has them:
     * empty, open to additions, the same object on every call; a row with headers keeps them.
     */
    @Test
    void aKafkaRecordWithoutHeadersHasItsOwnEmptyHeadersOpenToAdditions() {
        ConsumerRecord<byte[], byte[]> first =
                TableRow.ofKafkaRecord(TOPIC, 1, 5, 1000L, null, new byte[] {1}, new Header[0])
                        .kafkaRecord();
        ConsumerRecord<byte[], byte[]> second =
                TableRow.ofKafkaRecord(TOPIC, 1, 6, 1001L, null, new byte[] {2}, new Header[0])
                        .kafkaRecord();
        assertThat(first.headers()).isEmpty();
        first.headers().add("trace", new byte[] {7});
        assertThat(first.headers().lastHeader("trace").value()).containsExactly(7);
        assertThat(first.headers()).hasSize(1);
        assertThat(second.headers()).as("each record its own headers").isEmpty();
        assertThat(first.offset()).isEqualTo(5);
        assertThat(first.timestamp()).isEqualTo(1000L);
        assertThat(first.serializedValueSize()).isEqualTo(1);
        assertThat(first.serializedKeySize()).isEqualTo(ConsumerRecord.NULL_SIZE);
        assertThat(first.toString()).contains("offset = 5");

        ConsumerRecord<byte[], byte[]> withHeaders =
                TableRow.ofKafkaRecord(
                                TOPIC,
                                1,
                                7,
                                1002L,
                                null,
                                null,
                                new Header[] {new RecordHeader("h", new byte[] {3})})
                        .kafkaRecord();
        assertThat(withHeaders.headers().lastHeader("h").value()).containsExactly(3);
        withHeaders.headers().add("more", null);
        assertThat(withHeaders.headers()).hasSize(2);
    }
}
