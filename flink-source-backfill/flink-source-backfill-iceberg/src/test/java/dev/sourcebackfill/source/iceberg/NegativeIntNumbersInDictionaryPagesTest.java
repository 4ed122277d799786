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

import org.apache.iceberg.FileScanTask;
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
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A layout of int columns (Parquet INT32) holding negative numbers in dictionary ids: the offsets
 * (a table's own numbering may be negative), and the timestamps as epoch milliseconds before 1970,
 * down to {@link Integer#MIN_VALUE}. A numbers column's dictionary is read straight from its page's
 * little-endian bytes ({@code ColumnBatchReader}'s {@code plainNumbers}): each INT32 must be
 * sign-extended as Parquet's dictionary does. The batched reads (records and Kafka positions) give
 * the generic reader's numbers.
 */
class NegativeIntNumbersInDictionaryPagesTest {

    private static final String TOPIC = "orders";
    private static final int ROWS = 2_000;
    private static final IcebergLayout LAYOUT =
            IcebergLayout.of("p", "o", "t").withValueColumn("v");

    @TempDir Path warehouse;
    private Catalog catalog;

    @BeforeEach
    void openCatalog() {
        catalog = IcebergTestTables.open("local", IcebergTestTables.hadoopCatalog(warehouse));
    }

    private Table intTable(String pageVersion) {
        Schema schema =
                new Schema(
                        Types.NestedField.optional(1, "p", Types.IntegerType.get()),
                        Types.NestedField.optional(2, "o", Types.IntegerType.get()),
                        Types.NestedField.optional(3, "t", Types.IntegerType.get()),
                        Types.NestedField.optional(4, "v", Types.BinaryType.get()));
        if (catalog instanceof SupportsNamespaces
                && !((SupportsNamespaces) catalog).namespaceExists(Namespace.of("db"))) {
            ((SupportsNamespaces) catalog).createNamespace(Namespace.of("db"));
        }
        Table table =
                catalog.createTable(
                        TableIdentifier.of("db", "t"),
                        schema,
                        PartitionSpec.unpartitioned(),
                        Map.of(
                                TableProperties.FORMAT_VERSION,
                                "2",
                                TableProperties.PARQUET_COMPRESSION,
                                "zstd",
                                TableProperties.PARQUET_PAGE_VERSION,
                                pageVersion,
                                TableProperties.PARQUET_PAGE_ROW_LIMIT,
                                "100",
                                TableProperties.PARQUET_DICT_SIZE_BYTES,
                                String.valueOf(8 << 20)));
        List<Record> rows = new ArrayList<>();
        for (int i = 0; i < ROWS; i++) {
            GenericRecord row = GenericRecord.create(schema);
            row.setField("p", i % 3);
            // offsets of three rows each (distinct ones would make Parquet fall back to plain
            // values)
            row.setField("o", i == 0 ? Integer.MIN_VALUE : -100_000 + 3 * (i / 3));
            row.setField("t", i == 1 ? Integer.MIN_VALUE : -86_400_000 - (i % 9) * 1_000);
            row.setField("v", ByteBuffer.wrap(("v" + i).getBytes(StandardCharsets.UTF_8)));
            rows.add(row);
        }
        IcebergTestTables.append(table, rows);
        table.refresh();
        return table;
    }

    private static List<FileScanTask> tasks(Table table) throws IOException {
        List<FileScanTask> tasks = new ArrayList<>();
        try (CloseableIterable<FileScanTask> planned = table.newScan().planFiles()) {
            planned.forEach(tasks::add);
        }
        return tasks;
    }

    @ParameterizedTest
    @ValueSource(strings = {"v1", "v2"})
    void negativeIntOffsetsAndTimestampsReadInBatchesAsTheGenericReader(String pageVersion)
            throws Exception {
        Table table = intTable(pageVersion);
        RowColumns columns = new RowColumns(LAYOUT, TOPIC);
        TableFiles files = new TableFiles(table.io(), "db.t");
        List<String> batched = new ArrayList<>();
        List<String> generic = new ArrayList<>();
        for (FileScanTask task : tasks(table)) {
            try (TableFiles.FileRows read =
                    files.readTableRows(
                            task, table.schema(), columns, TableFiles.ValuesFrom.KAFKA_VALUES)) {
                while (read.hasNext()) {
                    long position = read.next();
                    TableRow row = read.row();
                    batched.add(
                            position
                                    + " "
                                    + row.partition()
                                    + "@"
                                    + row.kafkaOffset()
                                    + " "
                                    + row.timestamp());
                }
                assertThat(read.readInBatches()).isTrue();
            }
            try (TableFiles.FileRows read =
                    files.readTableRows(
                            task, table.schema(), columns, TableFiles.ValuesFrom.ROWS)) {
                while (read.hasNext()) {
                    long position = read.next();
                    TableRow row = read.row();
                    generic.add(
                            position
                                    + " "
                                    + row.partition()
                                    + "@"
                                    + row.kafkaOffset()
                                    + " "
                                    + row.timestamp());
                }
            }
        }
        assertThat(generic).hasSize(ROWS).contains("0 0@" + Integer.MIN_VALUE + " -86400000");
        assertThat(batched).containsExactlyElementsOf(generic);
    }

    @ParameterizedTest
    @ValueSource(strings = {"v1", "v2"})
    void negativeIntOffsetsArePositionsAsTheGenericReaderReadsThem(String pageVersion)
            throws Exception {
        Table table = intTable(pageVersion);
        RowColumns columns = new RowColumns(LAYOUT, TOPIC);
        TableFiles io = new TableFiles(table.io(), "db.t");
        List<Long> batched = new ArrayList<>();
        List<Long> generic = new ArrayList<>();
        for (FileScanTask task : tasks(table)) {
            try (TableFiles.KafkaPositions positions =
                    io.readKafkaPositions(task, table.schema(), columns)) {
                while (positions.next()) {
                    batched.add(positions.offset());
                }
                assertThat(positions.readInBatches()).isTrue();
            }
            try (CloseableIterable<Record> read =
                    io.readKafkaColumns(task, table.schema(), columns.layout())) {
                for (Record row : read) {
                    generic.add(columns.offset(row));
                }
            }
        }
        assertThat(generic)
                .hasSize(ROWS)
                .startsWith((long) Integer.MIN_VALUE, -100_000L, -100_000L, -99_997L);
        assertThat(batched).containsExactlyElementsOf(generic);
    }
}
