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
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.hadoop.HadoopFileIO;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.SeekableInputStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

/** The table reader: rows at their positions, from where a split starts, deletes applied. */
class IcebergTableReaderTest {

    private static final String TOPIC = "orders";

    @TempDir Path warehouse;
    private Map<String, String> properties;
    private Catalog catalog;

    @BeforeEach
    void openCatalog() {
        properties = IcebergTestTables.hadoopCatalog(warehouse);
        catalog = IcebergTestTables.open("local", properties);
    }

    /** One delivered row: its position, the Kafka partition and offset it holds, its time. */
    record Delivered(long position, int partition, long offset, long timestamp) {}

    private static final class Collecting implements LogRecordCollector<TableRow> {
        final List<Delivered> rows = new ArrayList<>();
        final RowColumns columns;

        Collecting(Kind kind) {
            columns = new RowColumns(kind.layout, TOPIC);
        }

        @Override
        public void collect(String splitId, long offset, long timestamp, TableRow record) {
            // the fetcher's reading of the row's Kafka columns is the row's own
            if (record.row() != null) {
                assertThat(record).isEqualTo(TableRow.read(columns, record.row()));
            }
            assertThat(timestamp).isEqualTo(record.timestamp());
            rows.add(new Delivered(offset, record.partition(), record.kafkaOffset(), timestamp));
        }
    }

    private IcebergTableReader reader(Kind kind, int maxRecordsPerPoll) {
        return new IcebergTableReader(
                new IcebergTableRef("local", properties, "db.t"),
                new RowColumns(kind.layout, TOPIC),
                List.of(TOPIC),
                maxRecordsPerPoll,
                null,
                valuesFrom());
    }

    /**
     * What the values are made of: the rows ({@link IcebergTableReaderKafkaRecordsTest}: the Kafka
     * records).
     */
    TableFiles.ValuesFrom valuesFrom() {
        return TableFiles.ValuesFrom.ROWS;
    }

    private static void readToEnd(IcebergTableReader reader, String split, Collecting out)
            throws IOException {
        for (int polls = 0; !reader.isEndOfSplit(split); polls++) {
            assertThat(polls).as("polls until the end").isLessThan(1_000);
            reader.poll(Duration.ofMillis(10), out);
        }
    }

    /** Redpanda's layout: each file mixes the partitions; 3 files of 40 rows each. */
    private Table mixedTable() {
        Table table = IcebergTestTables.create(catalog, "db.t", Kind.REDPANDA);
        for (int file = 0; file < 3; file++) {
            List<Record> rows = new ArrayList<>();
            for (long i = 0; i < 40; i++) {
                int partition = (int) (i % 4);
                long offset = file * 10 + i / 4;
                rows.add(
                        IcebergTestTables.row(
                                Kind.REDPANDA, table.schema(), TOPIC, partition, offset, "v"));
            }
            IcebergTestTables.append(table, rows);
        }
        table.refresh();
        return table;
    }

    @Test
    void readsEveryRowAtItsPositionFileAfterFileAndEnds() throws Exception {
        Table table = mixedTable();
        String split =
                TableHistorySplit.id("db.t", table.currentSnapshot().snapshotId(), List.of(TOPIC));
        Collecting out = new Collecting(Kind.REDPANDA);
        try (IcebergTableReader reader = reader(Kind.REDPANDA, 7)) {
            reader.addSplit(split, 0);
            readToEnd(reader, split, out);

            assertThat(out.rows)
                    .extracting(Delivered::position)
                    .containsExactlyElementsOf(range(0, 120));
            assertThat(reader.position(split)).isEqualTo(120);
            assertThat(out.rows)
                    .allSatisfy(
                            row ->
                                    assertThat(row.timestamp())
                                            .isEqualTo(
                                                    IcebergTestTables.BASE_MILLIS + row.offset()));
            // every (partition, offset) of the table once
            assertThat(out.rows.stream().map(r -> r.partition() + "@" + r.offset()).distinct())
                    .hasSize(120);
        }
    }

    @Test
    void startsInsideAFileAndDeliversNothingBelowItsStart() throws Exception {
        Table table = mixedTable();
        String split =
                TableHistorySplit.id("db.t", table.currentSnapshot().snapshotId(), List.of(TOPIC));
        Collecting out = new Collecting(Kind.REDPANDA);
        try (IcebergTableReader reader = reader(Kind.REDPANDA, 1_000)) {
            reader.addSplit(split, 55);
            assertThat(reader.position(split)).isEqualTo(55);
            readToEnd(reader, split, out);

            assertThat(out.rows)
                    .extracting(Delivered::position)
                    .containsExactlyElementsOf(range(55, 120));
        }
    }

    @Test
    void deletedRowsAreHolesAndTheFileEndMovesThePositionPastThem() throws Exception {
        Table table = IcebergTestTables.create(catalog, "db.t", Kind.KAFKA_CONNECT);
        List<Record> rows = new ArrayList<>();
        for (long o = 0; o < 10; o++) {
            rows.add(IcebergTestTables.row(Kind.KAFKA_CONNECT, table.schema(), TOPIC, 0, o, "v"));
        }
        List<DataFile> files = IcebergTestTables.append(table, rows);
        List<Record> more = new ArrayList<>();
        for (long o = 10; o < 15; o++) {
            more.add(IcebergTestTables.row(Kind.KAFKA_CONNECT, table.schema(), TOPIC, 0, o, "v"));
        }
        IcebergTestTables.append(table, more);
        IcebergTestTables.deletePositions(table, files.get(0), 3, 8, 9);
        table.refresh();
        String split =
                TableHistorySplit.id("db.t", table.currentSnapshot().snapshotId(), List.of(TOPIC));

        Collecting out = new Collecting(Kind.KAFKA_CONNECT);
        try (IcebergTableReader reader = reader(Kind.KAFKA_CONNECT, 6)) {
            reader.addSplit(split, 0);
            reader.poll(Duration.ofMillis(10), out);
            reader.poll(Duration.ofMillis(10), out);
            // the first file's live rows are 0-2, 4-7; its end moved the position to 10
            assertThat(out.rows)
                    .extracting(Delivered::position)
                    .containsExactly(0L, 1L, 2L, 4L, 5L, 6L, 7L, 10L, 11L, 12L, 13L, 14L);
            assertThat(out.rows)
                    .extracting(Delivered::offset)
                    .containsExactly(0L, 1L, 2L, 4L, 5L, 6L, 7L, 10L, 11L, 12L, 13L, 14L);
        }
    }

    @Test
    void rowsDeletedByEqualityAreHolesToo() throws Exception {
        Table table = IcebergTestTables.create(catalog, "db.t", Kind.KAFKA_CONNECT);
        List<Record> rows = new ArrayList<>();
        for (long o = 0; o < 10; o++) {
            rows.add(IcebergTestTables.row(Kind.KAFKA_CONNECT, table.schema(), TOPIC, 0, o, "v"));
        }
        IcebergTestTables.append(table, rows);
        IcebergTestTables.deleteEqual(table, rows.get(0), 0, 2, 9);
        table.refresh();
        String split =
                TableHistorySplit.id("db.t", table.currentSnapshot().snapshotId(), List.of(TOPIC));

        Collecting out = new Collecting(Kind.KAFKA_CONNECT);
        try (IcebergTableReader reader = reader(Kind.KAFKA_CONNECT, 100)) {
            reader.addSplit(split, 0);
            readToEnd(reader, split, out);
            assertThat(out.rows)
                    .extracting(Delivered::offset)
                    .containsExactly(0L, 1L, 3L, 4L, 5L, 6L, 7L, 8L);
            assertThat(reader.position(split)).isEqualTo(10);
        }
    }

    @Test
    void aPausedSplitDeliversNothingUntilResumed() throws Exception {
        Table table = mixedTable();
        String split =
                TableHistorySplit.id("db.t", table.currentSnapshot().snapshotId(), List.of(TOPIC));
        Collecting out = new Collecting(Kind.REDPANDA);
        try (IcebergTableReader reader = reader(Kind.REDPANDA, 10)) {
            reader.addSplit(split, 0);
            reader.poll(Duration.ofMillis(10), out);
            reader.pauseOrResumeSplits(List.of(split), List.of());
            reader.poll(Duration.ofMillis(10), out);
            assertThat(out.rows).hasSize(10);
            assertThat(reader.position(split)).isEqualTo(10);
            reader.pauseOrResumeSplits(List.of(), List.of(split));
            readToEnd(reader, split, out);
            assertThat(out.rows)
                    .extracting(Delivered::position)
                    .containsExactlyElementsOf(range(0, 120));
        }
    }

    /**
     * The parts of a history read side by side (issue 34, defect 2 for a table): one plan for all
     * of them, and each poll starts at another part, so that every part goes forward within as many
     * polls as there are parts, however much the first one has left (before, the first split took
     * every poll's rows until it ended, and a split that cannot go forward is taken for idle).
     */
    @Test
    void partsOfAHistoryShareOnePlanAndEachGoesForwardInTurn() throws Exception {
        Table table = mixedTable();
        String history =
                TableHistorySplit.id("db.t", table.currentSnapshot().snapshotId(), List.of(TOPIC));
        String[] parts = new String[3];
        Collecting out = new Collecting(Kind.REDPANDA);
        try (IcebergTableReader reader = reader(Kind.REDPANDA, 5)) {
            for (int i = 0; i < 3; i++) {
                parts[i] = TableHistorySplit.partId(history, i);
                reader.addSplit(parts[i], 40L * i);
            }
            for (int poll = 0; poll < 3; poll++) {
                reader.poll(Duration.ofMillis(10), out);
            }
            assertThat(reader.plannedSnapshots()).isEqualTo(1);
            assertThat(out.rows).hasSize(15);
            for (int i = 0; i < 3; i++) {
                assertThat(reader.position(parts[i]))
                        .as("part %d after three polls of 5 rows", i)
                        .isEqualTo(40L * i + 5);
            }
        }
    }

    @Test
    void chunksOfOneSnapshotShareOnePlanAndEachReadsItsOwnRange() throws Exception {
        Table table = mixedTable();
        String split =
                TableHistorySplit.id("db.t", table.currentSnapshot().snapshotId(), List.of(TOPIC));
        Collecting out = new Collecting(Kind.REDPANDA);
        try (IcebergTableReader reader = reader(Kind.REDPANDA, 1_000)) {
            reader.addSplit(split, 80);
            readToEnd(reader, split, out);
            reader.removeSplit(split);
            reader.addSplit(split, 40);
            reader.poll(Duration.ofMillis(10), out);
            assertThat(reader.plannedSnapshots()).isEqualTo(1);
            assertThat(out.rows.subList(0, 40))
                    .extracting(Delivered::position)
                    .containsExactlyElementsOf(range(80, 120));
            assertThat(out.rows.get(40).position()).isEqualTo(40);
        }
    }

    @Test
    void aSnapshotTheTableNoLongerHasFailsNamingItAndTheTable() throws Exception {
        Table table = mixedTable();
        long expired = table.snapshots().iterator().next().snapshotId();
        table.expireSnapshots().expireSnapshotId(expired).commit();
        try (IcebergTableReader reader = reader(Kind.REDPANDA, 10)) {
            assertThatThrownBy(
                            () ->
                                    reader.addSplit(
                                            TableHistorySplit.id("db.t", expired, List.of(TOPIC)),
                                            0))
                    .hasMessageContaining("snapshot " + expired + " of Iceberg table db.t")
                    .hasMessageContaining("no longer has");
        }
    }

    @Test
    void aMissingDataFileFailsNamingTheFileAndTheTable() throws Exception {
        Table table = mixedTable();
        String split =
                TableHistorySplit.id("db.t", table.currentSnapshot().snapshotId(), List.of(TOPIC));
        TableHistory history =
                TableHistory.plan(
                        table,
                        "db.t",
                        table.currentSnapshot().snapshotId(),
                        Kind.REDPANDA.layout,
                        List.of(TOPIC));
        String second = history.files().get(1).task().file().location();
        assertThat(new java.io.File(java.net.URI.create(second)).delete()).isTrue();
        try (IcebergTableReader reader = reader(Kind.REDPANDA, 1_000)) {
            reader.addSplit(split, 0);
            assertThatThrownBy(() -> readToEnd(reader, split, new Collecting(Kind.REDPANDA)))
                    .isInstanceOf(IOException.class)
                    .hasMessageContaining("Reading data file " + second)
                    .hasMessageContaining("Iceberg table db.t")
                    .hasMessageContaining("position 40");
        }
    }

    private static List<Long> range(long from, long to) {
        List<Long> values = new ArrayList<>();
        for (long v = from; v < to; v++) {
            values.add(v);
        }
        return values;
    }

    /**
     * Review s40 (change 2): a part's cursor does not stop at its part's end. In one poll the
     * cursor of part 0 reads on into the next part's file and delivers that part's rows under part
     * 0's id (the split reader drops them as past part 0's stop), spending the poll's budget on
     * them: part 1, whose turn the round-robin was to keep, gets nothing in that poll, and the next
     * file is opened and read for nothing at every part's end (and every chunk's end). Expected: no
     * row of part 0 at or past its end, and part 1 goes forward in the same poll.
     */
    @Test
    void aPartsCursorDeliversNothingPastItsPartsEnd() throws Exception {
        Kind kind = Kind.KAFKA_CONNECT; // a file per partition
        Table table = IcebergTestTables.create(catalog, "db.t", kind);
        List<Record> rows = new ArrayList<>();
        for (int p = 0; p < 2; p++) {
            for (long o = 0; o < 50; o++) {
                rows.add(IcebergTestTables.row(kind, table.schema(), TOPIC, p, o, "v"));
            }
        }
        IcebergTestTables.append(table, rows);
        table.refresh();
        long snapshot = table.currentSnapshot().snapshotId();
        TableHistory history =
                TableHistory.plan(table, "db.t", snapshot, kind.layout, List.of(TOPIC));
        assertThat(history.parts()).containsExactly(new long[] {0, 50}, new long[] {50, 100});
        String id = TableHistorySplit.id("db.t", snapshot, List.of(TOPIC));
        String part0 = TableHistorySplit.partId(id, 0);
        String part1 = TableHistorySplit.partId(id, 1);
        Map<String, List<Long>> bySplit = new java.util.TreeMap<>();
        LogRecordCollector<TableRow> out =
                (splitId, offset, timestamp, row) ->
                        bySplit.computeIfAbsent(splitId, k -> new ArrayList<>()).add(offset);
        try (IcebergTableReader reader = reader(kind, 60)) {
            reader.addSplit(part0, 0);
            reader.addSplit(part1, 50);
            reader.poll(Duration.ofMillis(10), out);
            assertThat(bySplit.get(part0))
                    .as("positions delivered for part 0 [0, 50)")
                    .allMatch(position -> position < 50);
            assertThat(bySplit.get(part1)).as("part 1 in the same poll").isNotEmpty();
        }
    }

    /**
     * A file system whose input streams' close throws what {@link #FAILURE} supplies, if set;
     * counts the streams opened and closed (the catalog makes it by name, {@code io-impl}).
     */
    public static final class CloseFailingFileIO extends HadoopFileIO {
        static final AtomicReference<Supplier<Throwable>> FAILURE = new AtomicReference<>();
        static final AtomicInteger OPENED = new AtomicInteger();
        static final AtomicInteger CLOSED = new AtomicInteger();

        @Override
        public InputFile newInputFile(String path) {
            return failingToClose(super.newInputFile(path));
        }

        @Override
        public InputFile newInputFile(String path, long length) {
            return failingToClose(super.newInputFile(path, length));
        }

        private static InputFile failingToClose(InputFile file) {
            return new InputFile() {
                @Override
                public long getLength() {
                    return file.getLength();
                }

                @Override
                public SeekableInputStream newStream() {
                    SeekableInputStream stream = file.newStream();
                    OPENED.incrementAndGet();
                    return new SeekableInputStream() {
                        private boolean closed;

                        @Override
                        public long getPos() throws IOException {
                            return stream.getPos();
                        }

                        @Override
                        public void seek(long newPos) throws IOException {
                            stream.seek(newPos);
                        }

                        @Override
                        public int read() throws IOException {
                            return stream.read();
                        }

                        @Override
                        public int read(byte[] b, int off, int len) throws IOException {
                            return stream.read(b, off, len);
                        }

                        @Override
                        public void close() throws IOException {
                            stream.close();
                            if (!closed) {
                                // (a stream may be closed twice: counted once)
                                closed = true;
                                CLOSED.incrementAndGet();
                            }
                            Supplier<Throwable> failure = FAILURE.get();
                            if (failure != null) {
                                Throwable t = failure.get();
                                if (t instanceof IOException) {
                                    throw (IOException) t;
                                }
                                if (t instanceof RuntimeException) {
                                    throw (RuntimeException) t;
                                }
                                throw (Error) t;
                            }
                        }
                    };
                }

                @Override
                public String location() {
                    return file.location();
                }

                @Override
                public boolean exists() {
                    return file.exists();
                }
            };
        }
    }

    /**
     * A reader over {@link CloseFailingFileIO} with one split per snapshot of {@link #mixedTable},
     * each split in the middle of its first file (40 rows each, read in batches: each file holds
     * its zstd context).
     */
    private IcebergTableReader readerWithThreeOpenFiles() throws Exception {
        Table table = mixedTable();
        List<Long> snapshots = new ArrayList<>();
        table.snapshots().forEach(snapshot -> snapshots.add(snapshot.snapshotId()));
        assertThat(snapshots).hasSize(3);
        Map<String, String> failing = new HashMap<>(properties);
        failing.put("io-impl", CloseFailingFileIO.class.getName());
        CloseFailingFileIO.FAILURE.set(null);
        CloseFailingFileIO.OPENED.set(0);
        CloseFailingFileIO.CLOSED.set(0);
        IcebergTableReader reader =
                new IcebergTableReader(
                        new IcebergTableRef("local", failing, "db.t"),
                        new RowColumns(Kind.REDPANDA.layout, TOPIC),
                        List.of(TOPIC),
                        5,
                        null,
                        TableFiles.ValuesFrom.KAFKA_VALUES);
        for (long snapshot : snapshots) {
            reader.addSplit(TableHistorySplit.id("db.t", snapshot, List.of(TOPIC)), 0);
        }
        Collecting out = new Collecting(Kind.REDPANDA);
        Set<String> splitsRead = new HashSet<>();
        for (int polls = 0; out.rows.size() < 15; polls++) {
            assertThat(polls).as("polls until every split read a row").isLessThan(100);
            reader.poll(
                    Duration.ofMillis(10),
                    (split, offset, timestamp, row) -> {
                        splitsRead.add(split);
                        out.collect(split, offset, timestamp, row);
                    });
        }
        assertThat(splitsRead).as("each split read").hasSize(3);
        assertThat(CloseFailingFileIO.OPENED.get() - CloseFailingFileIO.CLOSED.get())
                .as("files open")
                .isGreaterThanOrEqualTo(3);
        return reader;
    }

    /** Closes {@code reader} while every stream's close throws what {@code failure} supplies. */
    private static Throwable closeFailing(IcebergTableReader reader, Supplier<Throwable> failure) {
        CloseFailingFileIO.FAILURE.set(failure);
        try {
            return catchThrowable(reader::close);
        } finally {
            CloseFailingFileIO.FAILURE.set(null);
        }
    }

    @AfterEach
    void noCloseFailure() {
        CloseFailingFileIO.FAILURE.set(null);
    }

    /**
     * The reader closed with three splits each in the middle of a file, every close failing: every
     * file is closed all the same, and the first failure is thrown.
     */
    @Test
    void closingClosesEveryOpenFileWhenOneFailsToClose() throws Exception {
        IcebergTableReader reader = readerWithThreeOpenFiles();

        Throwable thrown = closeFailing(reader, () -> new IOException("closing failed"));

        assertThat(thrown).isInstanceOf(IOException.class).hasMessage("closing failed");
        assertThat(CloseFailingFileIO.CLOSED.get())
                .as("streams closed of those opened")
                .isEqualTo(CloseFailingFileIO.OPENED.get());
    }

    /**
     * A file whose close throws an {@link Error} (a class gone from a closed user-code class
     * loader): the other splits' files are closed too, and the error is thrown.
     */
    @Test
    void anErrorClosingOneFileStillClosesTheOtherSplitsFiles() throws Exception {
        IcebergTableReader reader = readerWithThreeOpenFiles();

        Throwable thrown =
                closeFailing(
                        reader,
                        () -> new NoClassDefFoundError("org/example/Gone (class loader closed)"));

        assertThat(thrown).isInstanceOf(NoClassDefFoundError.class);
        assertThat(CloseFailingFileIO.CLOSED.get())
                .as("streams closed of those opened")
                .isEqualTo(CloseFailingFileIO.OPENED.get());
    }

    /**
     * Every close throws one and the same exception (a stream rethrowing a failure it keeps, a
     * shared client's): that exception is thrown ({@link Throwable#addSuppressed} of an exception
     * into itself would throw instead), and every file is closed.
     */
    @Test
    void oneAndTheSameFailureFromEveryCloseIsThrownAndEveryFileClosed() throws Exception {
        IcebergTableReader reader = readerWithThreeOpenFiles();
        IOException shared = new IOException("the file system is gone");

        Throwable thrown = closeFailing(reader, () -> shared);

        assertThat(thrown).isSameAs(shared);
        assertThat(CloseFailingFileIO.CLOSED.get())
                .as("streams closed of those opened")
                .isEqualTo(CloseFailingFileIO.OPENED.get());
    }

    /**
     * A job restored without ordered mode from a checkpoint of ordered mode: the partitions' splits
     * carry the pinned snapshot as their history version; the error names the split and the option.
     */
    @Test
    void anOrderedModeSplitFailsNamingTheOrderedOption() throws Exception {
        try (IcebergTableReader reader = reader(Kind.KAFKA_CONNECT, 100)) {
            assertThatThrownBy(() -> reader.addSplit("orders-0", 5, "4711"))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("orders-0")
                    .hasMessageContaining("snapshot 4711")
                    .hasMessageContaining("'backfill.iceberg.ordered' = 'true'");
        }
    }
}
