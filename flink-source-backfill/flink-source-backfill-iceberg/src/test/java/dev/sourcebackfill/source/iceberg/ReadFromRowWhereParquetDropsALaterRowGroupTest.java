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
 * A read from a row inside a data file whose footer makes Parquet's range filter keep the row group
 * holding the row but drop a later one (a later row group's first column saying its dictionary page
 * is at byte 0, as writers with PARQUET-1547 write plain-encoded chunks among dictionary-encoded
 * ones): every row from that row on still comes. The check of the first row read cannot see this
 * (the read starts at the right row group); only the check that the kept row groups run on to the
 * file's last does.
 */
class ReadFromRowWhereParquetDropsALaterRowGroupTest {

    private static final String TOPIC = "orders";
    private static final int ROWS = 40;

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

    /** The file with column 0 of row group {@code group} saying its dictionary page is at 0. */
    private static DataFile withDictionaryOffsetZero(Table table, DataFile file, int group)
            throws Exception {
        byte[] bytes = bytes(table, file.location());
        int footerLength =
                ByteBuffer.wrap(bytes, bytes.length - 8, 4).order(ByteOrder.LITTLE_ENDIAN).getInt();
        int footerStart = bytes.length - 8 - footerLength;
        FileMetaData footer =
                Util.readFileMetaData(new ByteArrayInputStream(bytes, footerStart, footerLength));
        footer.getRow_groups()
                .get(group)
                .getColumns()
                .get(0)
                .getMeta_data()
                .setDictionary_page_offset(0);
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

    /** Each row read from row {@code fromRow} on, at or past it: its position in the file. */
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
                if (position >= fromRow) {
                    positions.add(position);
                }
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

    private static List<Long> range(long from, long to) {
        List<Long> range = new ArrayList<>();
        for (long p = from; p < to; p++) {
            range.add(p);
        }
        return range;
    }

    /**
     * Four row groups of 10 rows; row group 2 (a middle one, after the row's) or 3 (the last) with
     * a dictionary offset of 0: a read from row 15 (row group 1) keeps row group 1, so it starts
     * where it should, but Parquet's filter drops the later one: its 10 rows must still come.
     */
    @ParameterizedTest(name = "{0}, row group {1} dropped")
    @CsvSource({"KAFKA_VALUES, 2", "KAFKA_VALUES, 3", "KAFKA_RECORDS, 2", "KAFKA_RECORDS, 3"})
    void aRowGroupAfterTheRowsThatParquetsRangeFilterDropsIsStillRead(
            TableFiles.ValuesFrom from, int dropped) throws Exception {
        Table table = table();
        DataFile written =
                IcebergTestTables.writeDataFile(
                        table,
                        IcebergTestTables.partitionOf(table, rows(table, 0, 1).get(0)),
                        rows(table, 0, ROWS));
        table.newAppend().appendFile(withDictionaryOffsetZero(table, written, dropped)).commit();
        table.refresh();
        FileScanTask task = onlyFile(table);
        assertThat(new TableFiles(table.io(), "db.t").rowGroupFirstRows(task))
                .containsExactly(10L, 20L, 30L);
        assertThat(positions(table, task, from, 0)).containsExactlyElementsOf(range(0, ROWS));

        assertThat(positions(table, task, from, 15))
                .as("a read from row 15")
                .containsExactlyElementsOf(range(15, ROWS));
        assertThat(delivered(table, from, 15))
                .as("a split restored at position 15")
                .containsExactlyElementsOf(range(15, ROWS));
    }
}
