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
import org.apache.iceberg.io.CloseableIterable;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
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
import java.util.Random;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * ZSTD column chunks whose dictionary page is larger than their data pages (few distinct keys,
 * values, topics and timestamps of many bytes, a dictionary that never fills): {@link PageCodecs}
 * decompresses a chunk's data pages into the array that held its dictionary page, so the batched
 * read must have taken every dictionary value out of that page before its first data page. Through
 * {@link TableFiles}, with v1 and v2 pages, the batched reads (records and Kafka positions) give
 * Iceberg's generic reader's rows.
 */
class ZstdDictionaryChunksReadInBatchesTest {

    private static final String TOPIC = "orders";
    private static final int ROWS = 3_000;

    @TempDir Path warehouse;
    private Catalog catalog;

    @BeforeEach
    void openCatalog() {
        catalog = IcebergTestTables.open("local", IcebergTestTables.hadoopCatalog(warehouse));
    }

    private static void zstdDictionaryProperties(Table table, String pageVersion) {
        table.updateProperties()
                .set(TableProperties.PARQUET_COMPRESSION, "zstd")
                .set(TableProperties.PARQUET_PAGE_VERSION, pageVersion)
                .set(TableProperties.PARQUET_PAGE_SIZE_BYTES, "8192")
                .set(TableProperties.PARQUET_PAGE_ROW_LIMIT, "50")
                // a dictionary that never fills: every page of every column dictionary ids
                .set(TableProperties.PARQUET_DICT_SIZE_BYTES, String.valueOf(8 << 20))
                .set(TableProperties.PARQUET_ROW_GROUP_SIZE_BYTES, "262144")
                .set(TableProperties.PARQUET_ROW_GROUP_CHECK_MIN_RECORD_COUNT, "10")
                .set(TableProperties.PARQUET_ROW_GROUP_CHECK_MAX_RECORD_COUNT, "50")
                .commit();
    }

    private static String letters(Random random, int length) {
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < length; i++) {
            text.append((char) ('a' + random.nextInt(26)));
        }
        return text.toString();
    }

    private static List<FileScanTask> tasks(Table table) throws IOException {
        List<FileScanTask> tasks = new ArrayList<>();
        try (CloseableIterable<FileScanTask> planned = table.newScan().planFiles()) {
            planned.forEach(tasks::add);
        }
        return tasks;
    }

    /** Each column's encodings over the table's files; every chunk checked to be ZSTD. */
    private static Map<String, Set<Encoding>> encodings(Table table) throws IOException {
        Map<String, Set<Encoding>> encodings = new HashMap<>();
        for (FileScanTask task : tasks(table)) {
            try (ParquetFileReader footer =
                    ParquetFileReader.open(
                            HadoopInputFile.fromPath(
                                    new org.apache.hadoop.fs.Path(task.file().location()),
                                    new Configuration()))) {
                for (BlockMetaData rowGroup : footer.getFooter().getBlocks()) {
                    for (ColumnChunkMetaData column : rowGroup.getColumns()) {
                        assertThat(column.getCodec()).isEqualTo(CompressionCodecName.ZSTD);
                        encodings
                                .computeIfAbsent(
                                        column.getPath().toDotString(), c -> new HashSet<>())
                                .addAll(column.getEncodings());
                    }
                }
            }
        }
        return encodings;
    }

    private static boolean dictionaryEncoded(Set<Encoding> encodings) {
        return encodings.contains(Encoding.PLAIN_DICTIONARY)
                || encodings.contains(Encoding.RLE_DICTIONARY);
    }

    /**
     * Aiven's layout: 8 keys of 600 bytes, 16 values of 900 bytes, 30 timestamps, each partition's
     * offsets distinct, all of them dictionary ids, the keys' and values' dictionary pages larger
     * than any of their chunk's data pages. The batched read of the Kafka records (through {@link
     * PageCodecs}, every page decompressed whole) gives the generic reader's rows, byte for byte.
     */
    @ParameterizedTest
    @ValueSource(strings = {"v1", "v2"})
    void dictionaryPagesLargerThanTheirDataPagesReadAsTheGenericReader(String pageVersion)
            throws Exception {
        Kind kind = Kind.AIVEN;
        Table table = IcebergTestTables.create(catalog, "db.t", kind);
        zstdDictionaryProperties(table, pageVersion);
        Schema schema = table.schema();
        Random random = new Random(52);
        String[] keys = new String[8];
        for (int i = 0; i < keys.length; i++) {
            keys[i] = "key-" + i + "-" + letters(random, 600);
        }
        String[] values = new String[16];
        for (int i = 0; i < values.length; i++) {
            values[i] = "value-" + i + "-" + letters(random, 900);
        }
        List<Record> rows = new ArrayList<>();
        for (int i = 0; i < ROWS; i++) {
            GenericRecord kafka = GenericRecord.create(schema.findType("kafka").asStructType());
            kafka.setField("partition", i % 4);
            kafka.setField("offset", (long) (i / 4)); // each partition's own offsets
            kafka.setField(
                    "timestamp",
                    OffsetDateTime.ofInstant(
                            Instant.ofEpochMilli(IcebergTestTables.BASE_MILLIS + (i / 100) * 1000L),
                            ZoneOffset.UTC));
            kafka.setField(
                    "key_raw",
                    i % 13 == 0
                            ? null
                            : ByteBuffer.wrap(
                                    keys[i % keys.length].getBytes(StandardCharsets.UTF_8)));
            kafka.setField(
                    "value_raw",
                    // (3 values first: a first page of distinct values would make Parquet fall
                    // back to plain values)
                    ByteBuffer.wrap(
                            values[i < 1_000 ? i % 3 : (i * 7) % values.length].getBytes(
                                    StandardCharsets.UTF_8)));
            GenericRecord row = GenericRecord.create(schema);
            row.setField("kafka", kafka);
            rows.add(row);
        }
        IcebergTestTables.append(table, rows);
        table.refresh();

        Map<String, Set<Encoding>> encodings = encodings(table);
        // the file is what the test means: every Kafka column in dictionary ids
        for (String column :
                List.of(
                        "kafka.partition",
                        "kafka.offset",
                        "kafka.timestamp",
                        "kafka.key_raw",
                        "kafka.value_raw")) {
            assertThat(dictionaryEncoded(encodings.get(column))).as(column).isTrue();
        }

        RowColumns columns = new RowColumns(kind.layout, TOPIC);
        TableFiles files = new TableFiles(table.io(), "db.t");
        List<String> batched = new ArrayList<>();
        List<String> generic = new ArrayList<>();
        for (FileScanTask task : tasks(table)) {
            try (TableFiles.FileRows read =
                    files.readTableRows(
                            task, schema, columns, TableFiles.ValuesFrom.KAFKA_RECORDS)) {
                while (read.hasNext()) {
                    long position = read.next();
                    batched.add(text(position, read.row(), columns));
                }
                assertThat(read.readInBatches()).isTrue();
                PageCodecs codecs = read.pageCodecs();
                assertThat(codecs).isNotNull();
                assertThat(codecs.zstdPagesWhole()).isGreaterThan(100);
                assertThat(codecs.zstdPagesByParquet()).isZero();
            }
            try (TableFiles.FileRows read =
                    files.readTableRows(task, schema, columns, TableFiles.ValuesFrom.ROWS)) {
                while (read.hasNext()) {
                    long position = read.next();
                    generic.add(text(position, read.row(), columns));
                }
            }
        }
        assertThat(generic).hasSize(ROWS);
        assertThat(batched).containsExactlyElementsOf(generic);
    }

    /**
     * Kafka Connect's nested layout (a topic column), unpartitioned: three topics, five partitions,
     * every offset distinct, all in dictionary ids under ZSTD. The Kafka positions read in batches
     * are the generic reader's, row for row, the deleted rows included.
     */
    @ParameterizedTest
    @ValueSource(strings = {"v1", "v2"})
    void zstdDictionaryPositionsAreTheGenericReadersDeletedRowsIncluded(String pageVersion)
            throws Exception {
        Kind kind = Kind.KAFKA_CONNECT_NESTED;
        Table table = IcebergTestTables.create(catalog, "db.t", kind);
        zstdDictionaryProperties(table, pageVersion);
        String[] topics = {TOPIC, "other-topic-" + "x".repeat(200), "third-topic"};
        List<Record> rows = new ArrayList<>();
        for (int i = 0; i < ROWS; i++) {
            rows.add(
                    IcebergTestTables.row(
                            kind, table.schema(), topics[i % 3], i % 5, i / 15, "v" + (i % 10)));
        }
        List<DataFile> written = IcebergTestTables.append(table, rows);
        IcebergTestTables.deletePositions(table, written.get(0), 0, 1, 2, ROWS - 1);
        table.refresh();
        Map<String, Set<Encoding>> encodings = encodings(table);
        assertThat(dictionaryEncoded(encodings.get("_kafka_metadata.topic"))).isTrue();
        assertThat(dictionaryEncoded(encodings.get("_kafka_metadata.offset"))).isTrue();

        RowColumns columns = new RowColumns(kind.layout, TOPIC);
        TableFiles io = new TableFiles(table.io(), "db.t");
        List<String> batched = new ArrayList<>();
        List<String> generic = new ArrayList<>();
        for (FileScanTask task : tasks(table)) {
            assertThat(task.deletes()).isNotEmpty();
            try (TableFiles.KafkaPositions positions =
                    io.readKafkaPositions(task, table.schema(), columns)) {
                while (positions.next()) {
                    batched.add(
                            positions.position()
                                    + " "
                                    + positions.topic()
                                    + "/"
                                    + positions.partition()
                                    + "@"
                                    + positions.offset());
                }
                assertThat(positions.readInBatches()).isTrue();
            }
            try (CloseableIterable<Record> read =
                    io.readKafkaColumns(task, table.schema(), columns.layout())) {
                for (Record row : read) {
                    generic.add(
                            columns.position(row)
                                    + " "
                                    + columns.topic(row)
                                    + "/"
                                    + columns.partition(row)
                                    + "@"
                                    + columns.offset(row));
                }
            }
        }
        assertThat(generic).hasSize(ROWS);
        assertThat(batched).containsExactlyElementsOf(generic);
    }

    private static String text(long position, TableRow row, RowColumns columns) {
        byte[] key = row.row() == null ? row.key() : columns.key(row.row());
        byte[] value = row.row() == null ? row.value() : columns.value(row.row());
        return position
                + " "
                + row.partition()
                + "@"
                + row.kafkaOffset()
                + " "
                + row.timestamp()
                + " "
                + (key == null ? "null" : new String(key, StandardCharsets.UTF_8))
                + " "
                + (value == null ? "null" : Arrays.hashCode(value) + "/" + value.length);
    }
}
