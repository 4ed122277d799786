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
import dev.sourcebackfill.source.spi.DiscoveredSplit;
import dev.sourcebackfill.source.spi.LogRecordCollector;
import dev.sourcebackfill.source.spi.LogSplitDiscoverer;

import org.apache.flink.util.Collector;

import org.apache.iceberg.DataFile;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Types;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Edge cases of the Iceberg adapter an adversarial review found (each failed before its fix) or
 * checked: event time within a chunk, a restore with another topic list, row groups skipped,
 * equality deletes, value columns that are not bytes, deleted rows at a partition's end, errors.
 */
class IcebergEdgeCasesTest {

    private static final String TOPIC = "orders";

    @TempDir Path warehouse;
    private Map<String, String> properties;
    private Catalog catalog;

    @BeforeEach
    void openCatalog() {
        properties = IcebergTestTables.hadoopCatalog(warehouse);
        catalog = IcebergTestTables.open("local", properties);
    }

    private static List<Record> rows(Kind kind, Table table, int partition, long from, long to) {
        List<Record> rows = new ArrayList<>();
        for (long o = from; o < to; o++) {
            rows.add(IcebergTestTables.row(kind, table.schema(), TOPIC, partition, o, "v"));
        }
        return rows;
    }

    /** The topic as the Kafka adapter's discoverer finds it: partitions from offset 0. */
    private static LogSplitDiscoverer topic(long... ends) {
        return new LogSplitDiscoverer() {
            @Override
            public List<DiscoveredSplit> discoverSplits(boolean initial) {
                List<DiscoveredSplit> splits = new ArrayList<>();
                for (int p = 0; p < ends.length; p++) {
                    splits.add(DiscoveredSplit.backfilled(TOPIC + "-" + p, 0, ends[p]));
                }
                return splits;
            }
        };
    }

    private IcebergDiscoverer discoverer(Kind kind, LogSplitDiscoverer topic) {
        return new IcebergDiscoverer(
                topic,
                new IcebergTableRef("local", properties, "db.t"),
                new RowColumns(kind.layout, TOPIC),
                false,
                null,
                false);
    }

    // ------------------------------------------------------------------ event time in a chunk

    /**
     * docs/iceberg.md: "Each chunk has a split watermark of its own, so an event-time job sees
     * nothing late from this." With a file per partition (Kafka Connect's identity partitioning),
     * partition 0's history and partition 1's span the same time: in one chunk, partition 1's rows
     * would all be behind the chunk's watermark (Flink's {@code forMonotonousTimestamps}, the
     * highest timestamp emitted so far). The history is cut where the partition changes, so each
     * chunk's rows go forward in time.
     */
    @Test
    void rowsOfOneChunkDoNotGoBackInTimeBehindTheChunksWatermark() throws Exception {
        Kind kind = Kind.KAFKA_CONNECT;
        Table table = IcebergTestTables.create(catalog, "db.t", kind);
        // each partition's offsets 0..199 at BASE + offset ms (two commits, a file per
        // partition each): both partitions span the same 200 ms of event time
        for (long from = 0; from < 200; from += 100) {
            List<Record> commit = new ArrayList<>(rows(kind, table, 0, from, from + 100));
            commit.addAll(rows(kind, table, 1, from, from + 100));
            IcebergTestTables.append(table, commit);
        }
        table.refresh();
        long snapshot = table.currentSnapshot().snapshotId();
        TableHistory history =
                TableHistory.plan(table, "db.t", snapshot, kind.layout, List.of(TOPIC));
        // the default chunk size (1,000,000 rows): cut only where the partition changes
        List<Long> cuts =
                history.cuts(0, history.records(), IcebergBackfillSourceBuilder.DEFAULT_CHUNK_SIZE);
        assertThat(cuts).containsExactly(200L);

        String split = TableHistorySplit.id("db.t", snapshot, List.of(TOPIC));
        List<long[]> delivered = new ArrayList<>();
        LogRecordCollector<TableRow> out =
                (splitId, offset, timestamp, record) ->
                        delivered.add(new long[] {offset, timestamp});
        try (IcebergTableReader reader =
                new IcebergTableReader(
                        new IcebergTableRef("local", properties, "db.t"),
                        new RowColumns(kind.layout, TOPIC),
                        List.of(TOPIC),
                        1_000)) {
            reader.addSplit(split, 0);
            for (int polls = 0; !reader.isEndOfSplit(split); polls++) {
                assertThat(polls).isLessThan(1_000);
                reader.poll(Duration.ofMillis(10), out);
            }
        }
        assertThat(delivered).hasSize(400);
        // each chunk's own watermark: reset where a chunk starts
        long watermark = Long.MIN_VALUE;
        int late = 0;
        for (long[] row : delivered) {
            if (cuts.contains(row[0])) {
                watermark = Long.MIN_VALUE;
            }
            if (row[1] < watermark) {
                late++;
            }
            watermark = Math.max(watermark, row[1]);
        }
        assertThat(late).as("rows of a chunk behind the chunk's own watermark").isZero();
    }

    // ------------------------------------------------------------------ restore

    /**
     * The history split's positions depend on the topics the reader plans with, which are not in
     * the split (nor in the enumerator's state): the builder's topic list of the job that runs now.
     * A job restored with one more topic in {@code setTopics} (Kafka's source allows it) plans
     * other files at other positions: here the restored split goes on at position 50 of the table's
     * {@code orders} rows, but gets rows of the new topic there instead, and {@code orders} offsets
     * 50..99 (in the table only, the topic goes live at 100) are never read.
     */
    @Test
    void aRestoreWithAnotherTopicListReadsTheRowsTheSplitsPositionsWereGivenTo() throws Exception {
        Kind kind = Kind.KAFKA_CONNECT;
        Table table = IcebergTestTables.create(catalog, "db.t", kind);
        List<Record> commit = new ArrayList<>();
        for (long o = 0; o < 100; o++) {
            commit.add(IcebergTestTables.row(kind, table.schema(), "accounts", 0, o, "a"));
            commit.add(IcebergTestTables.row(kind, table.schema(), TOPIC, 0, o, "o"));
        }
        // a file per topic (as the sink writes one per topic)
        IcebergTestTables.append(table, commit.subList(0, 1));
        IcebergTestTables.append(
                table,
                commit.stream()
                        .filter(r -> "accounts".equals(r.getField("_kafka_metadata_topic")))
                        .skip(1)
                        .collect(java.util.stream.Collectors.toList()));
        IcebergTestTables.append(
                table,
                commit.stream()
                        .filter(r -> TOPIC.equals(r.getField("_kafka_metadata_topic")))
                        .collect(java.util.stream.Collectors.toList()));
        table.refresh();
        long snapshot = table.currentSnapshot().snapshotId();
        String split = TableHistorySplit.id("db.t", snapshot, List.of(TOPIC));

        // the first run reads topic orders only: the split is [0, 100), orders' rows 0..99;
        // its checkpoint holds position 50 (orders 0..49 emitted)
        TableHistory first =
                TableHistory.plan(table, "db.t", snapshot, kind.layout, List.of(TOPIC));
        assertThat(first.records()).isEqualTo(100);

        // restored with topics accounts and orders
        RowColumns columns = new RowColumns(kind.layout, null);
        List<String> delivered = new ArrayList<>();
        try (IcebergTableReader reader =
                new IcebergTableReader(
                        new IcebergTableRef("local", properties, "db.t"),
                        columns,
                        List.of(TOPIC),
                        1_000)) {
            reader.addSplit(split, 50);
            reader.poll(
                    Duration.ofMillis(10),
                    (splitId, offset, timestamp, row) -> {
                        if (offset < first.records()) { // the split stops at 100
                            delivered.add(row.topic() + "@" + row.kafkaOffset());
                        }
                    });
        }
        List<String> expected = new ArrayList<>();
        for (long o = 50; o < 100; o++) {
            expected.add(TOPIC + "@" + o);
        }
        assertThat(delivered).containsExactlyElementsOf(expected);
    }

    /**
     * Row groups of other topics skipped by Parquet's row group filter: {@code _pos} of the rows
     * after them is still their place in the file (positions are right).
     */
    @Test
    void rowGroupsOfOtherTopicsSkippedKeepThePositionsOfTheRowsAfterThem() throws Exception {
        Kind kind = Kind.KAFKA_CONNECT;
        Table table = IcebergTestTables.create(catalog, "db.t", kind);
        table.updateProperties()
                .set("write.parquet.row-group-size-bytes", "1")
                .set("write.parquet.row-group-check-min-record-count", "10")
                .set("write.parquet.row-group-check-max-record-count", "10")
                .commit();
        List<Record> rows = new ArrayList<>();
        for (long o = 0; o < 40; o++) {
            boolean ours = (o / 10) % 2 == 1;
            rows.add(
                    IcebergTestTables.row(kind, table.schema(), ours ? TOPIC : "other", 0, o, "v"));
        }
        IcebergTestTables.append(table, rows);
        table.refresh();
        String split =
                TableHistorySplit.id("db.t", table.currentSnapshot().snapshotId(), List.of(TOPIC));
        RowColumns columns = new RowColumns(kind.layout, TOPIC);
        List<Long> positions = new ArrayList<>();
        List<Long> offsets = new ArrayList<>();
        try (IcebergTableReader reader =
                new IcebergTableReader(
                        new IcebergTableRef("local", properties, "db.t"),
                        columns,
                        List.of(TOPIC),
                        1_000)) {
            reader.addSplit(split, 0);
            for (int polls = 0; !reader.isEndOfSplit(split); polls++) {
                assertThat(polls).isLessThan(100);
                reader.poll(
                        Duration.ofMillis(10),
                        (splitId, offset, timestamp, row) -> {
                            positions.add(offset);
                            offsets.add(row.kafkaOffset());
                        });
            }
        }
        assertThat(offsets).hasSize(20);
        assertThat(positions).containsExactlyElementsOf(offsets);
    }

    /** Equality deletes (by offset) are applied by the reader and still count for the end. */
    @Test
    void equalityDeletesAreHolesAndStillCountForThePartitionsEnd() throws Exception {
        Kind kind = Kind.KAFKA_CONNECT;
        Table table = IcebergTestTables.create(catalog, "db.t", kind);
        List<DataFile> files = IcebergTestTables.append(table, rows(kind, table, 0, 0, 10));
        Schema deleteSchema = table.schema().select("_kafka_metadata_offset");
        org.apache.iceberg.io.OutputFile out =
                table.io()
                        .newOutputFile(
                                table.locationProvider()
                                        .newDataLocation(
                                                table.spec(),
                                                files.get(0).partition(),
                                                "eq-deletes.parquet"));
        org.apache.iceberg.deletes.EqualityDeleteWriter<Record> writer =
                org.apache.iceberg.parquet.Parquet.writeDeletes(out)
                        .forTable(table)
                        .withSpec(table.spec())
                        .withPartition(files.get(0).partition())
                        .rowSchema(deleteSchema)
                        .equalityFieldIds(
                                deleteSchema.findField("_kafka_metadata_offset").fieldId())
                        .createWriterFunc(
                                org.apache.iceberg.data.parquet.GenericParquetWriter::create)
                        .overwrite()
                        .buildEqualityWriter();
        try (writer) {
            for (long o : new long[] {4, 9}) {
                GenericRecord delete = GenericRecord.create(deleteSchema);
                delete.setField("_kafka_metadata_offset", o);
                writer.write(delete);
            }
        }
        table.newRowDelta().addDeletes(writer.toDeleteFile()).commit();
        table.refresh();
        long snapshot = table.currentSnapshot().snapshotId();

        TableHistory history =
                TableHistory.plan(table, "db.t", snapshot, kind.layout, List.of(TOPIC));
        RowColumns columns = new RowColumns(kind.layout, TOPIC);
        assertThat(history.lastOffsets(columns, List.of(TOPIC), new TableFiles(table.io(), "db.t")))
                .containsEntry(new org.apache.kafka.common.TopicPartition(TOPIC, 0), 9L);
        String split = TableHistorySplit.id("db.t", snapshot, List.of(TOPIC));
        List<Long> offsets = new ArrayList<>();
        try (IcebergTableReader reader =
                new IcebergTableReader(
                        new IcebergTableRef("local", properties, "db.t"),
                        columns,
                        List.of(TOPIC),
                        1_000)) {
            reader.addSplit(split, 0);
            for (int polls = 0; !reader.isEndOfSplit(split); polls++) {
                assertThat(polls).isLessThan(100);
                reader.poll(
                        Duration.ofMillis(10),
                        (splitId, offset, timestamp, row) -> offsets.add(row.kafkaOffset()));
            }
            assertThat(reader.position(split)).isEqualTo(10);
        }
        assertThat(offsets).containsExactly(0L, 1L, 2L, 3L, 5L, 6L, 7L, 8L);
    }

    // ------------------------------------------------------------------ the value column

    /**
     * The topic's deserializer gets the value column's bytes; a value column that is not binary
     * (nor a string) is turned into {@code String.valueOf(...)} bytes without a word: Redpanda's
     * schema modes write the value's fields as columns, and a record with a field named {@code
     * value} gives a table that passes the check with an int / struct {@code value} column. The
     * check must fail naming the column and its type.
     */
    @Test
    void aValueColumnThatDoesNotHoldTheRecordsBytesFailsTheCheck() {
        Schema schema =
                new Schema(
                        Types.NestedField.optional(
                                1,
                                "redpanda",
                                Types.StructType.of(
                                        Types.NestedField.required(
                                                3, "partition", Types.IntegerType.get()),
                                        Types.NestedField.required(
                                                4, "offset", Types.LongType.get()),
                                        Types.NestedField.required(
                                                5, "timestamp", Types.TimestampType.withZone()))),
                        // the value's own field "value" (schema mode), an int
                        Types.NestedField.optional(2, "value", Types.IntegerType.get()));

        assertThatThrownBy(() -> RowColumns.check(IcebergLayout.redpanda(), schema, "db.t", true))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("db.t")
                .hasMessageContaining("'value'");
    }

    /** What the deserializer gets today from such a column: the text of an int, silently. */
    @Test
    void aNonBinaryValueColumnGivesTheDeserializerMadeUpBytes() throws Exception {
        Schema schema =
                new Schema(
                        Types.NestedField.required(3, "partition", Types.IntegerType.get()),
                        Types.NestedField.required(4, "offset", Types.LongType.get()),
                        Types.NestedField.required(5, "timestamp", Types.LongType.get()),
                        Types.NestedField.optional(2, "value", Types.IntegerType.get()));
        IcebergLayout layout =
                IcebergLayout.of("partition", "offset", "timestamp").withValueColumn("value");
        GenericRecord row = GenericRecord.create(schema);
        row.setField("partition", 0);
        row.setField("offset", 7L);
        row.setField("timestamp", 1L);
        row.setField("value", 42);
        List<ConsumerRecord<byte[], byte[]>> got = new ArrayList<>();
        // the record's value bytes are unknown: the row must fail, not become the bytes of "42"
        assertThatThrownBy(
                        () ->
                                IcebergRowDeserializer.<String>throughKafkaDeserializer(
                                                new RowColumns(layout, TOPIC),
                                                (splitId, offset, record, out) -> got.add(record))
                                        .deserialize(
                                                "iceberg:db.t@1",
                                                0,
                                                TableRow.read(new RowColumns(layout, TOPIC), row),
                                                new ListCollector<>()))
                .hasMessageContaining("value");
        assertThat(got).isEmpty();
    }

    // ------------------------------------------------------------------ the handover rule

    /**
     * docs/iceberg.md: a row the table deleted counts for its partition's highest offset as long as
     * the pinned snapshot's data files still hold it. Once a compaction (or any rewrite that
     * applies deletes) dropped the deleted rows at a partition's end, the snapshot no longer knows
     * them: the partition goes live at the first deleted offset, and the topic has those records (a
     * limit the docs state; the table alone cannot tell).
     */
    @Test
    void rowsDeletedAtAPartitionsEndComeFromTheTopicOnceACompactionDroppedThem() throws Exception {
        Kind kind = Kind.KAFKA_CONNECT;
        Table table = IcebergTestTables.create(catalog, "db.t", kind);
        List<DataFile> files = IcebergTestTables.append(table, rows(kind, table, 0, 0, 100));
        IcebergTestTables.deletePositions(table, files.get(0), 98, 99);
        table.refresh();
        try (IcebergDiscoverer discoverer = discoverer(kind, topic(150))) {
            // before the compaction: the deleted rows still count
            assertThat(discoverer.discoverSplits(true).get(0).backfillStartOffset()).isEqualTo(100);
        }
        IcebergTestTables.compact(table);
        table.refresh();
        assertThat(table.currentSnapshot().addedDataFiles(table.io()))
                .extracting(DataFile::recordCount)
                .containsExactly(98L);

        try (IcebergDiscoverer discoverer = discoverer(kind, topic(150))) {
            List<DiscoveredSplit> splits = discoverer.discoverSplits(true);
            assertThat(splits.get(0).splitId()).isEqualTo(TOPIC + "-0");
            assertThat(splits.get(0).backfillStartOffset()).isEqualTo(98);
        }
    }

    // ------------------------------------------------------------------ error messages

    /**
     * Reading a file that mixes partitions at the first discovery (for each partition's highest
     * offset) fails without naming the table or the snapshot, unlike the same failure in the reader
     * ({@code IcebergTableReaderTest#aMissingDataFileFailsNamingTheFileAndTheTable}).
     */
    @Test
    void aFileTheFirstDiscoveryCannotReadFailsNamingTheTableAndTheSnapshot() {
        Kind kind = Kind.REDPANDA;
        Table table = IcebergTestTables.create(catalog, "db.t", kind);
        List<Record> mixed = new ArrayList<>();
        for (long o = 0; o < 40; o++) {
            mixed.add(
                    IcebergTestTables.row(kind, table.schema(), TOPIC, (int) (o % 2), o / 2, "v"));
        }
        List<DataFile> files = IcebergTestTables.append(table, mixed);
        table.refresh();
        long snapshot = table.currentSnapshot().snapshotId();
        assertThat(new File(URI.create(files.get(0).location())).delete()).isTrue();

        assertThatThrownBy(() -> discoverer(kind, topic(100, 100)).discoverSplits(true))
                .hasMessageContaining(files.get(0).location())
                .hasMessageContaining("db.t")
                .hasMessageContaining(String.valueOf(snapshot));
    }

    // ------------------------------------------------------------------ values through Kafka

    /**
     * The record the topic's deserializer gets from a Redpanda row: key, value, headers (with a
     * null header value), null key, timestamp of a {@code timestamp} without zone.
     */
    @Test
    void theKafkaRecordOfARowHasItsKeyValueHeadersAndTimestamp() throws Exception {
        Schema schema = Kind.REDPANDA.schema();
        Types.StructType redpanda = schema.findField("redpanda").type().asStructType();
        Types.StructType header =
                schema.findType("redpanda.headers").asListType().elementType().asStructType();
        GenericRecord meta = GenericRecord.create(redpanda);
        meta.setField("partition", 3);
        meta.setField("offset", 17L);
        meta.setField(
                "timestamp",
                java.time.OffsetDateTime.of(2025, 1, 1, 0, 0, 0, 5_000_000, ZoneOffset.UTC));
        GenericRecord h1 = GenericRecord.create(header);
        h1.setField("key", ByteBuffer.wrap("h1".getBytes(StandardCharsets.UTF_8)));
        h1.setField("value", ByteBuffer.wrap(new byte[] {1, 2}));
        GenericRecord h2 = GenericRecord.create(header);
        h2.setField("key", ByteBuffer.wrap("h2".getBytes(StandardCharsets.UTF_8)));
        h2.setField("value", null);
        meta.setField("headers", List.of(h1, h2));
        meta.setField("key", null);
        GenericRecord row = GenericRecord.create(schema);
        row.setField("redpanda", meta);
        row.setField("value", ByteBuffer.wrap("v".getBytes(StandardCharsets.UTF_8)));

        List<ConsumerRecord<byte[], byte[]>> got = new ArrayList<>();
        IcebergRowDeserializer.<String>throughKafkaDeserializer(
                        new RowColumns(IcebergLayout.redpanda(), TOPIC),
                        (splitId, offset, record, out) -> got.add(record))
                .deserialize(
                        "iceberg:db.t@1",
                        0,
                        TableRow.read(new RowColumns(IcebergLayout.redpanda(), TOPIC), row),
                        new ListCollector<>());

        assertThat(got).hasSize(1);
        ConsumerRecord<byte[], byte[]> record = got.get(0);
        assertThat(record.topic()).isEqualTo(TOPIC);
        assertThat(record.partition()).isEqualTo(3);
        assertThat(record.offset()).isEqualTo(17);
        assertThat(record.key()).isNull();
        assertThat(record.value()).isEqualTo("v".getBytes(StandardCharsets.UTF_8));
        assertThat(record.timestamp())
                .isEqualTo(
                        LocalDateTime.of(2025, 1, 1, 0, 0, 0, 5_000_000)
                                .toInstant(ZoneOffset.UTC)
                                .toEpochMilli());
        Header[] headers = record.headers().toArray();
        assertThat(headers).hasSize(2);
        assertThat(headers[0].key()).isEqualTo("h1");
        assertThat(headers[0].value()).containsExactly(1, 2);
        assertThat(headers[1].key()).isEqualTo("h2");
        assertThat(headers[1].value()).isNull();
    }

    private static final class ListCollector<T> implements Collector<T> {
        final List<T> values = new ArrayList<>();

        @Override
        public void collect(T value) {
            values.add(value);
        }

        @Override
        public void close() {}
    }
}
