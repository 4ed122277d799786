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
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.PositionOutputStream;
import org.apache.iceberg.io.SeekableInputStream;
import org.apache.parquet.format.FileMetaData;
import org.apache.parquet.format.Util;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A read from a row inside a data file whose footer is not as the adapter's own writer would make
 * it: the rows from that row on are read, or the read fails; none are lost silently, and a split
 * restored where an earlier read could go on is still read.
 */
class ReadFromRowOfUnusualFootersTest {

    private static final String TOPIC = "orders";

    @TempDir Path warehouse;
    private Map<String, String> properties;
    private Catalog catalog;

    @BeforeEach
    void openCatalog() {
        properties = IcebergTestTables.hadoopCatalog(warehouse);
        catalog = IcebergTestTables.open("local", properties);
    }

    /** A table writing row groups of 10 rows, no dictionary pages. */
    private Table table() {
        Table table = IcebergTestTables.create(catalog, "db.t", Kind.REDPANDA);
        table.updateProperties()
                .set("write.parquet.row-group-size-bytes", "1")
                .set("write.parquet.row-group-check-min-record-count", "10")
                .set("write.parquet.row-group-check-max-record-count", "10")
                .set("parquet.enable.dictionary", "false")
                .commit();
        return table;
    }

    private static List<Record> rows(Table table, long from, long to) {
        List<Record> rows = new ArrayList<>();
        for (long o = from; o < to; o++) {
            rows.add(IcebergTestTables.row(Kind.REDPANDA, table.schema(), TOPIC, 0, o, "v" + o));
        }
        return rows;
    }

    private static DataFile write(Table table, List<Record> rows) {
        PartitionKey key = IcebergTestTables.partitionOf(table, rows.get(0));
        return IcebergTestTables.writeDataFile(table, key, rows);
    }

    private static byte[] bytes(Table table, String location) throws Exception {
        org.apache.iceberg.io.InputFile in = table.io().newInputFile(location);
        byte[] bytes = new byte[(int) in.getLength()];
        try (SeekableInputStream stream = in.newStream()) {
            int read = 0;
            while (read < bytes.length) {
                read += stream.read(bytes, read, bytes.length - read);
            }
        }
        return bytes;
    }

    /**
     * The file with column 0 of row group {@code group} saying its dictionary page is at byte 0 (as
     * writers that set the field without a dictionary do): Parquet's range filter then takes the
     * row group to start at byte 0, the column chunk itself (its starting position) at its first
     * data page.
     */
    private static DataFile withDictionaryOffsetZero(Table table, DataFile file, int... groups)
            throws Exception {
        byte[] bytes = bytes(table, file.location());
        int footerLength =
                ByteBuffer.wrap(bytes, bytes.length - 8, 4).order(ByteOrder.LITTLE_ENDIAN).getInt();
        int footerStart = bytes.length - 8 - footerLength;
        FileMetaData footer =
                Util.readFileMetaData(new ByteArrayInputStream(bytes, footerStart, footerLength));
        for (int group : groups) {
            footer.getRow_groups()
                    .get(group)
                    .getColumns()
                    .get(0)
                    .getMeta_data()
                    .setDictionary_page_offset(0);
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(bytes, 0, footerStart);
        ByteArrayOutputStream newFooter = new ByteArrayOutputStream();
        Util.writeFileMetaData(footer, newFooter);
        newFooter.writeTo(out);
        out.write(
                ByteBuffer.allocate(4)
                        .order(ByteOrder.LITTLE_ENDIAN)
                        .putInt(newFooter.size())
                        .array());
        out.write(new byte[] {'P', 'A', 'R', '1'});
        String location = file.location().replace(".parquet", "-rewritten.parquet");
        OutputFile target = table.io().newOutputFile(location);
        try (PositionOutputStream stream = target.createOrOverwrite()) {
            stream.write(out.toByteArray());
        }
        return DataFiles.builder(table.spec())
                .copy(file)
                .withPath(location)
                .withFileSizeInBytes(out.size())
                .build();
    }

    private static FileScanTask onlyFile(Table table) throws Exception {
        List<FileScanTask> tasks = new ArrayList<>();
        try (CloseableIterable<FileScanTask> planned = table.newScan().planFiles()) {
            planned.forEach(tasks::add);
        }
        assertThat(tasks).hasSize(1);
        return tasks.get(0);
    }

    /** Each row read from row {@code fromRow} on: its position in the file. */
    private static List<Long> positions(
            Table table, FileScanTask task, TableFiles.ValuesFrom from, long fromRow)
            throws Exception {
        List<Long> positions = new ArrayList<>();
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
                assertThat(read.row().kafkaOffset()).isEqualTo(position);
                positions.add(position);
            }
        }
        return positions;
    }

    /** What a split added at {@code start} delivers: each row's position. */
    private List<Long> delivered(Table table, TableFiles.ValuesFrom from, long start)
            throws Exception {
        String split =
                TableHistorySplit.id("db.t", table.currentSnapshot().snapshotId(), List.of(TOPIC));
        List<Long> delivered = new ArrayList<>();
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
                        (splitId, position, timestamp, row) -> delivered.add(position));
            }
        }
        return delivered;
    }

    /**
     * The last row group's first column says its dictionary page is at byte 0: the whole file reads
     * as it is, but a read from a row of that row group reads no row group at all (Parquet's range
     * filter takes the group's middle to be below the range's start), and the check of the first
     * row read has no row to check: the row group's rows are lost without a word.
     */
    @ParameterizedTest
    @EnumSource(
            value = TableFiles.ValuesFrom.class,
            names = {"KAFKA_VALUES", "KAFKA_RECORDS"})
    void aReadFromARowOfARowGroupParquetsRangeFilterDropsLosesNoRowSilently(
            TableFiles.ValuesFrom from) throws Exception {
        Table table = table();
        DataFile file = withDictionaryOffsetZero(table, write(table, rows(table, 0, 30)), 2);
        table.newAppend().appendFile(file).commit();
        table.refresh();
        FileScanTask task = onlyFile(table);

        // read whole, the file is fine: 30 rows, at their positions
        List<Long> every = new ArrayList<>();
        for (long p = 0; p < 30; p++) {
            every.add(p);
        }
        assertThat(positions(table, task, from, 0)).containsExactlyElementsOf(every);

        // a split restored at position 25: rows 25 to 29 must come (or the read must fail)
        assertThat(delivered(table, from, 25))
                .as("a split restored inside the last row group")
                .containsExactly(25L, 26L, 27L, 28L, 29L);
    }

    /**
     * A file whose manifest counts 5 rows more than its footer (a file added with wrong metrics): a
     * split whose position is just past the file's last row (a checkpoint taken after it, before
     * the file's end was reached) was read on into the next file before this change; now the read
     * of the footer finds no row there and every restore fails.
     */
    @ParameterizedTest
    @EnumSource(
            value = TableFiles.ValuesFrom.class,
            names = {"KAFKA_VALUES", "KAFKA_RECORDS"})
    void aSplitRestoredPastTheLastRowOfAFileItsManifestOvercountsReadsOnIntoTheNextFile(
            TableFiles.ValuesFrom from) throws Exception {
        Table table = table();
        DataFile written = write(table, rows(table, 0, 30));
        DataFile overcounted =
                DataFiles.builder(table.spec()).copy(written).withRecordCount(35).build();
        table.newAppend().appendFile(overcounted).commit();
        IcebergTestTables.append(table, rows(table, 30, 40));
        table.refresh();

        // the first file at positions [0, 35) (30 rows), the second at [35, 45)
        assertThat(delivered(table, from, 0)).hasSize(40);
        List<Long> next = new ArrayList<>();
        for (long p = 35; p < 45; p++) {
            next.add(p);
        }
        assertThat(delivered(table, from, 30))
                .as("restored just past the first file's last row")
                .containsExactlyElementsOf(next);
    }

    /**
     * Every row group's first column says its dictionary page is at byte 0 (as plain-encoded
     * columns of files written by parquet-mr with PARQUET-1547): a chunk cut where the second row
     * group starts reads no row group at all, and the chunk's 20 rows are lost without a word.
     */
    @ParameterizedTest
    @EnumSource(
            value = TableFiles.ValuesFrom.class,
            names = {"KAFKA_VALUES", "KAFKA_RECORDS"})
    void aChunkCutWhereARowGroupStartsInAFileOfDictionaryOffsetsZeroLosesNoRowSilently(
            TableFiles.ValuesFrom from) throws Exception {
        Table table = table();
        DataFile file = withDictionaryOffsetZero(table, write(table, rows(table, 0, 30)), 0, 1, 2);
        table.newAppend().appendFile(file).commit();
        table.refresh();
        FileScanTask task = onlyFile(table);
        assertThat(positions(table, task, from, 0)).hasSize(30);

        // the discoverer's footer read gives the row groups' first rows: a cut at 10
        assertThat(new TableFiles(table.io(), "db.t").rowGroupFirstRows(task))
                .containsExactly(10L, 20L);
        List<Long> chunk = new ArrayList<>();
        for (long p = 10; p < 30; p++) {
            chunk.add(p);
        }
        assertThat(delivered(table, from, 10))
                .as("a chunk from the second row group's start")
                .containsExactlyElementsOf(chunk);
    }

    private static List<Long> range(long from, long to) {
        List<Long> range = new ArrayList<>();
        for (long p = from; p < to; p++) {
            range.add(p);
        }
        return range;
    }

    /**
     * Four row groups of 10 rows; row group 2 (a middle one, after the row's) or 3 (the last) with
     * a dictionary offset of 0: Parquet's filter of a read from row 15 keeps row group 1, so the
     * read starts where it should (the check of the first row read cannot see this), but drops the
     * later one (as writers with PARQUET-1547 write plain-encoded chunks among dictionary-encoded
     * ones): its 10 rows must still come.
     */
    @ParameterizedTest(name = "{0}, row group {1} dropped")
    @CsvSource({"KAFKA_VALUES, 2", "KAFKA_VALUES, 3", "KAFKA_RECORDS, 2", "KAFKA_RECORDS, 3"})
    void aRowGroupAfterTheRowsThatParquetsRangeFilterDropsIsStillRead(
            TableFiles.ValuesFrom from, int dropped) throws Exception {
        Table table = table();
        DataFile written = write(table, rows(table, 0, 40));
        table.newAppend().appendFile(withDictionaryOffsetZero(table, written, dropped)).commit();
        table.refresh();
        FileScanTask task = onlyFile(table);
        assertThat(new TableFiles(table.io(), "db.t").rowGroupFirstRows(task))
                .containsExactly(10L, 20L, 30L);
        assertThat(positions(table, task, from, 0)).containsExactlyElementsOf(range(0, 40));

        assertThat(positions(table, task, from, 15))
                .as("a read from row 15")
                .filteredOn(position -> position >= 15)
                .containsExactlyElementsOf(range(15, 40));
        assertThat(delivered(table, from, 15))
                .as("a split restored at position 15")
                .containsExactlyElementsOf(range(15, 40));
    }
}
