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
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetWriter;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.types.Types;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Issue 38: files as writers and table changes make them, read by {@link TableRowReader} as
 * Iceberg's generic reader reads them: bad partitions fail alike, a number column stored with
 * another annotation and an identity partition column a file lacks go to the generic reader, row
 * groups, promoted and added columns, every timestamp unit (found by the review of issue 38).
 */
class TableRowReaderFilesTest {

    private static final String TOPIC = "orders";

    @TempDir Path warehouse;
    private Map<String, String> properties;
    private Catalog catalog;

    @BeforeEach
    void openCatalog() {
        properties = IcebergTestTables.hadoopCatalog(warehouse);
        catalog = IcebergTestTables.open("local", properties);
    }

    /** A negative partition fails the read on both paths, naming the column. */
    @Test
    void aNegativePartitionFailsTheFastPathAsItFailsTheGenericPath() throws Exception {
        Table table = IcebergTestTables.create(catalog, "db.t", Kind.AIVEN);
        Record good = IcebergTestTables.row(Kind.AIVEN, table.schema(), TOPIC, 0, 0, "v");
        Record bad = IcebergTestTables.row(Kind.AIVEN, table.schema(), TOPIC, 0, 1, "v");
        ((Record) bad.getField("kafka")).setField("partition", -1);
        IcebergTestTables.append(table, List.of(good, bad));
        table.refresh();

        // the generic reader refuses the row
        assertThatThrownBy(() -> tableRows(Kind.AIVEN, table, TableFiles.ValuesFrom.ROWS, 0))
                .hasMessageContaining("not a Kafka partition");
        // the fast path must too (it delivers the row as partition -1)
        assertThatThrownBy(
                        () -> tableRows(Kind.AIVEN, table, TableFiles.ValuesFrom.KAFKA_RECORDS, 0))
                .hasMessageContaining("not a Kafka partition");
    }

    /** The same with a long partition column. */
    @Test
    void aNegativePartitionInALongColumnFailsTheFastPath() throws Exception {
        Schema schema =
                new Schema(
                        Types.NestedField.optional(
                                1,
                                "kafka",
                                Types.StructType.of(
                                        Types.NestedField.optional(
                                                2, "partition", Types.LongType.get()),
                                        Types.NestedField.optional(
                                                3, "offset", Types.LongType.get()),
                                        Types.NestedField.optional(
                                                4, "timestamp", Types.TimestampType.withZone()),
                                        Types.NestedField.optional(
                                                5, "key_raw", Types.BinaryType.get()),
                                        Types.NestedField.optional(
                                                6, "value_raw", Types.BinaryType.get()))));
        Table table = createTable(schema, PartitionSpec.unpartitioned());
        List<Record> rows = new ArrayList<>();
        rows.add(aivenRow(schema, 0L, 0));
        rows.add(aivenRow(schema, -1L, 1));
        writeAndAppend(table, schema, null, rows);
        table.refresh();

        assertThatThrownBy(() -> tableRows(Kind.AIVEN, table, TableFiles.ValuesFrom.ROWS, 0))
                .hasMessageContaining("not a Kafka partition");
        assertThatThrownBy(
                        () -> tableRows(Kind.AIVEN, table, TableFiles.ValuesFrom.KAFKA_RECORDS, 0))
                .hasMessageContaining("not a Kafka partition");
    }

    /**
     * A LONG (epoch millis) timestamp column, as AutoMQ's, in a file whose Parquet column is INT64
     * annotated TIMESTAMP(MICROS) (a file written by another writer, added to the table): the
     * generic reader reads the annotation; so does the fast path, by leaving the file to it.
     */
    @Test
    void aLongTimestampColumnStoredAsAnnotatedMicrosIsReadAsTheGenericReaderReadsIt()
            throws Exception {
        Table table = IcebergTestTables.create(catalog, "db.t", Kind.AUTOMQ);
        // the table's schema (the catalog gave its columns fresh ids), the timestamp a timestamp
        Schema tableSchema = table.schema();
        java.util.function.ToIntFunction<String> id = name -> tableSchema.findField(name).fieldId();
        Schema fileSchema =
                new Schema(
                        Types.NestedField.optional(
                                id.applyAsInt("payload"), "payload", Types.StringType.get()),
                        Types.NestedField.optional(
                                id.applyAsInt("_kafka_metadata"),
                                "_kafka_metadata",
                                Types.StructType.of(
                                        Types.NestedField.optional(
                                                id.applyAsInt("_kafka_metadata.partition"),
                                                "partition",
                                                Types.IntegerType.get()),
                                        Types.NestedField.optional(
                                                id.applyAsInt("_kafka_metadata.offset"),
                                                "offset",
                                                Types.LongType.get()),
                                        Types.NestedField.optional(
                                                id.applyAsInt("_kafka_metadata.timestamp"),
                                                "timestamp",
                                                Types.TimestampType.withZone()))),
                        Types.NestedField.optional(
                                id.applyAsInt("_kafka_key"), "_kafka_key", Types.StringType.get()));
        List<Record> rows = new ArrayList<>();
        for (long offset = 0; offset < 5; offset++) {
            GenericRecord row = GenericRecord.create(fileSchema);
            GenericRecord meta =
                    GenericRecord.create(fileSchema.findType("_kafka_metadata").asStructType());
            meta.setField("partition", 0);
            meta.setField("offset", offset);
            meta.setField(
                    "timestamp",
                    OffsetDateTime.ofInstant(
                            Instant.ofEpochMilli(IcebergTestTables.BASE_MILLIS + offset),
                            ZoneOffset.UTC));
            row.setField("_kafka_metadata", meta);
            row.setField("payload", "v" + offset);
            row.setField("_kafka_key", "k" + offset);
            rows.add(row);
        }
        writeAndAppend(table, fileSchema, null, rows);
        table.refresh();

        // Iceberg's generic reader reads the annotation: epoch milliseconds of the instant
        List<String> generic = kafkaColumns(Kind.AUTOMQ, table, TableFiles.ValuesFrom.ROWS, 0);
        assertThat(generic.get(0)).endsWith(" " + IcebergTestTables.BASE_MILLIS);
        // the fast path takes the stored microseconds for milliseconds
        List<String> fast =
                kafkaColumns(Kind.AUTOMQ, table, TableFiles.ValuesFrom.KAFKA_RECORDS, 0);
        assertThat(fast).containsExactlyElementsOf(generic);
    }

    /**
     * A table partitioned by identity on the Kafka partition, with a data file that does not hold
     * the column (as files added by add_files / a migration): Iceberg's generic reader reads the
     * partition from the file's partition value; a file of a spec with an identity partition on a
     * Kafka column is left to it.
     */
    @Test
    void anIdentityPartitionColumnNotInTheFileIsReadFromThePartitionValue() throws Exception {
        Schema schema = Kind.AIVEN.schema();
        PartitionSpec spec =
                PartitionSpec.builderFor(schema).identity("kafka.partition", "kpartition").build();
        Table table = createTable(schema, spec);
        Schema fileSchema =
                schema.select(
                        "kafka.offset", "kafka.timestamp", "kafka.key_raw", "kafka.value_raw");
        List<Record> rows = new ArrayList<>();
        for (long offset = 0; offset < 5; offset++) {
            GenericRecord row = GenericRecord.create(fileSchema);
            GenericRecord kafka = GenericRecord.create(fileSchema.findType("kafka").asStructType());
            kafka.setField("offset", offset);
            kafka.setField(
                    "timestamp",
                    OffsetDateTime.ofInstant(
                            Instant.ofEpochMilli(IcebergTestTables.BASE_MILLIS + offset),
                            ZoneOffset.UTC));
            kafka.setField(
                    "key_raw", ByteBuffer.wrap(("k" + offset).getBytes(StandardCharsets.UTF_8)));
            kafka.setField(
                    "value_raw", ByteBuffer.wrap(("v" + offset).getBytes(StandardCharsets.UTF_8)));
            row.setField("kafka", kafka);
            rows.add(row);
        }
        PartitionKey key = new PartitionKey(spec, schema);
        key.set(0, 3);
        writeAndAppend(table, fileSchema, key, rows);
        table.refresh();

        List<String> generic = kafkaColumns(Kind.AIVEN, table, TableFiles.ValuesFrom.ROWS, 0);
        assertThat(generic).hasSize(5).allMatch(s -> s.contains(" 3@"));
        assertThat(kafkaColumns(Kind.AIVEN, table, TableFiles.ValuesFrom.KAFKA_RECORDS, 0))
                .containsExactlyElementsOf(generic);
    }

    /** Files of several row groups, read from the start and from inside the file. */
    @Test
    void positionsAcrossRowGroupsAndFromInsideAFileAreTheGenericReadersPositions()
            throws Exception {
        Table table = IcebergTestTables.create(catalog, "db.t", Kind.REDPANDA);
        table.updateProperties()
                .set(TableProperties.PARQUET_ROW_GROUP_SIZE_BYTES, "1")
                .set(TableProperties.PARQUET_ROW_GROUP_CHECK_MIN_RECORD_COUNT, "1")
                .set(TableProperties.PARQUET_ROW_GROUP_CHECK_MAX_RECORD_COUNT, "1")
                .commit();
        table.refresh();
        List<Record> rows = new ArrayList<>();
        for (long offset = 0; offset < 50; offset++) {
            Record row =
                    IcebergTestTables.row(
                            Kind.REDPANDA,
                            table.schema(),
                            TOPIC,
                            (int) (offset % 2),
                            offset,
                            "v" + offset);
            if (offset % 4 == 1) {
                row.setField("value", ByteBuffer.allocate(0));
            }
            if (offset % 5 == 2) {
                ((Record) row.getField("redpanda")).setField("key", null);
            }
            rows.add(row);
        }
        List<DataFile> files = IcebergTestTables.append(table, rows);
        IcebergTestTables.append(table, rows.subList(0, 10));
        table.refresh();
        assertThat(files.get(0).splitOffsets()).as("row groups").hasSizeGreaterThan(1);

        for (long start : new long[] {0, 1, 17, 49, 50, 55}) {
            List<String> generic = records(Kind.REDPANDA, table, TableFiles.ValuesFrom.ROWS, start);
            List<String> fast =
                    records(Kind.REDPANDA, table, TableFiles.ValuesFrom.KAFKA_RECORDS, start);
            assertThat(fast).as("from " + start).containsExactlyElementsOf(generic);
            assertThat(fast).hasSize((int) (60 - start));
        }
    }

    /** Int columns promoted to long after the file was written, a column added after it. */
    @Test
    void promotedAndAddedColumnsAreReadAsTheGenericReaderReadsThem() throws Exception {
        Schema schema =
                new Schema(
                        Types.NestedField.optional(
                                1,
                                "kafka",
                                Types.StructType.of(
                                        Types.NestedField.optional(
                                                2, "partition", Types.IntegerType.get()),
                                        Types.NestedField.optional(
                                                3, "offset", Types.IntegerType.get()),
                                        Types.NestedField.optional(
                                                4, "timestamp", Types.TimestampType.withZone()),
                                        Types.NestedField.optional(
                                                6, "value_raw", Types.BinaryType.get()))));
        Table table = createTable(schema, PartitionSpec.unpartitioned());
        List<Record> rows = new ArrayList<>();
        for (int offset = 0; offset < 5; offset++) {
            GenericRecord row = GenericRecord.create(schema);
            GenericRecord kafka = GenericRecord.create(schema.findType("kafka").asStructType());
            kafka.setField("partition", offset % 2);
            kafka.setField("offset", offset);
            kafka.setField(
                    "timestamp",
                    OffsetDateTime.ofInstant(Instant.ofEpochMilli(-3 + offset), ZoneOffset.UTC)
                            .plusNanos(1000));
            kafka.setField(
                    "value_raw", ByteBuffer.wrap(("v" + offset).getBytes(StandardCharsets.UTF_8)));
            row.setField("kafka", kafka);
            rows.add(row);
        }
        writeAndAppend(table, schema, null, rows);
        table.updateSchema()
                .updateColumn("kafka.offset", Types.LongType.get())
                .updateColumn("kafka.partition", Types.LongType.get())
                .addColumn("kafka", "key_raw", Types.BinaryType.get())
                .commit();
        table.refresh();

        List<String> generic = records(Kind.AIVEN, table, TableFiles.ValuesFrom.ROWS, 0);
        List<String> fast = records(Kind.AIVEN, table, TableFiles.ValuesFrom.KAFKA_RECORDS, 0);
        assertThat(generic).hasSize(5);
        assertThat(fast).containsExactlyElementsOf(generic);
    }

    /** Timestamps without zone and in nanoseconds (format 3), negative and sub-millisecond. */
    @ParameterizedTest
    @ValueSource(strings = {"micros-local", "nanos-utc", "nanos-local"})
    void timestampsOfEachUnitAreReadAsTheGenericReaderReadsThem(String unit) throws Exception {
        boolean nanos = unit.startsWith("nanos");
        boolean utc = unit.endsWith("utc");
        org.apache.iceberg.types.Type type =
                nanos
                        ? (utc
                                ? Types.TimestampNanoType.withZone()
                                : Types.TimestampNanoType.withoutZone())
                        : Types.TimestampType.withoutZone();
        Schema schema =
                new Schema(
                        Types.NestedField.optional(
                                1,
                                "kafka",
                                Types.StructType.of(
                                        Types.NestedField.optional(
                                                2, "partition", Types.IntegerType.get()),
                                        Types.NestedField.optional(
                                                3, "offset", Types.LongType.get()),
                                        Types.NestedField.optional(4, "timestamp", type),
                                        Types.NestedField.optional(
                                                6, "value_raw", Types.BinaryType.get()))));
        Table table = createTable(schema, PartitionSpec.unpartitioned(), nanos ? "3" : "2");
        List<Record> rows = new ArrayList<>();
        long[] nanosOfRows = {
            -1_000_001L, -999_999L, -1L, 0L, 1L, 999_999L, 1_000_000L, 1_735_689_600_123_456_789L
        };
        for (int i = 0; i < nanosOfRows.length; i++) {
            long n = nanos ? nanosOfRows[i] : Math.floorDiv(nanosOfRows[i], 1000L) * 1000L;
            java.time.Instant instant =
                    java.time.Instant.ofEpochSecond(
                            Math.floorDiv(n, 1_000_000_000L), Math.floorMod(n, 1_000_000_000L));
            GenericRecord row = GenericRecord.create(schema);
            GenericRecord kafka = GenericRecord.create(schema.findType("kafka").asStructType());
            kafka.setField("partition", 0);
            kafka.setField("offset", (long) i);
            kafka.setField(
                    "timestamp",
                    utc
                            ? OffsetDateTime.ofInstant(instant, ZoneOffset.UTC)
                            : java.time.LocalDateTime.ofInstant(instant, ZoneOffset.UTC));
            kafka.setField(
                    "value_raw", ByteBuffer.wrap(("v" + i).getBytes(StandardCharsets.UTF_8)));
            row.setField("kafka", kafka);
            rows.add(row);
        }
        writeAndAppend(table, schema, null, rows);
        table.refresh();

        List<String> generic = records(Kind.AIVEN, table, TableFiles.ValuesFrom.ROWS, 0);
        List<String> fast = records(Kind.AIVEN, table, TableFiles.ValuesFrom.KAFKA_RECORDS, 0);
        assertThat(generic).hasSize(nanosOfRows.length);
        assertThat(fast).containsExactlyElementsOf(generic);
    }

    // ------------------------------------------------------------------------------- helpers

    private Table createTable(Schema schema, PartitionSpec spec) {
        return createTable(schema, spec, "2");
    }

    private Table createTable(Schema schema, PartitionSpec spec, String formatVersion) {
        TableIdentifier id = TableIdentifier.parse("db.t");
        if (catalog instanceof SupportsNamespaces) {
            SupportsNamespaces namespaces = (SupportsNamespaces) catalog;
            if (!namespaces.namespaceExists(Namespace.of("db"))) {
                namespaces.createNamespace(Namespace.of("db"));
            }
        }
        return catalog.createTable(
                id, schema, spec, Map.of(TableProperties.FORMAT_VERSION, formatVersion));
    }

    private static Record aivenRow(Schema schema, Object partition, long offset) {
        GenericRecord row = GenericRecord.create(schema);
        GenericRecord kafka = GenericRecord.create(schema.findType("kafka").asStructType());
        kafka.setField("partition", partition);
        kafka.setField("offset", offset);
        kafka.setField(
                "timestamp",
                OffsetDateTime.ofInstant(
                        Instant.ofEpochMilli(IcebergTestTables.BASE_MILLIS + offset),
                        ZoneOffset.UTC));
        kafka.setField(
                "value_raw", ByteBuffer.wrap(("v" + offset).getBytes(StandardCharsets.UTF_8)));
        row.setField("kafka", kafka);
        return row;
    }

    /** Writes the rows with {@code fileSchema} (not the table's) and appends the file. */
    private static void writeAndAppend(
            Table table, Schema fileSchema, PartitionKey key, List<Record> rows) {
        OutputFile out =
                table.io()
                        .newOutputFile(
                                key == null
                                        ? table.locationProvider()
                                                .newDataLocation(UUID.randomUUID() + ".parquet")
                                        : table.locationProvider()
                                                .newDataLocation(
                                                        table.spec(),
                                                        key,
                                                        UUID.randomUUID() + ".parquet"));
        try {
            DataWriter<Record> writer =
                    Parquet.writeData(out)
                            .forTable(table)
                            .schema(fileSchema)
                            .withSpec(table.spec())
                            .withPartition(key)
                            .createWriterFunc(GenericParquetWriter::create)
                            .overwrite()
                            .build();
            try (writer) {
                rows.forEach(writer::write);
            }
            table.newAppend().appendFile(writer.toDataFile()).commit();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private String split(Table table) {
        return TableHistorySplit.id("db.t", table.currentSnapshot().snapshotId(), List.of(TOPIC));
    }

    /** The table rows delivered from {@code start}, as TableRows. */
    private List<TableRow> tableRows(Kind kind, Table table, TableFiles.ValuesFrom from, long start)
            throws Exception {
        List<TableRow> rows = new ArrayList<>();
        read(kind, table, from, start, (splitId, position, timestamp, row) -> rows.add(row));
        return rows;
    }

    /** Each row's position, topic, partition@offset and timestamp. */
    private List<String> kafkaColumns(
            Kind kind, Table table, TableFiles.ValuesFrom from, long start) throws Exception {
        List<String> rows = new ArrayList<>();
        read(
                kind,
                table,
                from,
                start,
                (splitId, position, timestamp, row) ->
                        rows.add(
                                position
                                        + " "
                                        + row.topic()
                                        + " "
                                        + row.partition()
                                        + "@"
                                        + row.kafkaOffset()
                                        + " "
                                        + row.timestamp()));
        return rows;
    }

    /** Each row as the topic's deserializer gets it (key, value, headers included). */
    private List<String> records(Kind kind, Table table, TableFiles.ValuesFrom from, long start)
            throws Exception {
        RowColumns columns = new RowColumns(kind.layout, TOPIC);
        List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
        LogRecordDeserializer<TableRow, String> values =
                IcebergRowDeserializer.throughKafkaDeserializer(
                        columns.copy(), (splitId, offset, record, out) -> records.add(record));
        List<String> rows = new ArrayList<>();
        read(
                kind,
                table,
                from,
                start,
                (splitId, position, timestamp, row) -> {
                    try {
                        values.deserialize(splitId, position, row, NO_VALUES);
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                    ConsumerRecord<byte[], byte[]> record = records.get(records.size() - 1);
                    List<String> headers = new ArrayList<>();
                    for (Header header : record.headers()) {
                        headers.add(header.key() + "=" + text(header.value()));
                    }
                    rows.add(
                            position
                                    + " "
                                    + record.topic()
                                    + " "
                                    + record.partition()
                                    + "@"
                                    + record.offset()
                                    + " "
                                    + record.timestamp()
                                    + " key="
                                    + text(record.key())
                                    + " value="
                                    + text(record.value())
                                    + " headers="
                                    + headers);
                });
        return rows;
    }

    private void read(
            Kind kind,
            Table table,
            TableFiles.ValuesFrom from,
            long start,
            LogRecordCollector<TableRow> out)
            throws Exception {
        String split = split(table);
        RowColumns columns = new RowColumns(kind.layout, TOPIC);
        try (IcebergTableReader reader =
                new IcebergTableReader(
                        new IcebergTableRef("local", properties, "db.t"),
                        columns,
                        List.of(TOPIC),
                        7,
                        null,
                        from)) {
            reader.addSplit(split, start);
            for (int polls = 0; !reader.isEndOfSplit(split); polls++) {
                assertThat(polls).as("polls until the end").isLessThan(1_000);
                reader.poll(Duration.ofMillis(10), out);
            }
        }
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
