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
import dev.sourcebackfill.source.iceberg.TableHistory.HistoryFile;
import dev.sourcebackfill.source.spi.DiscoveredSplit;
import dev.sourcebackfill.source.spi.LogSplitDiscoverer;

import org.apache.iceberg.DataFile;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.data.Record;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A data file of more rows than the chunk size is cut into chunks where its row groups start
 * whatever reads it. Where Iceberg's generic reader reads it (a layout with a topic column, read
 * with a filter; Kafka Connect's identity partitioning; a file with deletes; a record mapper), each
 * chunk reads the file from its first row and skips the rows below its start: a file cut into n
 * chunks is read about n(n+1)/2 chunks' worth in all, where one reader read it once before files
 * were cut inside. The reads of a file's chunks should together read the file about once.
 */
class ChunksOfALargeFileReadByTheGenericReaderTest {

    private static final String TOPIC = "orders";
    private static final int ROWS = 100;
    private static final int ROW_GROUP = 10;
    private static final long CHUNK = 25;

    @TempDir Path warehouse;
    private Map<String, String> properties;
    private Catalog catalog;

    @BeforeEach
    void openCatalog() {
        properties = IcebergTestTables.hadoopCatalog(warehouse);
        catalog = IcebergTestTables.open("local", properties);
    }

    /** One file of {@link #ROWS} rows of partition 0, in row groups of {@link #ROW_GROUP}. */
    private Table table(Kind kind, boolean withADelete) {
        Table table = IcebergTestTables.create(catalog, "db.t", kind);
        table.updateProperties()
                .set("write.parquet.row-group-size-bytes", "1")
                .set("write.parquet.row-group-check-min-record-count", "" + ROW_GROUP)
                .set("write.parquet.row-group-check-max-record-count", "" + ROW_GROUP)
                .commit();
        List<Record> rows = new ArrayList<>();
        for (long o = 0; o < ROWS; o++) {
            rows.add(IcebergTestTables.row(kind, table.schema(), TOPIC, 0, o, "v" + o));
        }
        List<DataFile> files = IcebergTestTables.append(table, rows);
        if (withADelete) {
            IcebergTestTables.deletePositions(table, files.get(0), 5);
        }
        table.refresh();
        return table;
    }

    /** Where the discoverer cuts the table's history into chunks of {@link #CHUNK} rows. */
    private List<Long> cuts(Kind kind) throws Exception {
        LogSplitDiscoverer topic =
                initial -> List.of(DiscoveredSplit.backfilled(TOPIC + "-0", 0, 200));
        try (IcebergDiscoverer discoverer =
                new IcebergDiscoverer(
                        topic,
                        new IcebergTableRef("local", properties, "db.t"),
                        new RowColumns(kind.layout, TOPIC),
                        false,
                        null,
                        false)) {
            List<DiscoveredSplit> splits = discoverer.discoverSplits(true);
            DiscoveredSplit history = splits.get(splits.size() - 1);
            assertThat(TableHistorySplit.isTableHistory(history.splitId())).isTrue();
            return discoverer.cutHistory(history, 0, ROWS, CHUNK);
        }
    }

    @ParameterizedTest(name = "{0}, {1}, a delete: {2}")
    @CsvSource({
        // a layout with a topic column: read with a filter, and identity-partitioned
        "KAFKA_CONNECT, KAFKA_VALUES, false",
        // a record mapper
        "REDPANDA, ROWS, false",
        // a file with a position delete
        "REDPANDA, KAFKA_VALUES, true",
    })
    void theChunksOfALargeFileTogetherReadItAboutOnce(
            Kind kind, TableFiles.ValuesFrom from, boolean withADelete) throws Exception {
        Table table = table(kind, withADelete);
        List<Long> cuts = cuts(kind);
        assertThat(cuts).as("the one file is cut inside").isNotEmpty();

        TableHistory history =
                TableHistory.plan(
                        table,
                        "db.t",
                        table.currentSnapshot().snapshotId(),
                        kind.layout,
                        List.of(TOPIC));
        assertThat(history.files()).hasSize(1);
        HistoryFile file = history.files().get(0);

        List<Long> starts = new ArrayList<>(List.of(0L));
        starts.addAll(cuts);
        long rowsRead = 0;
        List<Long> delivered = new ArrayList<>();
        for (int chunk = 0; chunk < starts.size(); chunk++) {
            long start = starts.get(chunk);
            long end = chunk + 1 < starts.size() ? starts.get(chunk + 1) : ROWS;
            try (TableFiles.FileRows rows =
                    new TableFiles(table.io(), "db.t")
                            .readTableRows(
                                    file.task(),
                                    history.schema(),
                                    new RowColumns(kind.layout, TOPIC),
                                    from,
                                    start - file.start())) {
                while (rows.hasNext()) {
                    long position = file.start() + rows.next();
                    rowsRead++;
                    if (position >= end) {
                        break; // the source stops the chunk at its end
                    }
                    if (position >= start) {
                        delivered.add(position);
                    }
                }
            }
        }
        assertThat(delivered).as("every row once").hasSize(withADelete ? ROWS - 1 : ROWS);
        // each chunk may read from the start of its row group (and one row past its end)
        long bound = ROWS + (long) starts.size() * (ROW_GROUP + 1);
        assertThat(rowsRead)
                .as(
                        "rows read by the %d chunks (cut at %s) of a file of %d rows",
                        starts.size(), cuts, ROWS)
                .isLessThanOrEqualTo(bound);
    }
}
