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

import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetReaders;
import org.apache.iceberg.data.parquet.GenericParquetWriter;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.FileAppender;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.parquet.Parquet;
import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.column.ParquetProperties.WriterVersion;
import org.apache.parquet.column.page.DataPage;
import org.apache.parquet.column.page.DictionaryPage;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.column.page.PageReader;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.ColumnPath;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.apache.parquet.io.ParquetDecodingException;
import org.apache.parquet.schema.MessageType;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Issue 38, item 3: the batched read of a file's Kafka columns ({@link ColumnBatchReader}) reads
 * every row as Iceberg's generic reader reads it, over pages of each encoding a writer makes
 * (dictionary, plain, and Parquet v2's delta encodings), nulls, row groups and batches that cut
 * pages; and through {@link TableFiles}, files with deletes still go through the generic reader,
 * which applies them.
 */
class ColumnBatchReaderTest {

    private static final String TOPIC = "orders";
    private static final int ROWS = 20_000;

    @TempDir Path warehouse;
    private Catalog catalog;

    @BeforeEach
    void openCatalog() {
        catalog = IcebergTestTables.open("local", IcebergTestTables.hadoopCatalog(warehouse));
    }

    /**
     * Parquet v1 pages (dictionary ids, then plain values once the dictionary is full) and v2 pages
     * (delta encodings, read by Parquet's value readers), small pages and row groups, a batch size
     * that cuts pages: the same rows as the generic reader, in the same order.
     */
    @ParameterizedTest
    @EnumSource(WriterVersion.class)
    void batchesReadEveryEncodingAsTheGenericReaderReadsIt(WriterVersion version) throws Exception {
        Schema schema = Kind.AIVEN.schema();
        InputFile file = write(schema, version);

        Map<String, Set<Encoding>> encodings = new HashMap<>();
        int rowGroups = 0;
        try (ParquetFileReader footer =
                ParquetFileReader.open(
                        HadoopInputFile.fromPath(
                                new org.apache.hadoop.fs.Path(file.location()),
                                new Configuration()))) {
            for (BlockMetaData rowGroup : footer.getFooter().getBlocks()) {
                rowGroups++;
                for (ColumnChunkMetaData column : rowGroup.getColumns()) {
                    encodings
                            .computeIfAbsent(column.getPath().toDotString(), c -> new HashSet<>())
                            .addAll(column.getEncodings());
                }
            }
        }
        // the file has what the test means it to have: several row groups; partitions in
        // dictionary ids; offsets and values in the writer version's encoding of distinct values;
        // keys in dictionary ids, then (the dictionary full) in that encoding
        assertThat(rowGroups).isGreaterThan(1);
        Encoding dictionary =
                version == WriterVersion.PARQUET_1_0
                        ? Encoding.PLAIN_DICTIONARY
                        : Encoding.RLE_DICTIONARY;
        Encoding numbers =
                version == WriterVersion.PARQUET_1_0
                        ? Encoding.PLAIN
                        : Encoding.DELTA_BINARY_PACKED;
        Encoding bytes =
                version == WriterVersion.PARQUET_1_0 ? Encoding.PLAIN : Encoding.DELTA_BYTE_ARRAY;
        assertThat(encodings.get("kafka.partition")).contains(dictionary);
        assertThat(encodings.get("kafka.offset")).contains(numbers);
        assertThat(encodings.get("kafka.value_raw")).contains(bytes);
        assertThat(encodings.get("kafka.key_raw")).contains(dictionary, bytes);

        List<String> generic = genericRows(schema, file);
        List<String> batched = batchedRows(schema, file, 999);
        assertThat(generic).hasSize(ROWS);
        assertThat(batched).containsExactlyElementsOf(generic);
        // a batch as large as the file's row groups reads the same
        assertThat(batchedRows(schema, file, 100_000)).containsExactlyElementsOf(generic);
    }

    /**
     * A numbers column's dictionary is read straight from its page: a page holding fewer bytes than
     * its values need fails the read, naming the column and both sizes.
     */
    @Test
    void aNumbersDictionaryPageShorterThanItsValuesFailsNamingTheColumn() throws Exception {
        Schema schema = Kind.AIVEN.schema();
        InputFile file = write(schema, WriterVersion.PARQUET_1_0);
        Schema projection = TableRowReader.projection(schema, Kind.AIVEN.layout, true);
        TableRowReader.Columns columns =
                new TableRowReader.Columns(projection, Kind.AIVEN.layout, TOPIC);
        try (ParquetFileReader footer =
                ParquetFileReader.open(
                        HadoopInputFile.fromPath(
                                new org.apache.hadoop.fs.Path(file.location()),
                                new Configuration()))) {
            MessageType fileSchema = footer.getFooter().getFileMetaData().getSchema();
            ColumnBatchReader reader = ColumnBatchReader.build(projection, fileSchema, columns);
            Map<ColumnPath, ColumnChunkMetaData> metadata = new HashMap<>();
            for (ColumnChunkMetaData column : footer.getFooter().getBlocks().get(0).getColumns()) {
                metadata.put(column.getPath(), column);
            }
            PageReadStore rowGroup = footer.readNextRowGroup();
            // the partitions' dictionary (5 numbers of 4 bytes) with its last 3 bytes cut off
            PageReadStore cut =
                    new PageReadStore() {
                        @Override
                        public PageReader getPageReader(ColumnDescriptor column) {
                            PageReader pages = rowGroup.getPageReader(column);
                            if (!column.getPath()[1].equals("partition")) {
                                return pages;
                            }
                            return new PageReader() {
                                @Override
                                public DictionaryPage readDictionaryPage() {
                                    DictionaryPage page = pages.readDictionaryPage();
                                    try {
                                        byte[] bytes = page.getBytes().toByteArray();
                                        return new DictionaryPage(
                                                BytesInput.from(
                                                        Arrays.copyOf(bytes, bytes.length - 3)),
                                                page.getDictionarySize(),
                                                page.getEncoding());
                                    } catch (IOException e) {
                                        throw new UncheckedIOException(e);
                                    }
                                }

                                @Override
                                public long getTotalValueCount() {
                                    return pages.getTotalValueCount();
                                }

                                @Override
                                public DataPage readPage() {
                                    return pages.readPage();
                                }
                            };
                        }

                        @Override
                        public long getRowCount() {
                            return rowGroup.getRowCount();
                        }

                        @Override
                        public Optional<Long> getRowIndexOffset() {
                            return rowGroup.getRowIndexOffset();
                        }
                    };
            assertThatThrownBy(() -> reader.setRowGroupInfo(cut, metadata))
                    .isInstanceOf(ParquetDecodingException.class)
                    .hasMessageContaining("kafka.partition")
                    .hasMessageContaining("holds 5 values of 4 bytes, but has 17 bytes");
        }
    }

    /**
     * Through {@link TableFiles}: a Redpanda table read for a value-only deserializer (the batched
     * read) gives the generic reader's rows; after a position delete, the file it applies to is
     * read by the generic reader (the deleted rows left out), the other (in another of the table's
     * partitions) still batched; the same after an equality delete.
     */
    @Test
    void filesWithDeletesStillLeaveTheDeletedRowsOut() throws Exception {
        Table table = IcebergTestTables.create(catalog, "db.t", Kind.REDPANDA);
        List<Record> first = new ArrayList<>();
        List<Record> second = new ArrayList<>();
        for (long offset = 0; offset < 300; offset++) {
            Record row =
                    IcebergTestTables.row(
                            Kind.REDPANDA,
                            table.schema(),
                            TOPIC,
                            (int) (offset % 3),
                            offset,
                            "v" + offset);
            if (offset >= 150) {
                // two hours on: another of the table's partitions, which the deletes below (of
                // the first hour) do not apply to
                ((Record) row.getField("redpanda"))
                        .setField(
                                "timestamp",
                                OffsetDateTime.ofInstant(
                                        Instant.ofEpochMilli(
                                                IcebergTestTables.BASE_MILLIS
                                                        + 7_200_000L
                                                        + offset),
                                        ZoneOffset.UTC));
            }
            (offset < 150 ? first : second).add(row);
        }
        List<DataFile> firstFiles = IcebergTestTables.append(table, first);
        IcebergTestTables.append(table, second);
        table.refresh();
        List<String> before = rows(table, TableFiles.ValuesFrom.KAFKA_VALUES);
        assertThat(before).hasSize(300);
        assertThat(batched).containsExactlyInAnyOrderElementsOf(locations(table));
        // (each row named by its file and position: the scan's order of files may differ)
        assertThat(before)
                .containsExactlyInAnyOrderElementsOf(rows(table, TableFiles.ValuesFrom.ROWS));

        IcebergTestTables.deletePositions(table, firstFiles.get(0), 0, 7, 8);
        table.refresh();
        batched.clear();
        List<String> positionDeleted = rows(table, TableFiles.ValuesFrom.KAFKA_VALUES);
        // the file with deletes through the generic reader, the other still in batches
        List<String> others = new ArrayList<>(locations(table));
        others.remove(firstFiles.get(0).location());
        assertThat(others).hasSize(1);
        assertThat(batched).containsExactlyInAnyOrderElementsOf(others);
        assertThat(positionDeleted)
                .containsExactlyInAnyOrderElementsOf(rows(table, TableFiles.ValuesFrom.ROWS));
        assertThat(positionDeleted).hasSize(300 - 3);

        // an equality delete in the first file's table partition: the same
        IcebergTestTables.deleteEqual(table, Kind.REDPANDA.layout, first.get(0), 1, 10, 13);
        table.refresh();
        batched.clear();
        List<String> after = rows(table, TableFiles.ValuesFrom.KAFKA_VALUES);
        assertThat(batched).containsExactlyInAnyOrderElementsOf(others);
        assertThat(after)
                .containsExactlyInAnyOrderElementsOf(rows(table, TableFiles.ValuesFrom.ROWS));
        assertThat(after).hasSize(300 - 5);
        assertThat(after)
                .noneMatch(
                        row ->
                                row.contains(" 1@10 ")
                                        || row.contains(" 1@13 ")
                                        || row.contains(" 0@0 ")
                                        || row.contains(" 1@7 ")
                                        || row.contains(" 2@8 "));
    }

    /**
     * Through {@link TableFiles}, a table written with each codec, in pages of 4 KiB (many pages a
     * column chunk): the batched read, whose ZSTD pages {@link PageCodecs} decompresses with one
     * context for the file, gives the generic reader's rows.
     */
    @ParameterizedTest
    @EnumSource(
            value = CompressionCodecName.class,
            names = {"ZSTD", "SNAPPY", "GZIP", "UNCOMPRESSED"})
    void everyCodecsPagesReadInBatchesAsTheGenericReaderReadsThem(CompressionCodecName codec)
            throws Exception {
        Table table = IcebergTestTables.create(catalog, "db.t", Kind.REDPANDA);
        table.updateProperties()
                .set(TableProperties.PARQUET_COMPRESSION, codec.name().toLowerCase())
                .set(TableProperties.PARQUET_PAGE_SIZE_BYTES, "4096")
                .set(TableProperties.PARQUET_PAGE_ROW_LIMIT, "100")
                .commit();
        List<Record> rows = new ArrayList<>();
        for (long offset = 0; offset < 3_000; offset++) {
            rows.add(
                    IcebergTestTables.row(
                            Kind.REDPANDA,
                            table.schema(),
                            TOPIC,
                            (int) (offset % 3),
                            offset,
                            "value " + offset + " " + "x".repeat((int) (offset % 200))));
        }
        IcebergTestTables.append(table, rows);
        table.refresh();

        Map<CompressionCodecName, Integer> pagesOfValues = new HashMap<>();
        for (String location : locations(table)) {
            try (ParquetFileReader footer =
                    ParquetFileReader.open(
                            HadoopInputFile.fromPath(
                                    new org.apache.hadoop.fs.Path(location),
                                    new Configuration()))) {
                for (BlockMetaData rowGroup : footer.getFooter().getBlocks()) {
                    for (ColumnChunkMetaData column : rowGroup.getColumns()) {
                        if (column.getPath().toDotString().endsWith("value")) {
                            // (v1 pages of at most 100 rows)
                            pagesOfValues.merge(
                                    column.getCodec(),
                                    (int) (column.getValueCount() / 100),
                                    Integer::sum);
                        }
                    }
                }
            }
        }
        // the files are what the test means: the codec's, several pages a column
        assertThat(pagesOfValues.keySet()).containsExactly(codec);
        assertThat(pagesOfValues.get(codec)).isGreaterThan(10);

        List<String> read = rows(table, TableFiles.ValuesFrom.KAFKA_VALUES);
        assertThat(batched).containsExactlyInAnyOrderElementsOf(locations(table));
        assertThat(read).hasSize(3_000);
        assertThat(read)
                .containsExactlyInAnyOrderElementsOf(rows(table, TableFiles.ValuesFrom.ROWS));
    }

    /** The files {@link #rows} read in batches, each once it has read all their rows. */
    private final List<String> batched = new ArrayList<>();

    private static List<String> locations(Table table) throws IOException {
        List<String> locations = new ArrayList<>();
        try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
            tasks.forEach(task -> locations.add(task.file().location()));
        }
        return locations;
    }

    /**
     * Each row of the table as the fetcher reads it and the topic's deserializer is given it:
     * position, partition@offset, timestamp, key, value.
     */
    private List<String> rows(Table table, TableFiles.ValuesFrom from) throws IOException {
        RowColumns columns = new RowColumns(Kind.REDPANDA.layout, TOPIC);
        TableFiles files = new TableFiles(table.io(), "db.t");
        List<String> rows = new ArrayList<>();
        try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
            for (FileScanTask task : tasks) {
                try (TableFiles.FileRows read =
                        files.readTableRows(task, table.schema(), columns, from)) {
                    while (read.hasNext()) {
                        long position = read.next();
                        TableRow row = read.row();
                        byte[] value = row.row() == null ? row.value() : columns.value(row.row());
                        rows.add(
                                task.file().location()
                                        + ":"
                                        + position
                                        + " "
                                        + row.partition()
                                        + "@"
                                        + row.kafkaOffset()
                                        + " "
                                        + row.timestamp()
                                        + " "
                                        + new String(value, StandardCharsets.UTF_8));
                    }
                    if (read.readInBatches()) {
                        batched.add(task.file().location());
                    }
                }
            }
        }
        return rows;
    }

    /**
     * A file of {@code ROWS} rows: partitions of a small dictionary, offsets that fill the
     * dictionary, keys and values with nulls, timestamps in microseconds.
     */
    private InputFile write(Schema schema, WriterVersion version) throws IOException {
        OutputFile out =
                org.apache.iceberg.Files.localOutput(
                        warehouse.resolve(version + ".parquet").toFile());
        try (FileAppender<Record> appender =
                Parquet.write(out)
                        .schema(schema)
                        .createWriterFunc(GenericParquetWriter::create)
                        .writerVersion(version)
                        .set(TableProperties.PARQUET_PAGE_SIZE_BYTES, "4096")
                        .set(TableProperties.PARQUET_PAGE_ROW_LIMIT, "700")
                        .set(TableProperties.PARQUET_DICT_SIZE_BYTES, "4096")
                        .set(TableProperties.PARQUET_ROW_GROUP_SIZE_BYTES, "65536")
                        .build()) {
            for (int i = 0; i < ROWS; i++) {
                GenericRecord kafka = GenericRecord.create(schema.findType("kafka").asStructType());
                kafka.setField("partition", i % 5);
                kafka.setField("offset", 3L * i);
                kafka.setField(
                        "timestamp",
                        OffsetDateTime.ofInstant(
                                Instant.ofEpochMilli(IcebergTestTables.BASE_MILLIS + 7L * i),
                                ZoneOffset.UTC));
                kafka.setField(
                        "key_raw", i % 7 == 0 ? null : bytes("key-" + (i / 4) + "-abcdefgh"));
                kafka.setField(
                        "value_raw", i % 11 == 0 ? null : bytes("value-" + i + "-" + (i * 31)));
                GenericRecord row = GenericRecord.create(schema);
                row.setField("kafka", kafka);
                appender.add(row);
            }
        }
        return org.apache.iceberg.Files.localInput(
                warehouse.resolve(version + ".parquet").toFile());
    }

    private static ByteBuffer bytes(String text) {
        return ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8));
    }

    /** The file's rows as Iceberg's generic reader reads them, as {@link #text} makes them. */
    private static List<String> genericRows(Schema schema, InputFile file) throws IOException {
        RowColumns columns = new RowColumns(Kind.AIVEN.layout, TOPIC);
        List<String> rows = new ArrayList<>();
        try (CloseableIterable<Record> read =
                Parquet.read(file)
                        .project(schema)
                        .createReaderFunc(
                                fileSchema -> GenericParquetReaders.buildReader(schema, fileSchema))
                        .build()) {
            for (Record record : read) {
                Record kafka = (Record) record.getField("kafka");
                rows.add(
                        text(
                                columns.partition(record),
                                columns.offset(record),
                                columns.timestamp(record),
                                RowColumns.bytes(kafka.getField("key_raw")),
                                RowColumns.bytes(kafka.getField("value_raw"))));
            }
        }
        return rows;
    }

    /** The file's rows as the batched read reads them, {@code batchSize} rows a batch. */
    private static List<String> batchedRows(Schema schema, InputFile file, int batchSize)
            throws IOException {
        Schema projection = TableRowReader.projection(schema, Kind.AIVEN.layout, true);
        TableRowReader.Columns columns =
                new TableRowReader.Columns(projection, Kind.AIVEN.layout, TOPIC);
        List<String> rows = new ArrayList<>();
        try (CloseableIterable<ColumnBatchReader.RowBatch> read =
                Parquet.read(file)
                        .project(projection)
                        .createBatchedReaderFunc(
                                fileSchema ->
                                        ColumnBatchReader.build(projection, fileSchema, columns))
                        .recordsPerBatch(batchSize)
                        .reuseContainers()
                        .build()) {
            for (ColumnBatchReader.RowBatch batch : read) {
                for (int i = 0; i < batch.size(); i++) {
                    TableRow row = columns.row(batch, i);
                    rows.add(
                            text(
                                    row.partition(),
                                    row.kafkaOffset(),
                                    row.timestamp(),
                                    row.key(),
                                    row.value()));
                }
            }
        }
        return rows;
    }

    private static String text(
            int partition, long offset, long timestamp, byte[] key, byte[] value) {
        return partition
                + "@"
                + offset
                + " "
                + timestamp
                + " key="
                + (key == null ? "null" : Arrays.toString(key))
                + " value="
                + (value == null ? "null" : new String(value, StandardCharsets.UTF_8));
    }
}
