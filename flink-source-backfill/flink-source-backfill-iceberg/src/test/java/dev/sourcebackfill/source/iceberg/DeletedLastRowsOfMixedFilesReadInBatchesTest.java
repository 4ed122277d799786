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

import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The discovery's highest offsets ({@link TableHistory#lastOffsets}) and ordered mode's file
 * offsets ({@code OrderedTableReader.scan}) of files that mix partitions, read in batches ({@link
 * TableFiles#readKafkaPositions}): a deleted row, the partition's last above all, still counts (the
 * table dropped it; the topic must not bring it back). The existing tests of both use Kafka
 * Connect's layout, whose identity-partitioned files go through the generic reader or their bounds.
 */
class DeletedLastRowsOfMixedFilesReadInBatchesTest {

    private static final String TOPIC = "orders";

    @TempDir Path warehouse;
    private Map<String, String> properties;
    private Catalog catalog;

    @BeforeEach
    void openCatalog() {
        properties = IcebergTestTables.hadoopCatalog(warehouse);
        catalog = IcebergTestTables.open("local", properties);
    }

    /** One file mixing partitions 0 and 1, offsets 0 to 19 each, in offset order. */
    private static DataFile mixed(Kind kind, Table table) {
        List<Record> rows = new ArrayList<>();
        for (long o = 0; o < 20; o++) {
            for (int p = 0; p < 2; p++) {
                rows.add(IcebergTestTables.row(kind, table.schema(), TOPIC, p, o, "v" + o));
            }
        }
        List<DataFile> files = IcebergTestTables.append(table, rows);
        assertThat(files).hasSize(1);
        return files.get(0);
    }

    @ParameterizedTest
    @EnumSource(
            value = Kind.class,
            names = {"REDPANDA", "AIVEN", "AUTOMQ", "KAFKA_CONNECT_NESTED"})
    void aDeletedLastRowOfAMixedFileStillCountsForItsPartitionsHighestOffset(Kind kind)
            throws Exception {
        Table table = IcebergTestTables.create(catalog, "db.t", kind);
        DataFile file = mixed(kind, table);
        // the last row of each partition: offset 19, positions 38 and 39
        IcebergTestTables.deletePositions(table, file, 38, 39);
        table.refresh();
        RowColumns columns = new RowColumns(kind.layout, TOPIC);
        TableFiles io = new TableFiles(table.io(), "db.t");
        try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
            for (FileScanTask task : tasks) {
                assertThat(task.deletes()).isNotEmpty();
                try (TableFiles.KafkaPositions positions =
                        io.readKafkaPositions(task, table.schema(), columns)) {
                    // the discovery's read of the file is the batched one
                    assertThat(positions.next()).isTrue();
                    assertThat(positions.readInBatches()).isTrue();
                }
            }
        }

        TableHistory history =
                TableHistory.plan(
                        table,
                        "db.t",
                        table.currentSnapshot().snapshotId(),
                        kind.layout,
                        List.of(TOPIC));
        assertThat(history.lastOffsets(columns, List.of(TOPIC), io))
                .containsOnly(
                        Map.entry(new TopicPartition(TOPIC, 0), 19L),
                        Map.entry(new TopicPartition(TOPIC, 1), 19L));
    }

    /** Ordered mode: a partition whose last row (of a mixed file) is deleted ends past it. */
    @Test
    void anOrderedReadOfAMixedFileEndsPastItsPartitionsDeletedLastRow() throws Exception {
        Kind kind = Kind.REDPANDA;
        Table table = IcebergTestTables.create(catalog, "db.t", kind);
        DataFile file = mixed(kind, table);
        // partition 0's rows from offset 17 on: positions 34, 36, 38
        IcebergTestTables.deletePositions(table, file, 34, 36, 38);
        table.refresh();

        List<Long> offsets = new ArrayList<>();
        LogRecordCollector<TableRow> out =
                new LogRecordCollector<>() {
                    @Override
                    public void collect(
                            String splitId, long offset, long timestamp, TableRow record) {
                        offsets.add(offset);
                    }

                    @Override
                    public void offsetsDeleted(String splitId, long from, long to) {}
                };
        try (OrderedTableReader reader =
                new OrderedTableReader(
                        new IcebergTableRef("local", properties, "db.t"),
                        new RowColumns(kind.layout, TOPIC),
                        List.of(TOPIC),
                        7,
                        null)) {
            reader.addSplit(TOPIC + "-0", 0);
            for (int polls = 0; !reader.isEndOfSplit(TOPIC + "-0"); polls++) {
                assertThat(polls).as("polls until the end").isLessThan(1_000);
                reader.poll(Duration.ofMillis(10), out);
            }
            assertThat(reader.scannedFiles()).isEqualTo(1);
            assertThat(offsets)
                    .containsExactly(
                            0L, 1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L, 10L, 11L, 12L, 13L, 14L, 15L,
                            16L);
            assertThat(reader.position(TOPIC + "-0")).isEqualTo(20);
        }
    }
}
