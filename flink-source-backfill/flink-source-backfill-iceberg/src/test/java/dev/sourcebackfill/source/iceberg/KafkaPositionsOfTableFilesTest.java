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

import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableScan;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The topic, partition and offset of a data file's rows ({@link TableFiles#readKafkaPositions}),
 * which the discovery reads for each partition's highest offset and ordered mode for each file's
 * offsets: read in batches where the adapter's readers read the file, each row as Iceberg's generic
 * reader reads it, deleted rows included; with a filter, by the generic reader, the filter applied.
 */
class KafkaPositionsOfTableFilesTest {

    private static final String TOPIC = "orders";

    @TempDir Path warehouse;
    private Catalog catalog;

    @BeforeEach
    void openCatalog() {
        catalog = IcebergTestTables.open("local", IcebergTestTables.hadoopCatalog(warehouse));
    }

    /**
     * Every layout, a file with position deletes among them: the positions are the generic
     * reader's, row for row, the deleted rows included; in batches where no column read is an
     * identity partition column (all layouts but Kafka Connect's, partitioned by its partition
     * column).
     */
    @ParameterizedTest
    @EnumSource(Kind.class)
    void positionsAreTheGenericReadersDeletedRowsIncluded(Kind kind) throws Exception {
        Table table = table(kind, 300);
        List<DataFile> files = new ArrayList<>();
        try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
            tasks.forEach(task -> files.add(task.file()));
        }
        IcebergTestTables.deletePositions(table, files.get(0), 0, 7, 8);
        table.refresh();
        RowColumns columns = new RowColumns(kind.layout, TOPIC);
        TableFiles io = new TableFiles(table.io(), "db.t");
        long rows = 0;
        boolean deletes = false;
        try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
            for (FileScanTask task : tasks) {
                deletes |= !task.deletes().isEmpty();
                List<String> read = new ArrayList<>();
                try (TableFiles.KafkaPositions positions =
                        io.readKafkaPositions(task, table.schema(), columns)) {
                    while (positions.next()) {
                        read.add(
                                positions.position()
                                        + " "
                                        + positions.topic()
                                        + "/"
                                        + positions.partition()
                                        + "@"
                                        + positions.offset());
                    }
                    assertThat(positions.readInBatches()).isEqualTo(kind != Kind.KAFKA_CONNECT);
                }
                assertThat(read).containsExactlyElementsOf(generic(io, task, table, columns));
                rows += read.size();
            }
        }
        assertThat(deletes).isTrue();
        assertThat(rows).isEqualTo(300);
    }

    /**
     * A scan with a filter on a column no partition has: the generic reader, the filter applied.
     */
    @Test
    void aFilteredScansPositionsAreTheGenericReadersWithTheFilter() throws Exception {
        Table table = table(Kind.REDPANDA, 300);
        RowColumns columns = new RowColumns(Kind.REDPANDA.layout, TOPIC);
        TableFiles io = new TableFiles(table.io(), "db.t");
        TableScan scan =
                table.newScan().filter(Expressions.greaterThanOrEqual("redpanda.offset", 250));
        List<Long> offsets = new ArrayList<>();
        try (CloseableIterable<FileScanTask> tasks = scan.planFiles()) {
            for (FileScanTask task : tasks) {
                try (TableFiles.KafkaPositions positions =
                        io.readKafkaPositions(task, table.schema(), columns)) {
                    while (positions.next()) {
                        offsets.add(positions.offset());
                    }
                    assertThat(positions.readInBatches()).isFalse();
                }
            }
        }
        assertThat(offsets).hasSize(50).allMatch(offset -> offset >= 250);
    }

    /**
     * A row without its offset, or with a negative partition, fails the batched reads (the
     * positions, and the rows for a value-only deserializer) naming the column, as the generic
     * reader's fail.
     */
    @ParameterizedTest
    @ValueSource(strings = {"offset", "partition"})
    void aRowWithoutItsOffsetOrWithANegativePartitionFailsTheBatchedReads(String broken)
            throws Exception {
        Table table = IcebergTestTables.create(catalog, "db.t", Kind.AIVEN);
        Record good = IcebergTestTables.row(Kind.AIVEN, table.schema(), TOPIC, 0, 0, "v");
        Record bad = IcebergTestTables.row(Kind.AIVEN, table.schema(), TOPIC, 0, 1, "v");
        ((Record) bad.getField("kafka"))
                .setField(broken, broken.equals("offset") ? null : Integer.valueOf(-1));
        IcebergTestTables.append(table, List.of(good, bad));
        table.refresh();
        String expected =
                broken.equals("offset")
                        ? "A row has no offset (column 'kafka.offset' is null)"
                        : "The partition column 'kafka.partition' holds -1, which is not a Kafka partition";
        RowColumns columns = new RowColumns(Kind.AIVEN.layout, TOPIC);
        TableFiles io = new TableFiles(table.io(), "db.t");
        try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
            FileScanTask task = tasks.iterator().next();
            try (TableFiles.KafkaPositions positions =
                    io.readKafkaPositions(task, table.schema(), columns)) {
                assertThat(positions.next()).isTrue();
                assertThat(positions.offset()).isZero();
                assertThat(positions.next()).isTrue();
                assertThat(positions.readInBatches()).isTrue();
                assertThatThrownBy(
                                () -> {
                                    positions.partition();
                                    positions.offset();
                                })
                        .hasMessageContaining(expected);
            }
            try (TableFiles.FileRows rows =
                    io.readTableRows(
                            task, table.schema(), columns, TableFiles.ValuesFrom.KAFKA_VALUES)) {
                rows.next();
                assertThat(rows.row().kafkaOffset()).isZero();
                rows.next();
                assertThat(rows.readInBatches()).isTrue();
                assertThatThrownBy(rows::row).hasMessageContaining(expected);
            }
        }
    }

    /** A table of {@code rows} rows, offsets 0 on, in partitions 0 to 2, over two files. */
    private Table table(Kind kind, int rows) {
        Table table = IcebergTestTables.create(catalog, "db.t", kind);
        List<Record> first = new ArrayList<>();
        List<Record> second = new ArrayList<>();
        for (long offset = 0; offset < rows; offset++) {
            Record row =
                    IcebergTestTables.row(
                            kind, table.schema(), TOPIC, (int) (offset % 3), offset, "v" + offset);
            (offset < rows / 2 ? first : second).add(row);
        }
        IcebergTestTables.append(table, first);
        IcebergTestTables.append(table, second);
        table.refresh();
        return table;
    }

    /** The file's positions as Iceberg's generic reader reads its Kafka columns. */
    private static List<String> generic(
            TableFiles io, FileScanTask task, Table table, RowColumns columns) throws Exception {
        List<String> read = new ArrayList<>();
        try (CloseableIterable<Record> rows =
                io.readKafkaColumns(task, table.schema(), columns.layout())) {
            for (Record row : rows) {
                read.add(
                        columns.position(row)
                                + " "
                                + columns.topic(row)
                                + "/"
                                + columns.partition(row)
                                + "@"
                                + columns.offset(row));
            }
        }
        return read;
    }
}
