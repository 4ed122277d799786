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

import org.apache.flink.util.Collector;

import org.apache.iceberg.DataFile;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Issue 38: files without deletes read straight into the Kafka records' parts ({@link
 * TableRowReader}) give what Iceberg's generic reader gives: every row at its position, the same
 * Kafka columns, and the same record for the topic's deserializer (key, value, headers, nulls
 * included); files with deletes are still read with their deletes applied.
 */
class TableRowReaderTest {

    private static final String TOPIC = "orders";

    @TempDir Path warehouse;
    private Map<String, String> properties;
    private Catalog catalog;

    @BeforeEach
    void openCatalog() {
        properties = IcebergTestTables.hadoopCatalog(warehouse);
        catalog = IcebergTestTables.open("local", properties);
    }

    /** A row as the source delivers it: position, Kafka columns, the record's parts. */
    record Delivered(
            long position,
            String topic,
            int partition,
            long offset,
            long timestamp,
            String key,
            String value,
            List<String> headers,
            boolean withoutRow) {}

    @ParameterizedTest
    @EnumSource(
            value = Kind.class,
            names = {"REDPANDA", "AIVEN", "KAFKA_CONNECT_NESTED"})
    void readsWhatIcebergsGenericReaderReads(Kind kind) throws Exception {
        Table table = IcebergTestTables.create(catalog, "db.t", kind);
        for (int file = 0; file < 3; file++) {
            List<Record> rows = new ArrayList<>();
            for (long i = 0; i < 40; i++) {
                int partition = (int) (i % 4);
                long offset = file * 10 + i / 4;
                rows.add(withParts(kind, table.schema(), partition, offset));
            }
            IcebergTestTables.append(table, rows);
        }
        table.refresh();

        List<Delivered> fast = read(kind, table, TableFiles.ValuesFrom.KAFKA_RECORDS);
        List<Delivered> generic = read(kind, table, TableFiles.ValuesFrom.ROWS);

        assertThat(fast).hasSize(120);
        if (kind.layout.topicColumn().isPresent()) {
            // read with a filter on the topic: Iceberg's reader applies it
            assertThat(fast).noneMatch(Delivered::withoutRow);
        } else {
            assertThat(fast).allMatch(Delivered::withoutRow);
        }
        assertThat(generic).noneMatch(Delivered::withoutRow);
        assertThat(strip(fast)).containsExactlyElementsOf(strip(generic));
        if (kind == Kind.REDPANDA) {
            // some rows without key or value, some with headers
            assertThat(fast).anyMatch(d -> d.key() == null);
            assertThat(fast).anyMatch(d -> d.value() == null);
            assertThat(fast).anyMatch(d -> d.headers().size() == 2);
        }
    }

    /**
     * A value-only deserializer (the Kafka builder's {@code setValueOnlyDeserializer}) gets the
     * same values; the key and headers columns are not read for it.
     */
    @Test
    void aValueOnlyDeserializerGetsTheSameValuesWithoutKeysOrHeadersRead() throws Exception {
        Table table = IcebergTestTables.create(catalog, "db.t", Kind.REDPANDA);
        List<Record> rows = new ArrayList<>();
        for (long offset = 0; offset < 60; offset++) {
            rows.add(withParts(Kind.REDPANDA, table.schema(), (int) (offset % 3), offset));
        }
        IcebergTestTables.append(table, rows);
        table.refresh();

        List<Delivered> values = read(Kind.REDPANDA, table, TableFiles.ValuesFrom.KAFKA_VALUES);
        List<Delivered> generic = read(Kind.REDPANDA, table, TableFiles.ValuesFrom.ROWS);

        assertThat(values).hasSize(60).allMatch(Delivered::withoutRow);
        assertThat(values).allMatch(d -> d.key() == null && d.headers().isEmpty());
        assertThat(values)
                .extracting(
                        d ->
                                d.position()
                                        + " "
                                        + d.partition()
                                        + "@"
                                        + d.offset()
                                        + " "
                                        + d.timestamp()
                                        + " "
                                        + d.value())
                .containsExactlyElementsOf(
                        generic.stream()
                                .map(
                                        d ->
                                                d.position()
                                                        + " "
                                                        + d.partition()
                                                        + "@"
                                                        + d.offset()
                                                        + " "
                                                        + d.timestamp()
                                                        + " "
                                                        + d.value())
                                .toList());
        assertThat(generic).anyMatch(d -> d.key() != null);
        assertThat(
                        TableRowReader.projection(table.schema(), Kind.REDPANDA.layout, false)
                                .findField("redpanda.headers"))
                .isNull();
    }

    /** Position deletes still apply: such a file is read by Iceberg's reader and delete filter. */
    @Test
    void aFileWithDeletesIsReadWithItsDeletesApplied() throws Exception {
        Table table = IcebergTestTables.create(catalog, "db.t", Kind.REDPANDA);
        List<Record> rows = new ArrayList<>();
        for (long offset = 0; offset < 20; offset++) {
            rows.add(withParts(Kind.REDPANDA, table.schema(), 0, offset));
        }
        List<DataFile> files = IcebergTestTables.append(table, rows);
        IcebergTestTables.deletePositions(table, files.get(0), 3, 4, 17);
        table.refresh();

        List<Delivered> delivered = read(Kind.REDPANDA, table, TableFiles.ValuesFrom.KAFKA_RECORDS);

        assertThat(delivered).extracting(Delivered::offset).doesNotContain(3L, 4L, 17L);
        assertThat(delivered).hasSize(17).noneMatch(Delivered::withoutRow);
        // a row's position in the table is its position in its file, deleted rows counted
        assertThat(delivered).allMatch(d -> d.position() == d.offset());
    }

    /** A row without its offset fails the read naming the file and the row's position. */
    @Test
    void aRowWithoutItsOffsetFailsNamingTheFileAndPosition() {
        Table table = IcebergTestTables.create(catalog, "db.t", Kind.AIVEN);
        Record good = IcebergTestTables.row(Kind.AIVEN, table.schema(), TOPIC, 0, 0, "v");
        Record bad = IcebergTestTables.row(Kind.AIVEN, table.schema(), TOPIC, 0, 1, "v");
        ((Record) bad.getField("kafka")).setField("offset", null);
        DataFile file = IcebergTestTables.append(table, List.of(good, bad)).get(0);
        table.refresh();

        assertThatThrownBy(() -> read(Kind.AIVEN, table, TableFiles.ValuesFrom.KAFKA_RECORDS))
                .hasMessageContaining(file.location())
                .hasMessageContaining("the row at position 1")
                .hasMessageContaining("A row has no offset (column 'kafka.offset' is null)");
    }

    private static Record withParts(Kind kind, Schema schema, int partition, long offset) {
        Record row = IcebergTestTables.row(kind, schema, TOPIC, partition, offset, "v" + offset);
        if (kind != Kind.REDPANDA) {
            return row;
        }
        Record meta = (Record) row.getField("redpanda");
        if (offset % 5 == 1) {
            meta.setField("key", null);
        }
        if (offset % 7 == 2) {
            row.setField("value", null);
        }
        if (offset % 3 == 0) {
            meta.setField(
                    "headers",
                    List.of(header(schema, "trace", "t" + offset), header(schema, "span", null)));
        }
        return row;
    }

    private static Record header(Schema schema, String key, String value) {
        GenericRecord header =
                GenericRecord.create(
                        schema.findType("redpanda.headers")
                                .asListType()
                                .elementType()
                                .asStructType());
        header.setField("key", ByteBuffer.wrap(key.getBytes(StandardCharsets.UTF_8)));
        header.setField(
                "value",
                value == null ? null : ByteBuffer.wrap(value.getBytes(StandardCharsets.UTF_8)));
        return header;
    }

    /** Every row of the table's history through the reader and the topic's deserializer. */
    private List<Delivered> read(Kind kind, Table table, TableFiles.ValuesFrom from)
            throws Exception {
        String split =
                TableHistorySplit.id("db.t", table.currentSnapshot().snapshotId(), List.of(TOPIC));
        RowColumns columns = new RowColumns(kind.layout, TOPIC);
        List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
        LogRecordDeserializer<TableRow, String> values =
                IcebergRowDeserializer.throughKafkaDeserializer(
                        columns.copy(), (splitId, offset, record, out) -> records.add(record));
        List<Delivered> delivered = new ArrayList<>();
        LogRecordCollector<TableRow> out =
                (splitId, position, timestamp, row) -> {
                    try {
                        values.deserialize(splitId, position, row, NO_VALUES);
                    } catch (IOException e) {
                        throw new RuntimeException(e);
                    }
                    ConsumerRecord<byte[], byte[]> record = records.get(records.size() - 1);
                    List<String> headers = new ArrayList<>();
                    for (Header header : record.headers()) {
                        headers.add(header.key() + "=" + text(header.value()));
                    }
                    assertThat(timestamp).isEqualTo(row.timestamp());
                    delivered.add(
                            new Delivered(
                                    position,
                                    row.topic(),
                                    row.partition(),
                                    row.kafkaOffset(),
                                    row.timestamp(),
                                    text(record.key()),
                                    text(record.value()),
                                    headers,
                                    row.row() == null));
                };
        try (IcebergTableReader reader =
                new IcebergTableReader(
                        new IcebergTableRef("local", properties, "db.t"),
                        columns,
                        List.of(TOPIC),
                        7,
                        null,
                        from)) {
            reader.addSplit(split, 0);
            for (int polls = 0; !reader.isEndOfSplit(split); polls++) {
                assertThat(polls).as("polls until the end").isLessThan(1_000);
                reader.poll(Duration.ofMillis(10), out);
            }
        }
        return delivered;
    }

    private static List<Delivered> strip(List<Delivered> rows) {
        List<Delivered> stripped = new ArrayList<>();
        for (Delivered d : rows) {
            stripped.add(
                    new Delivered(
                            d.position(),
                            d.topic(),
                            d.partition(),
                            d.offset(),
                            d.timestamp(),
                            d.key(),
                            d.value(),
                            d.headers(),
                            false));
        }
        return stripped;
    }

    private static String text(byte[] bytes) {
        return bytes == null ? null : new String(bytes, StandardCharsets.UTF_8);
    }

    private static final Collector<String> NO_VALUES =
            new Collector<>() {
                @Override
                public void collect(String record) {}

                @Override
                public void close() {}
            };
}
