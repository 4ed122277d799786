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

import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
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
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetWriter;
import org.apache.iceberg.deletes.PositionDelete;
import org.apache.iceberg.deletes.PositionDeleteWriter;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Tables in the layouts of the writers that put a topic into Iceberg, written with Iceberg's own
 * generic Parquet writers: each row holds its Kafka topic, partition, offset and timestamp where
 * the layout keeps them, and its value (the record's bytes where the layout keeps them, else a
 * {@code payload} column as a sink that writes the value's fields would).
 */
public final class IcebergTestTables {

    /** Every row's timestamp is this plus its offset in milliseconds, plus its hour. */
    public static final long BASE_MILLIS = Instant.parse("2025-01-01T00:00:00Z").toEpochMilli();

    /** The test layouts: the presets, with the schema and partitioning each writer uses. */
    public enum Kind {
        REDPANDA(IcebergLayout.redpanda()),
        KAFKA_CONNECT(IcebergLayout.kafkaConnect()),
        KAFKA_CONNECT_NESTED(IcebergLayout.kafkaConnectNested()),
        AUTOMQ(IcebergLayout.autoMq()),
        AIVEN(IcebergLayout.aiven());

        public final IcebergLayout layout;

        Kind(IcebergLayout layout) {
            this.layout = layout;
        }

        public Schema schema() {
            switch (this) {
                case REDPANDA:
                    return new Schema(
                            Types.NestedField.optional(
                                    1,
                                    "redpanda",
                                    Types.StructType.of(
                                            Types.NestedField.required(
                                                    3, "partition", Types.IntegerType.get()),
                                            Types.NestedField.required(
                                                    4, "offset", Types.LongType.get()),
                                            Types.NestedField.required(
                                                    5, "timestamp", Types.TimestampType.withZone()),
                                            Types.NestedField.optional(
                                                    6,
                                                    "headers",
                                                    Types.ListType.ofOptional(
                                                            8,
                                                            Types.StructType.of(
                                                                    Types.NestedField.optional(
                                                                            9,
                                                                            "key",
                                                                            Types.BinaryType.get()),
                                                                    Types.NestedField.optional(
                                                                            10,
                                                                            "value",
                                                                            Types.BinaryType
                                                                                    .get())))),
                                            Types.NestedField.optional(
                                                    7, "key", Types.BinaryType.get()))),
                            Types.NestedField.optional(2, "value", Types.BinaryType.get()));
                case KAFKA_CONNECT:
                    return new Schema(
                            Types.NestedField.optional(1, "payload", Types.StringType.get()),
                            Types.NestedField.optional(
                                    2, "_kafka_metadata_topic", Types.StringType.get()),
                            Types.NestedField.optional(
                                    3, "_kafka_metadata_partition", Types.IntegerType.get()),
                            Types.NestedField.optional(
                                    4, "_kafka_metadata_offset", Types.LongType.get()),
                            Types.NestedField.optional(
                                    5, "_kafka_metadata_timestamp", Types.LongType.get()));
                case KAFKA_CONNECT_NESTED:
                    return new Schema(
                            Types.NestedField.optional(1, "payload", Types.StringType.get()),
                            Types.NestedField.optional(
                                    2,
                                    "_kafka_metadata",
                                    Types.StructType.of(
                                            Types.NestedField.optional(
                                                    3, "topic", Types.StringType.get()),
                                            Types.NestedField.optional(
                                                    4, "partition", Types.IntegerType.get()),
                                            Types.NestedField.optional(
                                                    5, "offset", Types.LongType.get()),
                                            Types.NestedField.optional(
                                                    6,
                                                    "timestamp",
                                                    Types.TimestampType.withZone()))));
                case AUTOMQ:
                    return new Schema(
                            Types.NestedField.optional(1, "payload", Types.StringType.get()),
                            Types.NestedField.optional(
                                    2,
                                    "_kafka_metadata",
                                    Types.StructType.of(
                                            Types.NestedField.optional(
                                                    3, "partition", Types.IntegerType.get()),
                                            Types.NestedField.optional(
                                                    4, "offset", Types.LongType.get()),
                                            Types.NestedField.optional(
                                                    5, "timestamp", Types.LongType.get()))),
                            Types.NestedField.optional(6, "_kafka_key", Types.StringType.get()));
                case AIVEN:
                    return new Schema(
                            Types.NestedField.optional(
                                    1,
                                    "kafka",
                                    Types.StructType.of(
                                            Types.NestedField.optional(
                                                    2, "partition", Types.IntegerType.get()),
                                            Types.NestedField.optional(
                                                    3, "offset", Types.LongType.get()),
                                            Types.NestedField.optional(
                                                    4, "timestamp", Types.TimestampType.withZone()),
                                            Types.NestedField.optional(
                                                    5, "key_raw", Types.BinaryType.get()),
                                            Types.NestedField.optional(
                                                    6, "value_raw", Types.BinaryType.get()))));
                default:
                    throw new IllegalStateException(name());
            }
        }

        /**
         * The writer's partitioning: Redpanda's default {@code hour(redpanda.timestamp)} (files mix
         * Kafka partitions), identity on the Kafka partition for Kafka Connect (a file per
         * partition), none for the others (files may mix partitions).
         */
        PartitionSpec spec(Schema schema) {
            switch (this) {
                case REDPANDA:
                    return PartitionSpec.builderFor(schema).hour("redpanda.timestamp").build();
                case KAFKA_CONNECT:
                    return PartitionSpec.builderFor(schema)
                            .identity("_kafka_metadata_partition")
                            .build();
                default:
                    return PartitionSpec.unpartitioned();
            }
        }

        /** Whether the layout keeps the record's value bytes (for the topic's deserializer). */
        boolean keepsValueBytes() {
            return layout.valueColumn().isPresent();
        }
    }

    private IcebergTestTables() {}

    /** A Hadoop catalog on the local file system. */
    public static Map<String, String> hadoopCatalog(Path warehouse) {
        return Map.of(
                CatalogUtil.ICEBERG_CATALOG_TYPE,
                CatalogUtil.ICEBERG_CATALOG_TYPE_HADOOP,
                CatalogProperties.WAREHOUSE_LOCATION,
                warehouse.toUri().toString());
    }

    /**
     * A catalog of the tests: its Hadoop configuration is {@link #hadoopConf()}'s (the catalogs
     * that the code under test opens have their own).
     */
    public static Catalog open(String name, Map<String, String> properties) {
        return CatalogUtil.buildIcebergCatalog(name, properties, hadoopConf());
    }

    /**
     * The Hadoop configuration of the tests' catalogs: local files through {@link
     * InProcessChmodLocalFileSystem}, which sets their permissions without a {@code chmod} process
     * per file.
     */
    public static Configuration hadoopConf() {
        return InProcessChmodLocalFileSystem.configuration();
    }

    public static Table create(Catalog catalog, String table, Kind kind) {
        TableIdentifier id = TableIdentifier.parse(table);
        if (catalog instanceof SupportsNamespaces) {
            SupportsNamespaces namespaces = (SupportsNamespaces) catalog;
            Namespace namespace = id.namespace();
            if (!namespace.isEmpty() && !namespaces.namespaceExists(namespace)) {
                namespaces.createNamespace(namespace);
            }
        }
        Schema schema = kind.schema();
        return catalog.createTable(
                id, schema, kind.spec(schema), Map.of(TableProperties.FORMAT_VERSION, "2"));
    }

    /** A row of the record {@code topic}/{@code partition}/{@code offset} with {@code value}. */
    public static Record row(
            Kind kind, Schema schema, String topic, int partition, long offset, String value) {
        IcebergLayout layout = kind.layout;
        GenericRecord row = GenericRecord.create(schema);
        long millis = BASE_MILLIS + offset;
        set(row, schema, layout.partitionColumn(), partition);
        set(row, schema, layout.offsetColumn(), offset);
        Type timestampType = schema.findType(layout.timestampColumn());
        set(
                row,
                schema,
                layout.timestampColumn(),
                timestampType.typeId() == Type.TypeID.TIMESTAMP
                        ? OffsetDateTime.ofInstant(Instant.ofEpochMilli(millis), ZoneOffset.UTC)
                        : millis);
        layout.topicColumn().ifPresent(c -> set(row, schema, c, topic));
        byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
        if (layout.valueColumn().isPresent()) {
            set(row, schema, layout.valueColumn().get(), ByteBuffer.wrap(bytes));
        } else {
            set(row, schema, "payload", value);
        }
        layout.keyColumn()
                .ifPresent(
                        c ->
                                set(
                                        row,
                                        schema,
                                        c,
                                        schema.findType(c).typeId() == Type.TypeID.STRING
                                                ? "k" + offset
                                                : ByteBuffer.wrap(
                                                        ("k" + offset)
                                                                .getBytes(
                                                                        StandardCharsets.UTF_8))));
        return row;
    }

    /** Sets a column by its path, creating the structs on the way. */
    private static void set(GenericRecord row, Schema schema, String path, Object value) {
        String[] names = path.split("\\.");
        GenericRecord struct = row;
        Types.StructType type = schema.asStruct();
        for (int i = 0; i < names.length - 1; i++) {
            Types.StructType nestedType = type.field(names[i]).type().asStructType();
            GenericRecord nested = (GenericRecord) struct.getField(names[i]);
            if (nested == null) {
                nested = GenericRecord.create(nestedType);
                struct.setField(names[i], nested);
            }
            struct = nested;
            type = nestedType;
        }
        struct.setField(names[names.length - 1], value);
    }

    /**
     * Writes the rows, grouped by the table's partitioning (one data file per group, rows in the
     * order given), and appends the files in one commit; returns the files.
     */
    public static List<DataFile> append(Table table, List<Record> rows) {
        Map<PartitionKey, List<Record>> groups = new HashMap<>();
        List<PartitionKey> order = new ArrayList<>();
        for (Record row : rows) {
            PartitionKey key = partitionOf(table, row);
            groups.computeIfAbsent(
                            key,
                            k -> {
                                order.add(k);
                                return new ArrayList<>();
                            })
                    .add(row);
        }
        List<DataFile> files = new ArrayList<>();
        for (PartitionKey key : order) {
            files.add(writeDataFile(table, key, groups.get(key)));
        }
        org.apache.iceberg.AppendFiles append = table.newAppend();
        files.forEach(append::appendFile);
        append.commit();
        return files;
    }

    static PartitionKey partitionOf(Table table, Record row) {
        PartitionKey key = new PartitionKey(table.spec(), table.schema());
        key.partition(new InternalRecordWrapper(table.schema().asStruct()).wrap(row));
        return key.copy();
    }

    static DataFile writeDataFile(Table table, PartitionKey key, List<Record> rows) {
        OutputFile out =
                table.io()
                        .newOutputFile(
                                table.locationProvider()
                                        .newDataLocation(
                                                table.spec(), key, UUID.randomUUID() + ".parquet"));
        try {
            DataWriter<Record> writer =
                    Parquet.writeData(out)
                            .forTable(table)
                            .withSpec(table.spec())
                            .withPartition(table.spec().isUnpartitioned() ? null : key)
                            .createWriterFunc(GenericParquetWriter::create)
                            .overwrite()
                            .build();
            try (writer) {
                rows.forEach(writer::write);
            }
            return writer.toDataFile();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Deletes the rows at the given positions of a data file (position deletes), one commit. */
    static void deletePositions(Table table, DataFile file, long... positions) {
        OutputFile out =
                table.io()
                        .newOutputFile(
                                table.locationProvider()
                                        .newDataLocation(
                                                table.spec(),
                                                file.partition(),
                                                "deletes-" + UUID.randomUUID() + ".parquet"));
        try {
            PositionDeleteWriter<Record> writer =
                    Parquet.writeDeletes(out)
                            .forTable(table)
                            .withSpec(table.spec())
                            .withPartition(file.partition())
                            .rowSchema(null)
                            .overwrite()
                            .buildPositionWriter();
            try (writer) {
                PositionDelete<Record> delete = PositionDelete.create();
                for (long position : positions) {
                    writer.write(delete.set(file.location(), position));
                }
            }
            DeleteFile deletes = writer.toDeleteFile();
            table.newRowDelta().addDeletes(deletes).commit();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Deletes the rows of a Kafka Connect table with the given Kafka partition and offsets by
     * equality (on the partition and offset columns), one commit.
     */
    static void deleteEqual(Table table, Record samePartitionAs, int partition, long... offsets) {
        deleteEqual(table, IcebergLayout.kafkaConnect(), samePartitionAs, partition, offsets);
    }

    /** The same for a table of {@code layout}: equality on its partition and offset columns. */
    static void deleteEqual(
            Table table,
            IcebergLayout layout,
            Record samePartitionAs,
            int partition,
            long... offsets) {
        Schema deleteSchema =
                table.schema().select(layout.partitionColumn(), layout.offsetColumn());
        int[] ids = {
            table.schema().findField(layout.partitionColumn()).fieldId(),
            table.schema().findField(layout.offsetColumn()).fieldId()
        };
        PartitionKey key = partitionOf(table, samePartitionAs);
        OutputFile out =
                table.io()
                        .newOutputFile(
                                table.locationProvider()
                                        .newDataLocation(
                                                table.spec(),
                                                key,
                                                "eq-deletes-" + UUID.randomUUID() + ".parquet"));
        try {
            org.apache.iceberg.deletes.EqualityDeleteWriter<Record> writer =
                    Parquet.writeDeletes(out)
                            .forTable(table)
                            .withSpec(table.spec())
                            .withPartition(key)
                            .rowSchema(deleteSchema)
                            .equalityFieldIds(ids)
                            .createWriterFunc(GenericParquetWriter::create)
                            .overwrite()
                            .buildEqualityWriter();
            try (writer) {
                for (long offset : offsets) {
                    GenericRecord deleted = GenericRecord.create(deleteSchema);
                    set(deleted, deleteSchema, layout.partitionColumn(), partition);
                    set(deleted, deleteSchema, layout.offsetColumn(), offset);
                    writer.write(deleted);
                }
            }
            table.newRowDelta().addDeletes(writer.toDeleteFile()).commit();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Rewrites every data file into one per table partition with the deletes applied, and drops the
     * delete files (a compaction, as Spark's {@code rewrite_data_files} does it), one commit.
     */
    static void compact(Table table) {
        List<Record> rows = new ArrayList<>();
        java.util.Set<DataFile> old = new java.util.HashSet<>();
        java.util.Set<DeleteFile> oldDeletes = new java.util.HashSet<>();
        try (org.apache.iceberg.io.CloseableIterable<org.apache.iceberg.FileScanTask> tasks =
                table.newScan().planFiles()) {
            TableFiles files = new TableFiles(table.io(), table.name());
            for (org.apache.iceberg.FileScanTask task : tasks) {
                old.add(task.file());
                oldDeletes.addAll(task.deletes());
                try (org.apache.iceberg.io.CloseableIterable<Record> read =
                        files.readRows(task, table.schema())) {
                    for (Record row : read) {
                        Record copy = GenericRecord.create(table.schema());
                        for (Types.NestedField field : table.schema().columns()) {
                            copy.setField(field.name(), row.getField(field.name()));
                        }
                        rows.add(copy);
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Map<PartitionKey, List<Record>> groups = new HashMap<>();
        for (Record row : rows) {
            groups.computeIfAbsent(partitionOf(table, row), k -> new ArrayList<>()).add(row);
        }
        java.util.Set<DataFile> rewritten = new java.util.HashSet<>();
        groups.forEach((key, group) -> rewritten.add(writeDataFile(table, key, group)));
        table.newRewrite()
                .validateFromSnapshot(table.currentSnapshot().snapshotId())
                .rewriteFiles(old, oldDeletes, rewritten, java.util.Set.of())
                .commit();
    }
}
