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

import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.data.Record;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A data file of more rows than the chunk size is cut where its row groups start: the history's
 * chunks are runs of at least the chunk size, also inside one large file, and the chunks read side
 * by side give every row once.
 */
class RowGroupCutsTest {

    private static final String TOPIC = "orders";

    @TempDir Path warehouse;
    private Map<String, String> properties;
    private Catalog catalog;

    @BeforeEach
    void openCatalog() {
        properties = IcebergTestTables.hadoopCatalog(warehouse);
        catalog = IcebergTestTables.open("local", properties);
    }

    /** Partition 0's offsets {@code [from, to)} as one file, each commit one. */
    private static void append(Table table, long from, long to) {
        List<Record> rows = new ArrayList<>();
        for (long o = from; o < to; o++) {
            rows.add(
                    IcebergTestTables.row(
                            Kind.KAFKA_CONNECT, table.schema(), TOPIC, 0, o, "v" + o));
        }
        IcebergTestTables.append(table, rows);
    }

    /** A table whose row groups hold 10 rows each (the writer checks their size every 10). */
    private Table tableOfSmallRowGroups() {
        Table table = IcebergTestTables.create(catalog, "db.t", Kind.KAFKA_CONNECT);
        table.updateProperties()
                .set("write.parquet.row-group-size-bytes", "1")
                .set("write.parquet.row-group-check-min-record-count", "10")
                .set("write.parquet.row-group-check-max-record-count", "10")
                .commit();
        return table;
    }

    @Test
    void aFileLargerThanTheChunkSizeIsCutWhereItsRowGroupsStart() {
        Table table = IcebergTestTables.create(catalog, "db.t", Kind.KAFKA_CONNECT);
        append(table, 0, 100);
        append(table, 100, 600);
        append(table, 600, 700);
        table.refresh();
        TableHistory history =
                TableHistory.plan(
                        table,
                        "db.t",
                        table.currentSnapshot().snapshotId(),
                        Kind.KAFKA_CONNECT.layout,
                        List.of(TOPIC));
        assertThat(history.files())
                .extracting(HistoryFile::records)
                .containsExactly(100L, 500L, 100L);
        // the large file's row groups, as its footer would say: every 50 rows
        List<Long> asked = new ArrayList<>();
        TableHistory.RowGroups everyFifty =
                file -> {
                    asked.add(file.records());
                    return new long[] {50, 100, 150, 200, 250, 300, 350, 400, 450};
                };

        // runs of at least 120 rows: inside the large file at 150, 300 and 450, then at the
        // last file's start
        assertThat(history.cuts(0, 700, 120, everyFifty)).containsExactly(150L, 300L, 450L, 600L);
        assertThat(asked).as("only the file larger than the chunk size").containsExactly(500L);
        // chunks larger than the file: whole files, no footer asked
        asked.clear();
        assertThat(history.cuts(0, 700, 500, everyFifty)).containsExactly(600L);
        assertThat(asked).isEmpty();
        // a history starting inside the large file (its first cut above the start), ending inside
        assertThat(history.cuts(230, 520, 100, everyFifty)).containsExactly(350L, 450L);
        // whole files only, as before
        assertThat(history.cuts(0, 700, 120)).containsExactly(600L);
    }

    @Test
    void theDiscovererCutsByTheFootersAndTheChunksGiveEveryRowOnce() throws Exception {
        Table table = tableOfSmallRowGroups();
        append(table, 0, 100);
        append(table, 100, 140);
        table.refresh();
        LogSplitDiscoverer topic =
                initial -> List.of(DiscoveredSplit.backfilled(TOPIC + "-0", 0, 200));
        List<Long> cuts;
        DiscoveredSplit history;
        try (IcebergDiscoverer discoverer =
                new IcebergDiscoverer(
                        topic,
                        new IcebergTableRef("local", properties, "db.t"),
                        new RowColumns(Kind.KAFKA_CONNECT.layout, TOPIC),
                        false,
                        null,
                        false)) {
            List<DiscoveredSplit> splits = discoverer.discoverSplits(true);
            history = splits.get(splits.size() - 1);
            assertThat(TableHistorySplit.isTableHistory(history.splitId())).isTrue();
            cuts = discoverer.cutHistory(history, 0, 140, 25);
        }
        // the first file's row groups start every 10 rows: runs of at least 25 rows end at 30, 60
        // and 90; the second file starts 10 rows later (no cut), its row group at 120 does
        assertThat(cuts).containsExactly(30L, 60L, 90L, 120L);

        // each chunk read as a reader reads it, from its start up to the next chunk's
        List<Long> starts = new ArrayList<>(List.of(0L));
        starts.addAll(cuts);
        List<Long> delivered = new ArrayList<>();
        for (int chunk = 0; chunk < starts.size(); chunk++) {
            long start = starts.get(chunk);
            long end = chunk + 1 < starts.size() ? starts.get(chunk + 1) : 140;
            try (IcebergTableReader reader =
                    new IcebergTableReader(
                            new IcebergTableRef("local", properties, "db.t"),
                            new RowColumns(Kind.KAFKA_CONNECT.layout, TOPIC),
                            List.of(TOPIC),
                            7,
                            null,
                            TableFiles.ValuesFrom.KAFKA_VALUES)) {
                reader.addSplit(history.splitId(), start);
                List<Long> read = new ArrayList<>();
                for (int polls = 0;
                        !reader.isEndOfSplit(history.splitId())
                                && (read.isEmpty() || read.get(read.size() - 1) < end - 1);
                        polls++) {
                    assertThat(polls).isLessThan(100);
                    reader.poll(
                            Duration.ofMillis(10),
                            (splitId, position, timestamp, row) -> {
                                assertThat(row.kafkaOffset()).isEqualTo(position);
                                read.add(position);
                            });
                }
                assertThat(read.get(0)).as("chunk %d's first row", chunk).isEqualTo(start);
                read.removeIf(position -> position >= end);
                delivered.addAll(read);
            }
        }
        List<Long> every = new ArrayList<>();
        for (long p = 0; p < 140; p++) {
            every.add(p);
        }
        assertThat(delivered).containsExactlyElementsOf(every);
    }

    /**
     * Each partition's large file is a part of the history of its own, each part cut by a call of
     * its own: the footers of every large file are read at the first call, and not again.
     */
    @Test
    void theFootersOfEveryPartsLargeFilesAreReadOnceForAllParts() throws Exception {
        Table table = tableOfSmallRowGroups();
        for (int partition = 0; partition < 2; partition++) {
            List<Record> rows = new ArrayList<>();
            for (long o = 0; o < 100; o++) {
                rows.add(
                        IcebergTestTables.row(
                                Kind.KAFKA_CONNECT, table.schema(), TOPIC, partition, o, "v"));
            }
            IcebergTestTables.append(table, rows);
        }
        table.refresh();
        LogSplitDiscoverer topic =
                initial ->
                        List.of(
                                DiscoveredSplit.backfilled(TOPIC + "-0", 0, 200),
                                DiscoveredSplit.backfilled(TOPIC + "-1", 0, 200));
        Map<String, String> counting = new java.util.HashMap<>(properties);
        counting.put("io-impl", IcebergTableReaderTest.CloseFailingFileIO.class.getName());
        try (IcebergDiscoverer discoverer =
                new IcebergDiscoverer(
                        topic,
                        new IcebergTableRef("local", counting, "db.t"),
                        new RowColumns(Kind.KAFKA_CONNECT.layout, TOPIC),
                        false,
                        null,
                        false)) {
            List<DiscoveredSplit> parts = new ArrayList<>();
            for (DiscoveredSplit split : discoverer.discoverSplits(true)) {
                if (TableHistorySplit.isTableHistory(split.splitId())) {
                    parts.add(split);
                }
            }
            assertThat(parts).hasSize(2);
            IcebergTableReaderTest.CloseFailingFileIO.OPENED.set(0);

            assertThat(discoverer.cutHistory(parts.get(0), 0, 100, 25))
                    .containsExactly(30L, 60L, 90L);
            int footersRead = IcebergTableReaderTest.CloseFailingFileIO.OPENED.get();
            assertThat(discoverer.cutHistory(parts.get(1), 100, 200, 25))
                    .containsExactly(130L, 160L, 190L);

            // the table's metadata and both files' footers at the first call
            assertThat(footersRead).isEqualTo(3);
            assertThat(IcebergTableReaderTest.CloseFailingFileIO.OPENED.get())
                    .as("nothing read again")
                    .isEqualTo(footersRead);
        }
    }
}
