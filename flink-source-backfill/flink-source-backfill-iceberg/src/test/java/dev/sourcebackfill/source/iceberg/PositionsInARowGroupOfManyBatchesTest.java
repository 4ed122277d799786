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
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The batched read gives each row its position as its row group's first row index plus its place in
 * the row group, counted on from batch to batch: a row group of more rows than a batch ({@link
 * ColumnBatchReader#BATCH_SIZE}) gives every row its own position, and a reader of the history
 * (which skips a row whose position is below the next one it expects) delivers every row once.
 */
class PositionsInARowGroupOfManyBatchesTest {

    private static final String TOPIC = "orders";

    /** One row group of more than two batches. */
    private static final int ROWS = 2 * ColumnBatchReader.BATCH_SIZE + 100;

    @TempDir Path warehouse;
    private Map<String, String> properties;
    private Catalog catalog;

    @BeforeEach
    void openCatalog() {
        properties = IcebergTestTables.hadoopCatalog(warehouse);
        catalog = IcebergTestTables.open("local", properties);
    }

    private Table table() {
        Table table = IcebergTestTables.create(catalog, "db.t", Kind.REDPANDA);
        List<Record> rows = new ArrayList<>();
        for (long o = 0; o < ROWS; o++) {
            rows.add(IcebergTestTables.row(Kind.REDPANDA, table.schema(), TOPIC, 0, o, "v" + o));
        }
        IcebergTestTables.append(table, rows);
        table.refresh();
        return table;
    }

    @ParameterizedTest
    @ValueSource(longs = {0, 5_000})
    void everyRowOfARowGroupOfManyBatchesHasItsOwnPosition(long fromRow) throws Exception {
        Table table = table();
        List<FileScanTask> tasks = new ArrayList<>();
        try (CloseableIterable<FileScanTask> planned = table.newScan().planFiles()) {
            planned.forEach(tasks::add);
        }
        assertThat(tasks).hasSize(1);
        assertThat(new TableFiles(table.io(), "db.t").rowGroupFirstRows(tasks.get(0)))
                .as("one row group")
                .isEmpty();

        List<Long> positions = new ArrayList<>();
        try (TableFiles.FileRows read =
                new TableFiles(table.io(), "db.t")
                        .readTableRows(
                                tasks.get(0),
                                table.schema(),
                                new RowColumns(Kind.REDPANDA.layout, TOPIC),
                                TableFiles.ValuesFrom.KAFKA_VALUES,
                                fromRow)) {
            while (read.hasNext()) {
                long position = read.next();
                assertThat(read.readInBatches()).isTrue();
                assertThat(read.row().kafkaOffset())
                        .as("the row at %d", position)
                        .isEqualTo(position);
                positions.add(position);
            }
        }
        assertThat(positions).hasSize(ROWS);
        for (int i = 0; i < ROWS; i++) {
            assertThat(positions.get(i)).isEqualTo(i);
        }

        // through the history's reader, from fromRow: every row from there on once
        String split =
                TableHistorySplit.id("db.t", table.currentSnapshot().snapshotId(), List.of(TOPIC));
        List<Long> delivered = new ArrayList<>();
        try (IcebergTableReader reader =
                new IcebergTableReader(
                        new IcebergTableRef("local", properties, "db.t"),
                        new RowColumns(Kind.REDPANDA.layout, TOPIC),
                        List.of(TOPIC),
                        1_000,
                        null,
                        TableFiles.ValuesFrom.KAFKA_VALUES)) {
            reader.addSplit(split, fromRow);
            for (int polls = 0; !reader.isEndOfSplit(split); polls++) {
                assertThat(polls).isLessThan(1_000);
                reader.poll(
                        Duration.ofMillis(10),
                        (splitId, position, timestamp, row) -> {
                            assertThat(row.kafkaOffset()).isEqualTo(position);
                            delivered.add(position);
                        });
            }
        }
        assertThat(delivered).hasSize((int) (ROWS - fromRow));
    }
}
