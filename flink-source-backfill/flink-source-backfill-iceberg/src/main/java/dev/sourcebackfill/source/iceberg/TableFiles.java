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

import org.apache.flink.annotation.Internal;
import org.apache.flink.annotation.VisibleForTesting;

import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.PartitionField;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SystemConfigs;
import org.apache.iceberg.data.GenericDeleteFilter;
import org.apache.iceberg.data.IdentityPartitionConverters;
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetReaders;
import org.apache.iceberg.encryption.NativeEncryptionInputFile;
import org.apache.iceberg.expressions.Evaluator;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.hadoop.HadoopInputFile;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.mapping.NameMapping;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.parquet.ParquetValueReader;
import org.apache.iceberg.parquet.VectorizedParquetReader;
import org.apache.iceberg.parquet.VectorizedReader;
import org.apache.iceberg.types.TypeUtil;
import org.apache.iceberg.util.PartitionUtil;
import org.apache.parquet.HadoopReadOptions;
import org.apache.parquet.ParquetReadOptions;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.io.DelegatingSeekableInputStream;
import org.apache.parquet.schema.MessageType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.annotation.Nullable;

import java.io.Closeable;
import java.io.IOException;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Optional;
import java.util.function.Function;

/**
 * Reads a table's data files as Iceberg's generic records, with Iceberg's own Parquet readers and
 * delete filter: the rows a reader of the table sees, each with its position in its file ({@code
 * _pos}). Parquet only: the writers this adapter knows write Parquet.
 */
@Internal
final class TableFiles {

    private static final Logger LOG = LoggerFactory.getLogger(TableFiles.class);

    private final FileIO io;
    private final String table;

    TableFiles(FileIO io, String table) {
        this.io = io;
        this.table = table;
    }

    /**
     * The file's rows as the snapshot has them: deleted rows left out (position and equality
     * deletes), rows the scan's filter excludes left out, every column of {@code schema} and {@code
     * _pos}.
     */
    CloseableIterable<Record> readRows(FileScanTask task, Schema schema) {
        return readRows(task, schema, Expressions.alwaysTrue());
    }

    /**
     * The file's rows as {@link #readRows(FileScanTask, Schema)} reads them, in the row groups that
     * {@code rowGroups} may match (by their statistics): it skips row groups, never single rows (a
     * caller that filters rows checks each row itself).
     */
    CloseableIterable<Record> readRows(FileScanTask task, Schema schema, Expression rowGroups) {
        return readRows(task, schema, rowGroups, 0);
    }

    /**
     * The file's rows as {@link #readRows(FileScanTask, Schema, Expression)} reads them, from the
     * row group holding row {@code fromRow} of the file on where the footer allows it ({@link
     * #rowGroupStart}; each row's {@code _pos} is still its position in the file, and the deletes
     * apply by it), else from the file's first row: rows before {@code fromRow} may come either
     * way.
     */
    private CloseableIterable<Record> readRows(
            FileScanTask task, Schema schema, Expression rowGroups, long fromRow) {
        checkFormat(task);
        Schema projection = TypeUtil.join(schema, new Schema(MetadataColumns.ROW_POSITION));
        GenericDeleteFilter deletes = new GenericDeleteFilter(io, task, schema, projection);
        Schema readSchema = deletes.requiredSchema();
        Map<Integer, ?> constants =
                PartitionUtil.constantsMap(task, IdentityPartitionConverters::convertConstant);
        InputFile file = io.newInputFile(task.file());
        Parquet.ReadBuilder builder = Parquet.read(file);
        long start = rowGroupStart(task, file, fromRow);
        if (start > 0) {
            builder.split(start, Long.MAX_VALUE - start);
        }
        CloseableIterable<Record> rows =
                builder.project(readSchema)
                        .filter(
                                task.residual() == null
                                        ? rowGroups
                                        : Expressions.and(task.residual(), rowGroups))
                        .createReaderFunc(
                                fileSchema ->
                                        GenericParquetReaders.buildReader(
                                                readSchema, fileSchema, constants))
                        .build();
        return filtered(deletes.filter(rows), task.residual(), readSchema);
    }

    /** What the source's values are made of: what of each row is read. */
    enum ValuesFrom {
        /** The user's mapper: the whole row, as Iceberg's generic record. */
        ROWS,
        /** The topic's deserializer: the Kafka record a row keeps (key, value, headers). */
        KAFKA_RECORDS,
        /** The topic's value-only deserializer: the Kafka record without key and headers. */
        KAFKA_VALUES
    }

    /**
     * A file's rows, one at a time: each row's position in its file, and, asked for, its Kafka
     * record as a {@link TableRow} (read of the row only then: rows skipped are never read).
     */
    interface FileRows extends Closeable {
        boolean hasNext();

        /** Moves to the next row; returns its position in the file. */
        long next();

        /**
         * The row {@link #next} moved to; fails, as {@link RowColumns}, if a Kafka column is null.
         */
        TableRow row();

        /** Whether the rows come a batch at a time ({@link ColumnBatchReader}). */
        @VisibleForTesting
        default boolean readInBatches() {
            return false;
        }

        /**
         * The codecs of a batched read's pages, where they are the adapter's {@link PageCodecs}.
         */
        @VisibleForTesting
        @Nullable
        default PageCodecs pageCodecs() {
            return null;
        }
    }

    /**
     * The file's rows as the snapshot has them (as {@link #readRows(FileScanTask, Schema)}). Where
     * the live topic's deserializer makes the values ({@code from} is not {@link ValuesFrom#ROWS}),
     * a file without deletes read without a filter is read by {@link TableRowReader}: its Kafka
     * records' columns only, without Iceberg's generic records, positions counted; other files by
     * Iceberg's generic reader and delete filter, each row's position read ({@code _pos}).
     */
    FileRows readTableRows(FileScanTask task, Schema schema, RowColumns columns, ValuesFrom from) {
        return readTableRows(task, schema, columns, from, 0);
    }

    /**
     * The file's rows as {@link #readTableRows(FileScanTask, Schema, RowColumns, ValuesFrom)} reads
     * them, for a caller that wants them from row {@code fromRow} of the file on (its position in
     * the file): from the row group holding that row, the row groups before it not read at all,
     * where the footer allows it ({@link #rowGroupStart}), by the adapter's readers and Iceberg's
     * generic reader alike; otherwise from the file's first row. Rows before {@code fromRow} may
     * come either way: the caller skips them.
     */
    FileRows readTableRows(
            FileScanTask task, Schema schema, RowColumns columns, ValuesFrom from, long fromRow) {
        checkFormat(task);
        KafkaRead read = adaptersRead(task, schema, columns, from);
        if (read == null) {
            return new GenericRows(
                    readRows(task, schema, Expressions.alwaysTrue(), fromRow), columns);
        }
        if (read.columns().readsHeaders()) {
            return rowByRow(task, read, columns, fromRow);
        }
        return new BatchRows(
                batches(task, read, fromRow),
                read.columns(),
                () -> rowByRow(task, read, columns, fromRow),
                task,
                fromRow);
    }

    /**
     * How the adapter's readers read the file; {@code null} where Iceberg's generic reader and
     * delete filter read it: a mapper makes the values, or the file has deletes, or it is read with
     * a filter, or a column read is an identity partition column, or the layout's columns are of
     * types the adapter's readers do not read.
     */
    @Nullable
    private KafkaRead adaptersRead(
            FileScanTask task, Schema schema, RowColumns columns, ValuesFrom from) {
        boolean unfiltered =
                task.residual() == null || task.residual().equals(Expressions.alwaysTrue());
        if (from == ValuesFrom.ROWS || !task.deletes().isEmpty() || !unfiltered) {
            return null;
        }
        KafkaRead read = kafkaRead(schema, columns, from);
        return read == null || identityPartitioned(task, read.projection()) ? null : read;
    }

    /**
     * A file's column batches, and the codecs its pages are decompressed with (if the adapter's).
     */
    private record Batches(
            CloseableIterable<ColumnBatchReader.RowBatch> batches, @Nullable PageCodecs codecs) {}

    /**
     * The file's column batches: Iceberg's {@link VectorizedParquetReader} with the read options
     * {@link Parquet.ReadBuilder} gives it, and {@link PageCodecs} for the pages. A natively
     * encrypted file is read through {@link Parquet.ReadBuilder} itself (its decryption), with
     * Parquet's own codecs.
     */
    private Batches batches(FileScanTask task, KafkaRead read, long fromRow) {
        InputFile file = io.newInputFile(task.file());
        Function<MessageType, VectorizedReader<?>> reader =
                fileSchema ->
                        ColumnBatchReader.forFile(read.projection(), fileSchema, read.columns());
        if (file instanceof NativeEncryptionInputFile) {
            return new Batches(
                    Parquet.read(file)
                            .project(read.projection())
                            .createBatchedReaderFunc(reader)
                            .recordsPerBatch(ColumnBatchReader.BATCH_SIZE)
                            .reuseContainers()
                            .build(),
                    null);
        }
        ParquetReadOptions.Builder options = readOptions(file);
        long start = rowGroupStart(task, file, fromRow);
        if (start > 0) {
            // the row groups from the one holding the row on (Parquet keeps those whose middle is
            // in the range)
            options.withRange(start, Long.MAX_VALUE);
        }
        // the builder made Parquet's codec factory from the configuration; it decompresses what is
        // not ZSTD
        PageCodecs codecs = new PageCodecs(options.build().getCodecFactory());
        options.withCodecFactory(codecs);
        return new Batches(
                new VectorizedParquetReader<>(
                        file,
                        read.projection(),
                        options.build(),
                        reader,
                        // as Iceberg's read builder: no mapping unless the unsafe position fallback
                        // is on
                        SystemConfigs.NETFLIX_UNSAFE_PARQUET_ID_FALLBACK_ENABLED.value()
                                ? null
                                : NameMapping.empty(),
                        null,
                        true,
                        true,
                        ColumnBatchReader.BATCH_SIZE),
                codecs);
    }

    /** The options of a read of {@code file}, as Iceberg's read builder gives them. */
    private static ParquetReadOptions.Builder readOptions(InputFile file) {
        ParquetReadOptions.Builder options;
        if (file instanceof HadoopInputFile) {
            // as Iceberg's read builder: the file system's configuration, without the read
            // settings of another read
            Configuration conf = new Configuration(((HadoopInputFile) file).getConf());
            for (String property : OTHER_READS_PROPERTIES) {
                conf.unset(property);
            }
            options = HadoopReadOptions.builder(conf);
        } else {
            options = ParquetReadOptions.builder(new PlainParquetConfiguration());
        }
        options.withUseHadoopVectoredIo(true);
        return options;
    }

    /**
     * Where a read of the file from row {@code row} on can start: the first byte of the row group
     * holding that row, as its footer says, where Parquet's filter of the byte range from there
     * keeps that row group and every one after it; otherwise 0, the file read from its start (the
     * rows below {@code row} skipped by the caller). 0 also for the file's first row group, for a
     * row at or past the footer's rows (a manifest counting more rows than the file has), and for a
     * natively encrypted file (its footer is read by Iceberg's read alone). Reads the footer twice
     * unless it returns 0 early.
     */
    private long rowGroupStart(FileScanTask task, InputFile file, long row) {
        if (row <= 0 || file instanceof NativeEncryptionInputFile) {
            return 0;
        }
        List<BlockMetaData> groups = rowGroups(task, file, 0);
        long first = 0;
        long start = 0;
        for (BlockMetaData group : groups) {
            if (row < first + group.getRowCount()) {
                start = first == 0 ? 0 : group.getStartingPos();
                break;
            }
            first += group.getRowCount();
        }
        if (start <= 0) {
            return 0;
        }
        // Parquet keeps the row groups whose middle, as it reckons it from the footer's offsets,
        // is in the range; a writer's footer can make it reckon otherwise (a dictionary page
        // offset of 0 where the column has no dictionary, PARQUET-1547) and drop the row group
        // holding the row: the range is used only where the same filter of the same footer keeps
        // a run of row groups from one at or below the row to the file's last
        long rows = groups.stream().mapToLong(BlockMetaData::getRowCount).sum();
        List<BlockMetaData> kept = rowGroups(task, file, start);
        long next = kept.isEmpty() ? Long.MAX_VALUE : kept.get(0).getRowIndexOffset();
        boolean keptToTheEnd = next >= 0 && next <= row;
        for (BlockMetaData group : kept) {
            keptToTheEnd &= group.getRowIndexOffset() == next;
            next += group.getRowCount();
        }
        if (keptToTheEnd && next == rows) {
            return start;
        }
        LOG.info(
                "Data file {} of Iceberg table {} is read from its start for its row {}: Parquet's filter of the byte range from {} keeps other row groups than those from the row's on",
                task.file().location(),
                table,
                row,
                start);
        return 0;
    }

    /**
     * The first row of each of the file's row groups after the first, in the file's order, as its
     * footer says (where a read can start without reading the rows before); none for a natively
     * encrypted file.
     */
    long[] rowGroupFirstRows(FileScanTask task) {
        checkFormat(task);
        InputFile file = io.newInputFile(task.file());
        if (file instanceof NativeEncryptionInputFile) {
            return new long[0];
        }
        List<BlockMetaData> groups = rowGroups(task, file, 0);
        long[] firstRows = new long[Math.max(0, groups.size() - 1)];
        long first = 0;
        for (int i = 0; i < firstRows.length; i++) {
            first += groups.get(i).getRowCount();
            firstRows[i] = first;
        }
        return firstRows;
    }

    /**
     * The file's row groups, as its footer lists them: all of them, or those Parquet's filter of
     * the byte range from {@code rangeStart} (above 0) on keeps, each with its first row's index.
     */
    private List<BlockMetaData> rowGroups(FileScanTask task, InputFile file, long rangeStart) {
        ParquetReadOptions.Builder options = readOptions(file);
        if (rangeStart > 0) {
            options.withRange(rangeStart, Long.MAX_VALUE);
        }
        try (ParquetFileReader footer =
                ParquetFileReader.open(new ParquetInputFile(file), options.build())) {
            return footer.getRowGroups();
        } catch (IOException | RuntimeException e) {
            String message =
                    String.format(
                            "Reading the footer of data file %s of Iceberg table %s failed: %s",
                            task.file().location(), table, e.getMessage());
            if (e instanceof IOException) {
                throw new java.io.UncheckedIOException(message, (IOException) e);
            }
            throw new IllegalStateException(message, e);
        }
    }

    /**
     * Fails unless a read meant to start at row {@code fromRow} of the file started at or before
     * it: its first row is {@code firstRow}.
     */
    private void checkStart(FileScanTask task, long firstRow, long fromRow) {
        if (firstRow > fromRow) {
            throw new IllegalStateException(
                    String.format(
                            "Data file %s of Iceberg table %s was to be read from row %d, but its read started at row %d: the rows between would be lost",
                            task.file().location(), table, fromRow, firstRow));
        }
    }

    /** An Iceberg file as Parquet reads one (for its footer). */
    private static final class ParquetInputFile implements org.apache.parquet.io.InputFile {
        private final InputFile file;

        ParquetInputFile(InputFile file) {
            this.file = file;
        }

        @Override
        public long getLength() {
            return file.getLength();
        }

        @Override
        public org.apache.parquet.io.SeekableInputStream newStream() {
            org.apache.iceberg.io.SeekableInputStream stream = file.newStream();
            return new DelegatingSeekableInputStream(stream) {
                @Override
                public long getPos() throws IOException {
                    return stream.getPos();
                }

                @Override
                public void seek(long newPos) throws IOException {
                    stream.seek(newPos);
                }
            };
        }
    }

    /** The read settings Iceberg's read builder removes from a file system's configuration. */
    private static final List<String> OTHER_READS_PROPERTIES =
            List.of(
                    "parquet.read.filter",
                    "parquet.private.read.filter.predicate",
                    "parquet.read.support.class",
                    "parquet.crypto.factory.class");

    /**
     * The file read by {@link TableRowReader}, a row at a time, from the row group holding row
     * {@code fromRow} on.
     */
    private FileRows rowByRow(FileScanTask task, KafkaRead read, RowColumns columns, long fromRow) {
        InputFile file = io.newInputFile(task.file());
        Parquet.ReadBuilder builder = Parquet.read(file);
        long start = rowGroupStart(task, file, fromRow);
        if (start > 0) {
            builder.split(start, Long.MAX_VALUE - start);
        }
        CloseableIterable<Object> rows =
                builder.project(read.projection())
                        .createReaderFunc(fileSchema -> rawReader(task, read, fileSchema))
                        .build();
        return new KafkaRecordRows(
                rows, read.columns(), columns, first -> checkStart(task, first, fromRow));
    }

    /** The columns {@link TableRowReader} reads of a table schema, and how. */
    private record KafkaRead(Schema projection, TableRowReader.Columns columns) {}

    /**
     * The Kafka read of each table schema (by identity: a history's schema is one object) and what
     * is read; empty where the layout's columns are of types {@link TableRowReader} does not read.
     */
    private final Map<Schema, Map<ValuesFrom, Optional<KafkaRead>>> kafkaReads =
            new IdentityHashMap<>();

    /** Planned once per schema and what is read; {@code null}: the generic reader reads it. */
    @Nullable
    private KafkaRead kafkaRead(Schema schema, RowColumns columns, ValuesFrom from) {
        return kafkaReads
                .computeIfAbsent(schema, s -> new EnumMap<>(ValuesFrom.class))
                .computeIfAbsent(from, f -> planKafkaRead(schema, columns, f))
                .orElse(null);
    }

    private Optional<KafkaRead> planKafkaRead(Schema schema, RowColumns columns, ValuesFrom from) {
        Schema projection =
                TableRowReader.projection(
                        schema, columns.layout(), from == ValuesFrom.KAFKA_RECORDS);
        try {
            return Optional.of(
                    new KafkaRead(
                            projection,
                            new TableRowReader.Columns(
                                    projection, columns.layout(), columns.onlyTopic())));
        } catch (TableRowReader.Unsupported e) {
            LOG.info(
                    "Iceberg table {} is read with Iceberg's generic reader: {}",
                    table,
                    e.getMessage());
            return Optional.empty();
        }
    }

    /**
     * Whether a column read is an identity partition column of the file's spec: a file may then
     * lack it (a file added from elsewhere), its value the partition's, which the generic reader
     * fills in.
     */
    private static boolean identityPartitioned(FileScanTask task, Schema projection) {
        for (PartitionField field : task.spec().fields()) {
            if (field.transform().isIdentity() && projection.findField(field.sourceId()) != null) {
                return true;
            }
        }
        return false;
    }

    /**
     * {@link TableRowReader} for the file, or, if it cannot read it (a column stored otherwise than
     * it reads), Iceberg's generic reader of the same columns.
     */
    private ParquetValueReader<?> rawReader(
            FileScanTask task, KafkaRead read, MessageType fileSchema) {
        try {
            return TableRowReader.build(read.projection(), fileSchema, read.columns());
        } catch (TableRowReader.Unsupported e) {
            LOG.info(
                    "Data file {} of Iceberg table {} is read with Iceberg's generic reader: {}",
                    task.file().location(),
                    table,
                    e.getMessage());
            // with each row's position: a read of a byte range starts at a later row group
            return GenericParquetReaders.buildReader(
                    TypeUtil.join(read.projection(), new Schema(MetadataColumns.ROW_POSITION)),
                    fileSchema);
        }
    }

    /** A file's rows as an iterable gives them, each with its position. */
    private abstract static class IteratedRows<R> implements FileRows {
        private final CloseableIterable<R> rows;
        @Nullable private Iterator<R> iterator;
        @Nullable R current;

        IteratedRows(CloseableIterable<R> rows) {
            this.rows = rows;
        }

        /** The position of {@code row}, the row {@link #next} just moved to. */
        abstract long positionOf(R row);

        @Override
        public boolean hasNext() {
            if (iterator == null) {
                iterator = rows.iterator();
            }
            return iterator.hasNext();
        }

        @Override
        public long next() {
            if (!hasNext()) {
                throw new NoSuchElementException();
            }
            current = iterator.next();
            return positionOf(current);
        }

        @Override
        public void close() throws IOException {
            rows.close();
        }
    }

    /**
     * Rows read by {@link TableRowReader} (or, file by file, by the generic reader): none skipped,
     * each with its position in the file as the reader read it (a read of a byte range starts at a
     * later row group).
     */
    private static final class KafkaRecordRows extends IteratedRows<Object> {
        private final TableRowReader.Columns kafkaColumns;
        private final RowColumns columns;
        private final java.util.function.LongConsumer checkFirst;
        private boolean started;

        /**
         * @param checkFirst checks the position of the first row read
         */
        KafkaRecordRows(
                CloseableIterable<Object> rows,
                TableRowReader.Columns kafkaColumns,
                RowColumns columns,
                java.util.function.LongConsumer checkFirst) {
            super(rows);
            this.kafkaColumns = kafkaColumns;
            this.columns = columns;
            this.checkFirst = checkFirst;
        }

        @Override
        long positionOf(Object row) {
            long position =
                    row instanceof Record
                            ? columns.position((Record) row)
                            : ((TableRowReader.RowParts) row).position;
            if (!started) {
                started = true;
                checkFirst.accept(position);
            }
            return position;
        }

        @Override
        public TableRow row() {
            return current instanceof Record
                    ? TableRow.read(columns, (Record) current)
                    : kafkaColumns.row((TableRowReader.RowParts) current);
        }
    }

    /**
     * Rows read by {@link ColumnBatchReader} a batch at a time, none skipped, their positions
     * counted; or, if it refuses the file (its first batch throws {@link
     * TableRowReader.Unsupported}), the rows of the file read row by row.
     */
    private final class BatchRows implements FileRows {
        private final CloseableIterable<ColumnBatchReader.RowBatch> batches;
        @Nullable private final PageCodecs codecs;
        private final TableRowReader.Columns kafkaColumns;
        private final java.util.function.Supplier<FileRows> rowByRow;
        private final FileScanTask task;
        @Nullable private Iterator<ColumnBatchReader.RowBatch> iterator;
        @Nullable private ColumnBatchReader.RowBatch batch;
        private int index;

        /** The row to read from; the first row read must not be after it. */
        private final long fromRow;

        private boolean started;

        /** The row-by-row read of the file, once the batches refused it. */
        @Nullable private FileRows instead;

        /** Whether the batches' file is closed (once the batches refused it, or at the end). */
        private boolean closed;

        BatchRows(
                Batches batches,
                TableRowReader.Columns kafkaColumns,
                java.util.function.Supplier<FileRows> rowByRow,
                FileScanTask task,
                long fromRow) {
            this.batches = batches.batches();
            this.fromRow = fromRow;
            this.codecs = batches.codecs();
            this.kafkaColumns = kafkaColumns;
            this.rowByRow = rowByRow;
            this.task = task;
        }

        @Override
        public boolean hasNext() {
            if (instead != null) {
                return instead.hasNext();
            }
            if (batch != null && index + 1 < batch.size()) {
                return true;
            }
            if (iterator == null) {
                iterator = batches.iterator();
            }
            return iterator.hasNext();
        }

        @Override
        public long next() {
            if (instead != null) {
                return instead.next();
            }
            if (batch == null || index + 1 >= batch.size()) {
                if (!hasNext()) {
                    throw new NoSuchElementException();
                }
                ColumnBatchReader.RowBatch next;
                try {
                    // a row group without rows is a batch without rows; a row is still to come
                    // (the iterator has one while it has rows left)
                    do {
                        next = iterator.next();
                    } while (next.size() == 0);
                } catch (TableRowReader.Unsupported e) {
                    if (started) {
                        throw e;
                    }
                    readRowByRow(e);
                    return instead.next();
                }
                batch = next;
                index = 0;
                if (!started) {
                    started = true;
                    checkStart(task, batch.firstRow(), fromRow);
                }
            } else {
                index++;
            }
            return batch.firstRow() + index;
        }

        private void readRowByRow(TableRowReader.Unsupported reason) {
            LOG.info(
                    "Data file {} of Iceberg table {} is read a row at a time: {}",
                    task.file().location(),
                    table,
                    reason.getMessage());
            closed = true;
            try {
                batches.close();
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
            instead = rowByRow.get();
        }

        @Override
        public boolean readInBatches() {
            return instead == null;
        }

        @Override
        @Nullable
        public PageCodecs pageCodecs() {
            return codecs;
        }

        @Override
        public TableRow row() {
            if (instead != null) {
                return instead.row();
            }
            return kafkaColumns.row(batch, index);
        }

        @Override
        public void close() throws IOException {
            try {
                if (!closed) {
                    closed = true;
                    batches.close();
                }
            } finally {
                if (instead != null) {
                    instead.close();
                }
            }
        }
    }

    /** Rows read by Iceberg's generic reader and delete filter, each with its {@code _pos}. */
    private static final class GenericRows extends IteratedRows<Record> {
        private final RowColumns columns;

        GenericRows(CloseableIterable<Record> rows, RowColumns columns) {
            super(rows);
            this.columns = columns;
        }

        @Override
        long positionOf(Record row) {
            return columns.position(row);
        }

        @Override
        public TableRow row() {
            return TableRow.read(columns, current);
        }
    }

    /**
     * The topic, partition and offset of each of a data file's rows, and its position in the file,
     * a row at a time, every row, deleted or not (rows the scan's filter excludes left out).
     */
    interface KafkaPositions extends Closeable {
        /** Moves to the next row; {@code false} past the last. */
        boolean next();

        /** The row's position in the file. */
        long position();

        /** The row's topic; fails naming the column if it is null. */
        String topic();

        /** The row's partition; fails naming the column if it is null or no Kafka partition. */
        int partition();

        /** The row's offset; fails naming the column if it is null. */
        long offset();

        /** Whether the rows come a batch at a time ({@link ColumnBatchReader}). */
        @VisibleForTesting
        default boolean readInBatches() {
            return false;
        }
    }

    /**
     * The {@link KafkaPositions} of the file's rows: in batches of those three columns where the
     * adapter's readers read the file (it is read without a filter and none of them is an identity
     * partition column; deletes do not matter, every row counts), else, or where the batches refuse
     * the file, by Iceberg's generic reader ({@link #readKafkaColumns}).
     */
    KafkaPositions readKafkaPositions(FileScanTask task, Schema schema, RowColumns columns) {
        checkFormat(task);
        boolean unfiltered =
                task.residual() == null || task.residual().equals(Expressions.alwaysTrue());
        KafkaRead read =
                unfiltered
                        ? positionsReads
                                .computeIfAbsent(schema, s -> planPositionsRead(s, columns))
                                .orElse(null)
                        : null;
        if (read == null || identityPartitioned(task, read.projection())) {
            return new GenericPositions(readKafkaColumns(task, schema, columns.layout()), columns);
        }
        return new BatchPositions(
                batches(task, read, 0),
                read.columns(),
                () ->
                        new GenericPositions(
                                readKafkaColumns(task, schema, columns.layout()), columns),
                task);
    }

    /**
     * The positions read of each table schema (by identity); empty where the generic reader reads.
     */
    private final Map<Schema, Optional<KafkaRead>> positionsReads = new IdentityHashMap<>();

    private Optional<KafkaRead> planPositionsRead(Schema schema, RowColumns columns) {
        Schema projection = TableRowReader.Columns.positionsProjection(schema, columns.layout());
        try {
            return Optional.of(
                    new KafkaRead(
                            projection,
                            TableRowReader.Columns.positions(
                                    projection, columns.layout(), columns.onlyTopic())));
        } catch (TableRowReader.Unsupported e) {
            LOG.info(
                    "The Kafka columns of Iceberg table {} are read with Iceberg's generic reader: {}",
                    table,
                    e.getMessage());
            return Optional.empty();
        }
    }

    /**
     * Positions read a batch at a time; the generic reader's, once the batches refused the file.
     */
    private final class BatchPositions implements KafkaPositions {
        private final CloseableIterable<ColumnBatchReader.RowBatch> batches;
        private final TableRowReader.Columns columns;
        private final java.util.function.Supplier<KafkaPositions> generic;
        private final FileScanTask task;
        @Nullable private Iterator<ColumnBatchReader.RowBatch> iterator;
        @Nullable private ColumnBatchReader.RowBatch batch;
        private int index;
        private boolean started;
        private boolean closed;
        @Nullable private KafkaPositions instead;

        BatchPositions(
                Batches batches,
                TableRowReader.Columns columns,
                java.util.function.Supplier<KafkaPositions> generic,
                FileScanTask task) {
            this.batches = batches.batches();
            this.columns = columns;
            this.generic = generic;
            this.task = task;
        }

        @Override
        public boolean next() {
            if (instead != null) {
                return instead.next();
            }
            while (batch == null || ++index >= batch.size()) {
                if (iterator == null) {
                    iterator = batches.iterator();
                }
                if (!iterator.hasNext()) {
                    return false;
                }
                try {
                    batch = iterator.next();
                } catch (TableRowReader.Unsupported e) {
                    if (started) {
                        throw e;
                    }
                    LOG.info(
                            "The Kafka columns of data file {} of Iceberg table {} are read a row at a time: {}",
                            task.file().location(),
                            table,
                            e.getMessage());
                    closeBatches();
                    instead = generic.get();
                    return instead.next();
                }
                started = true;
                index = -1;
            }
            return true;
        }

        @Override
        public long position() {
            return instead != null ? instead.position() : batch.firstRow() + index;
        }

        @Override
        public String topic() {
            return instead != null ? instead.topic() : columns.topic(batch.topic[index]);
        }

        @Override
        public int partition() {
            return instead != null
                    ? instead.partition()
                    : columns.partition(batch.hasPartition[index], batch.partition[index]);
        }

        @Override
        public long offset() {
            return instead != null
                    ? instead.offset()
                    : columns.offset(batch.hasOffset[index], batch.offset[index]);
        }

        @Override
        public boolean readInBatches() {
            return instead == null;
        }

        private void closeBatches() {
            if (!closed) {
                closed = true;
                try {
                    batches.close();
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            }
        }

        @Override
        public void close() throws IOException {
            try {
                closeBatches();
            } finally {
                if (instead != null) {
                    instead.close();
                }
            }
        }
    }

    /** Positions read by Iceberg's generic reader ({@link #readKafkaColumns}). */
    private static final class GenericPositions implements KafkaPositions {
        private final CloseableIterable<Record> rows;
        private final RowColumns columns;
        @Nullable private Iterator<Record> iterator;
        @Nullable private Record current;

        GenericPositions(CloseableIterable<Record> rows, RowColumns columns) {
            this.rows = rows;
            this.columns = columns;
        }

        @Override
        public boolean next() {
            if (iterator == null) {
                iterator = rows.iterator();
            }
            if (!iterator.hasNext()) {
                current = null;
                return false;
            }
            current = iterator.next();
            return true;
        }

        @Override
        public long position() {
            return columns.position(current);
        }

        @Override
        public String topic() {
            return columns.topic(current);
        }

        @Override
        public int partition() {
            return columns.partition(current);
        }

        @Override
        public long offset() {
            return columns.offset(current);
        }

        @Override
        public void close() throws IOException {
            rows.close();
        }
    }

    /**
     * The file's Kafka columns (topic, partition, offset) and each row's position ({@code _pos}),
     * every row, deleted or not; rows the scan's filter excludes left out.
     */
    CloseableIterable<Record> readKafkaColumns(
            FileScanTask task, Schema schema, IcebergLayout layout) {
        checkFormat(task);
        List<String> columns = new ArrayList<>();
        columns.add(layout.partitionColumn());
        columns.add(layout.offsetColumn());
        layout.topicColumn().ifPresent(columns::add);
        Schema projection =
                TypeUtil.join(schema.select(columns), new Schema(MetadataColumns.ROW_POSITION));
        CloseableIterable<Record> rows =
                Parquet.read(io.newInputFile(task.file()))
                        .project(projection)
                        .filter(task.residual())
                        .createReaderFunc(
                                fileSchema ->
                                        GenericParquetReaders.buildReader(projection, fileSchema))
                        .build();
        return filtered(rows, task.residual(), projection);
    }

    private static CloseableIterable<Record> filtered(
            CloseableIterable<Record> rows, Expression residual, Schema schema) {
        if (residual == null || residual.equals(Expressions.alwaysTrue())) {
            return rows;
        }
        Evaluator evaluator = new Evaluator(schema.asStruct(), residual, true);
        InternalRecordWrapper wrapper = new InternalRecordWrapper(schema.asStruct());
        return CloseableIterable.filter(rows, row -> evaluator.eval(wrapper.wrap(row)));
    }

    private void checkFormat(FileScanTask task) {
        if (task.file().format() != FileFormat.PARQUET) {
            throw new UnsupportedOperationException(
                    String.format(
                            "Data file %s of Iceberg table %s is %s: this source reads Parquet data files only",
                            task.file().location(), table, task.file().format()));
        }
    }
}
