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
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * {@link IcebergTableReader#close()} with three splits each in the middle of a file, where closing
 * a file fails with something other than a plain, fresh {@link Exception}: an {@link Error}, or one
 * and the same exception instance from every close.
 */
class IcebergTableReaderCloseOnErrorOrSharedFailureTest {

    private static final String TOPIC = "orders";

    @TempDir Path warehouse;
    private Map<String, String> properties;
    private Catalog catalog;

    /** A file system whose input streams' close throws what {@link #FAILURE} supplies, if set. */
    public static final class FailingCloseFileIO extends HadoopFileIO {
        static final AtomicReference<Supplier<Throwable>> FAILURE = new AtomicReference<>();
        static final AtomicInteger OPENED = new AtomicInteger();
        static final AtomicInteger CLOSED = new AtomicInteger();

        @Override
        public InputFile newInputFile(String path) {
            return wrap(super.newInputFile(path));
        }

        @Override
        public InputFile newInputFile(String path, long length) {
            return wrap(super.newInputFile(path, length));
        }

        private static InputFile wrap(InputFile file) {
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

    @BeforeEach
    void openCatalog() {
        properties = IcebergTestTables.hadoopCatalog(warehouse);
        catalog = IcebergTestTables.open("local", properties);
        FailingCloseFileIO.FAILURE.set(null);
        FailingCloseFileIO.OPENED.set(0);
        FailingCloseFileIO.CLOSED.set(0);
    }

    @AfterEach
    void noFailure() {
        FailingCloseFileIO.FAILURE.set(null);
    }

    /** Three snapshots of one file each more: 40 rows a file. */
    private Table mixedTable() {
        Table table = IcebergTestTables.create(catalog, "db.t", Kind.REDPANDA);
        for (int file = 0; file < 3; file++) {
            List<Record> rows = new ArrayList<>();
            for (long i = 0; i < 40; i++) {
                rows.add(
                        IcebergTestTables.row(
                                Kind.REDPANDA,
                                table.schema(),
                                TOPIC,
                                (int) (i % 4),
                                file * 10 + i / 4,
                                "v"));
            }
            IcebergTestTables.append(table, rows);
        }
        table.refresh();
        return table;
    }

    /** A reader with one split per snapshot, each split in the middle of its first file. */
    private IcebergTableReader readerWithThreeOpenFiles() throws Exception {
        Table table = mixedTable();
        List<Long> snapshots = new ArrayList<>();
        table.snapshots().forEach(snapshot -> snapshots.add(snapshot.snapshotId()));
        assertThat(snapshots).hasSize(3);
        Map<String, String> failing = new HashMap<>(properties);
        failing.put("io-impl", FailingCloseFileIO.class.getName());
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
        List<String> delivered = new ArrayList<>();
        for (int polls = 0; delivered.size() < 15; polls++) {
            assertThat(polls).as("polls until every split read a row").isLessThan(100);
            reader.poll(
                    Duration.ofMillis(10), (split, offset, timestamp, row) -> delivered.add(split));
        }
        assertThat(new HashSet<>(delivered)).as("each split read").hasSize(3);
        return reader;
    }

    /**
     * A file whose close throws an {@link Error} (a class gone from a closed user-code class
     * loader): the other splits' files are left open (each holding its zstd context), unlike with
     * an exception.
     */
    @Test
    void anErrorClosingOneFileStillClosesTheOtherSplitsFiles() throws Exception {
        IcebergTableReader reader = readerWithThreeOpenFiles();
        assertThat(FailingCloseFileIO.OPENED.get() - FailingCloseFileIO.CLOSED.get())
                .isGreaterThanOrEqualTo(3);

        FailingCloseFileIO.FAILURE.set(
                () -> new NoClassDefFoundError("org/example/Gone (class loader closed)"));
        Throwable thrown = catchThrowable(reader::close);
        FailingCloseFileIO.FAILURE.set(null);

        assertThat(thrown).isInstanceOf(NoClassDefFoundError.class);
        assertThat(FailingCloseFileIO.CLOSED.get())
                .as("streams closed of those opened")
                .isEqualTo(FailingCloseFileIO.OPENED.get());
    }

    /**
     * Every close throws one and the same exception (a stream rethrowing a failure it keeps, a
     * shared client's): {@link Throwable#addSuppressed} of an exception into itself throws, so the
     * reader's close throws an {@link IllegalArgumentException} instead, and the third split's file
     * is left open.
     */
    @Test
    void oneAndTheSameFailureFromEveryCloseIsThrownAndEveryFileClosed() throws Exception {
        IcebergTableReader reader = readerWithThreeOpenFiles();
        IOException shared = new IOException("the file system is gone");

        FailingCloseFileIO.FAILURE.set(() -> shared);
        Throwable thrown = catchThrowable(reader::close);
        FailingCloseFileIO.FAILURE.set(null);

        assertThat(thrown).isSameAs(shared);
        assertThat(FailingCloseFileIO.CLOSED.get())
                .as("streams closed of those opened")
                .isEqualTo(FailingCloseFileIO.OPENED.get());
    }
}
