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

import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A file read from a row inside it ({@link TableFiles#readTableRows(FileScanTask,
 * org.apache.iceberg.Schema, RowColumns, TableFiles.ValuesFrom, long)}): by the adapter's readers
 * (a batch at a time, a row at a time) and by Iceberg's generic reader (a record mapper's rows),
 * from the row group holding that row, the row groups before it not read, every row from the row on
 * at its position. And through {@link IcebergTableReader}, a split added inside a file of many row
 * groups delivers each row from its position on once.
 */
class TableFilesFromRowTest {

    private static final String TOPIC = "orders";
    private static final int ROWS = 100;

    /** Rows a row group: the writer checks the row group's size every 10 rows. */
    private static final int ROW_GROUP = 10;

    @TempDir Path warehouse;
    private java.util.Map<String, String> properties;
    private Catalog catalog;

    @BeforeEach
    void openCatalog() {
        properties = IcebergTestTables.hadoopCatalog(warehouse);
        catalog = IcebergTestTables.open("local", properties);
    }

    /** One file of {@link #ROWS} rows of partition 0, offsets 1000 on, row groups of 10 rows. */
    private Table table() throws Exception {
        Table table = IcebergTestTables.create(catalog, "db.t", Kind.REDPANDA);
        table.updateProperties()
                .set("write.parquet.row-group-size-bytes", "1")
                .set("write.parquet.row-group-check-min-record-count", "10")
                .set("write.parquet.row-group-check-max-record-count", "10")
                .commit();
        List<Record> rows = new ArrayList<>();
        for (long o = 0; o < ROWS; o++) {
            rows.add(
                    IcebergTestTables.row(
                            Kind.REDPANDA, table.schema(), TOPIC, 0, 1_000 + o, "v" + o));
        }
        IcebergTestTables.append(table, rows);
        table.refresh();
        return table;
    }

    private static FileScanTask onlyFile(Table table) throws Exception {
        List<FileScanTask> tasks = new ArrayList<>();
        try (CloseableIterable<FileScanTask> planned = table.newScan().planFiles()) {
            planned.forEach(tasks::add);
        }
        assertThat(tasks).hasSize(1);
        return tasks.get(0);
    }

    /** Each row read, as (position in the file, Kafka offset); the first position read first. */
    private static List<long[]> read(
            Table table, FileScanTask task, TableFiles.ValuesFrom from, long fromRow)
            throws Exception {
        List<long[]> rows = new ArrayList<>();
        try (TableFiles.FileRows read =
                new TableFiles(table.io(), "db.t")
                        .readTableRows(
                                task,
                                table.schema(),
                                new RowColumns(Kind.REDPANDA.layout, TOPIC),
                                from,
                                fromRow)) {
            while (read.hasNext()) {
                long position = read.next();
                rows.add(new long[] {position, read.row().kafkaOffset()});
            }
        }
        return rows;
    }

    @ParameterizedTest
    @EnumSource(TableFiles.ValuesFrom.class)
    void aReadFromARowStartsAtItsRowGroupWithEveryRowAtItsPosition(TableFiles.ValuesFrom from)
            throws Exception {
        Table table = table();
        FileScanTask task = onlyFile(table);
        try (ParquetFileReader footer =
                ParquetFileReader.open(
                        HadoopInputFile.fromPath(
                                new org.apache.hadoop.fs.Path(task.file().location()),
                                new org.apache.hadoop.conf.Configuration()))) {
            List<BlockMetaData> groups = footer.getRowGroups();
            assertThat(groups).hasSize(ROWS / ROW_GROUP);
            assertThat(groups).allMatch(group -> group.getRowCount() == ROW_GROUP);
        }

        for (long fromRow : new long[] {0, 1, 9, 10, 11, 37, 90, 99}) {
            List<long[]> rows = read(table, task, from, fromRow);

            long first = rows.get(0)[0];
            assertThat(first)
                    .as("from row %d: the first row of its row group", fromRow)
                    .isEqualTo(fromRow / ROW_GROUP * ROW_GROUP);
            // every row from the first on, each at its position, in order
            for (int i = 0; i < rows.size(); i++) {
                assertThat(rows.get(i)[0]).isEqualTo(first + i);
                assertThat(rows.get(i)[1]).isEqualTo(1_000 + first + i);
            }
            assertThat(rows.get(rows.size() - 1)[0]).isEqualTo(ROWS - 1);
        }
    }

    /**
     * A split added inside the file, as after a restore (and a chunk starting inside it): every row
     * from its position on once, at its position, none below it.
     */
    @ParameterizedTest
    @EnumSource(TableFiles.ValuesFrom.class)
    void aSplitAddedInsideAFileOfManyRowGroupsDeliversEachRowFromItsPositionOnce(
            TableFiles.ValuesFrom from) throws Exception {
        Table table = table();
        String split =
                TableHistorySplit.id("db.t", table.currentSnapshot().snapshotId(), List.of(TOPIC));
        for (long start : new long[] {0, 15, 40, 99}) {
            List<long[]> delivered = new ArrayList<>();
            try (IcebergTableReader reader =
                    new IcebergTableReader(
                            new IcebergTableRef("local", properties, "db.t"),
                            new RowColumns(Kind.REDPANDA.layout, TOPIC),
                            List.of(TOPIC),
                            7,
                            null,
                            from)) {
                reader.addSplit(split, start);
                for (int polls = 0; !reader.isEndOfSplit(split); polls++) {
                    assertThat(polls).isLessThan(100);
                    reader.poll(
                            Duration.ofMillis(10),
                            (splitId, position, timestamp, row) ->
                                    delivered.add(new long[] {position, row.kafkaOffset()}));
                }
            }
            assertThat(delivered).hasSize((int) (ROWS - start));
            for (int i = 0; i < delivered.size(); i++) {
                assertThat(delivered.get(i)[0]).isEqualTo(start + i);
                assertThat(delivered.get(i)[1]).isEqualTo(1_000 + start + i);
            }
        }
    }
}
