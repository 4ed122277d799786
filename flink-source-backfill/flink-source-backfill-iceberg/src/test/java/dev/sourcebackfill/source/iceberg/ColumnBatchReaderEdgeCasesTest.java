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

import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionSpec;
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
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.SeekableInputStream;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.types.Types;
import org.apache.parquet.column.ParquetProperties.WriterVersion;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 38, item 3 (from its review): the batched read against Iceberg's generic reader at the
 * edges: nulls at every level and wide or zero-width dictionary ids, an int column promoted to
 * long, columns missing from a file, nanosecond and millisecond timestamps, required columns, and a
 * file the batched read refuses (read once, its streams closed).
 */
class ColumnBatchReaderEdgeCasesTest {

    @TempDir Path dir;

    private static final IcebergLayout AIVEN = IcebergLayout.aiven();

    private static Schema aiven(Types.NestedField... overrides) {
        List<Types.NestedField> fields =
                new ArrayList<>(
                        List.of(
                                Types.NestedField.optional(2, "partition", Types.IntegerType.get()),
                                Types.NestedField.optional(3, "offset", Types.LongType.get()),
                                Types.NestedField.optional(
                                        4, "timestamp", Types.TimestampType.withZone()),
                                Types.NestedField.optional(5, "key_raw", Types.BinaryType.get()),
                                Types.NestedField.optional(
                                        6, "value_raw", Types.BinaryType.get())));
        for (Types.NestedField o : overrides) {
            fields.replaceAll(f -> f.fieldId() == o.fieldId() ? o : f);
        }
        fields.removeIf(f -> f.fieldId() < 0);
        return new Schema(Types.NestedField.optional(1, "kafka", Types.StructType.of(fields)));
    }

    /** Kafka struct null where kafkaNull, else partition/offset/ts/key/value (null allowed). */
    private InputFile write(
            String name,
            Schema schema,
            WriterVersion version,
            Map<String, String> props,
            int rows,
            Function<Integer, Object[]> row)
            throws IOException {
        OutputFile out = org.apache.iceberg.Files.localOutput(dir.resolve(name).toFile());
        Parquet.WriteBuilder builder =
                Parquet.write(out)
                        .schema(schema)
                        .createWriterFunc(GenericParquetWriter::create)
                        .writerVersion(version);
        props.forEach(builder::set);
        Types.StructType kafkaType = schema.findType("kafka").asStructType();
        try (FileAppender<Record> appender = builder.build()) {
            for (int i = 0; i < rows; i++) {
                Object[] v = row.apply(i);
                GenericRecord r = GenericRecord.create(schema);
                if (v != null) {
                    GenericRecord kafka = GenericRecord.create(kafkaType);
                    String[] names = {"partition", "offset", "timestamp", "key_raw", "value_raw"};
                    for (int c = 0; c < names.length; c++) {
                        if (kafkaType.field(names[c]) != null) {
                            kafka.setField(names[c], v[c]);
                        }
                    }
                    r.setField("kafka", kafka);
                }
                appender.add(r);
            }
        }
        return org.apache.iceberg.Files.localInput(dir.resolve(name).toFile());
    }

    private static String text(
            Object partition, Object offset, Object timestamp, byte[] key, byte[] value) {
        return "p="
                + partition
                + " o="
                + offset
                + " t="
                + timestamp
                + " k="
                + (key == null ? "null" : new String(key, StandardCharsets.UTF_8))
                + " v="
                + (value == null ? "null" : new String(value, StandardCharsets.UTF_8));
    }

    private static byte[] bytesOf(Object o) {
        if (o == null) {
            return null;
        }
        ByteBuffer b = ((ByteBuffer) o).duplicate();
        byte[] a = new byte[b.remaining()];
        b.get(a);
        return a;
    }

    private static Object millis(Object t) {
        if (t == null) {
            return null;
        }
        if (t instanceof OffsetDateTime) {
            return ((OffsetDateTime) t).toInstant().toEpochMilli();
        }
        return ((Number) t).longValue();
    }

    /** Rows as the generic reader reads them with the table's (reader's) schema. */
    static List<String> generic(Schema readSchema, InputFile file) throws IOException {
        List<String> rows = new ArrayList<>();
        try (CloseableIterable<Record> read =
                Parquet.read(file)
                        .project(readSchema)
                        .createReaderFunc(fs -> GenericParquetReaders.buildReader(readSchema, fs))
                        .build()) {
            for (Record record : read) {
                Record k = (Record) record.getField("kafka");
                if (k == null) {
                    rows.add(text(null, null, null, null, null));
                    continue;
                }
                rows.add(
                        text(
                                k.getField("partition") == null
                                        ? null
                                        : ((Number) k.getField("partition")).longValue(),
                                k.getField("offset") == null
                                        ? null
                                        : ((Number) k.getField("offset")).longValue(),
                                millis(k.getField("timestamp")),
                                bytesOf(k.getField("key_raw")),
                                bytesOf(k.getField("value_raw"))));
            }
        }
        return rows;
    }

    /** Rows as the batched read reads them, straight from its batches (nulls included). */
    static List<String> batched(Schema readSchema, InputFile file, int batchSize)
            throws IOException {
        Schema projection = TableRowReader.projection(readSchema, AIVEN, true);
        TableRowReader.Columns columns = new TableRowReader.Columns(projection, AIVEN, "t");
        List<String> rows = new ArrayList<>();
        try (CloseableIterable<ColumnBatchReader.RowBatch> read =
                Parquet.read(file)
                        .project(projection)
                        .createBatchedReaderFunc(
                                fs -> ColumnBatchReader.build(projection, fs, columns))
                        .recordsPerBatch(batchSize)
                        .reuseContainers()
                        .build()) {
            for (ColumnBatchReader.RowBatch b : read) {
                for (int i = 0; i < b.size(); i++) {
                    rows.add(
                            text(
                                    b.hasPartition[i] ? b.partition[i] : null,
                                    b.hasOffset[i] ? b.offset[i] : null,
                                    b.hasTimestamp[i] ? b.timestamp[i] : null,
                                    b.key[i],
                                    b.value[i]));
                }
            }
        }
        return rows;
    }

    private static final Map<String, String> SMALL_PAGES =
            Map.of(
                    TableProperties.PARQUET_PAGE_SIZE_BYTES, "2048",
                    TableProperties.PARQUET_PAGE_ROW_LIMIT, "333",
                    TableProperties.PARQUET_DICT_SIZE_BYTES, "1048576",
                    TableProperties.PARQUET_ROW_GROUP_SIZE_BYTES, "131072");

    private static OffsetDateTime ts(long millis) {
        return OffsetDateTime.ofInstant(Instant.ofEpochMilli(millis), ZoneOffset.UTC);
    }

    private static ByteBuffer b(String s) {
        return ByteBuffer.wrap(s.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * Nulls at every level (the kafka struct null, a leaf null), random and in long runs (whole
     * pages of nulls), a large dictionary (ids of 15+ bits), a one-value dictionary (0 bits),
     * negative timestamps; batch sizes that cut pages everywhere.
     */
    @ParameterizedTest
    @EnumSource(WriterVersion.class)
    void nullsAtEveryLevelAndWideIdsReadAsTheGenericReader(WriterVersion version) throws Exception {
        Schema schema = aiven();
        Random random = new Random(38);
        int n = 60_000;
        boolean[] structNull = new boolean[n];
        boolean[] keyNull = new boolean[n];
        for (int i = 0; i < n; i++) {
            boolean block = (i / 1500) % 7 == 3; // whole pages of nulls
            structNull[i] = block || random.nextInt(13) == 0;
            keyNull[i] = (i / 1000) % 5 == 2 || random.nextInt(3) == 0;
        }
        InputFile file =
                write(
                        "nulls-" + version + ".parquet",
                        schema,
                        version,
                        SMALL_PAGES,
                        n,
                        i ->
                                structNull[i]
                                        ? null
                                        : new Object[] {
                                            7, // one-value dictionary
                                            i % 17 == 0 ? null : (long) i * 1_000_003L,
                                            i % 19 == 0 ? null : ts(-5_000_000L + i * 13L),
                                            keyNull[i] ? null : b("k" + (i % 40_000)),
                                            i % 23 == 0 ? null : b("v" + random.nextInt(50))
                                        });
        List<String> expected = generic(schema, file);
        assertThat(expected).hasSize(n);
        for (int batch : new int[] {1, 7, 4096}) {
            assertThat(batched(schema, file, batch))
                    .as("batch size %d", batch)
                    .containsExactlyElementsOf(expected);
        }
    }

    /** A file written when the offset was an int (promoted to long since), partition too. */
    @ParameterizedTest
    @EnumSource(WriterVersion.class)
    void intPromotedToLongReadsAsTheGenericReader(WriterVersion version) throws Exception {
        Schema old = aiven(Types.NestedField.optional(3, "offset", Types.IntegerType.get()));
        Schema now = aiven();
        int n = 5000;
        InputFile file =
                write(
                        "promoted-" + version + ".parquet",
                        old,
                        version,
                        SMALL_PAGES,
                        n,
                        i ->
                                new Object[] {
                                    i % 3,
                                    i % 5 == 0 ? Integer.MIN_VALUE + i : Integer.MAX_VALUE - i,
                                    ts(1_700_000_000_000L + i),
                                    null,
                                    b("v" + i)
                                });
        List<String> expected = generic(now, file);
        assertThat(batched(now, file, 1000)).containsExactlyElementsOf(expected);
    }

    /** A file written before the key and value columns were added: they read null. */
    @Test
    void columnsMissingFromTheFileReadNull() throws Exception {
        Schema old =
                aiven(
                        Types.NestedField.optional(-5, "x", Types.BinaryType.get()),
                        Types.NestedField.optional(-6, "y", Types.BinaryType.get()));
        Schema older = new Schema(old.findField("kafka"));
        Schema trimmed =
                new Schema(
                        Types.NestedField.optional(
                                1,
                                "kafka",
                                Types.StructType.of(
                                        Types.NestedField.optional(
                                                2, "partition", Types.IntegerType.get()),
                                        Types.NestedField.optional(
                                                3, "offset", Types.LongType.get()),
                                        Types.NestedField.optional(
                                                4, "timestamp", Types.TimestampType.withZone()))));
        Schema now = aiven();
        int n = 3000;
        InputFile file =
                write(
                        "missing.parquet",
                        trimmed,
                        WriterVersion.PARQUET_1_0,
                        SMALL_PAGES,
                        n,
                        i -> new Object[] {1, (long) i, ts(i), null, null});
        assertThat(older).isNotNull();
        List<String> expected = generic(now, file);
        assertThat(batched(now, file, 700)).containsExactlyElementsOf(expected);
    }

    /** Nanosecond timestamps (format v3), negative ones included. */
    @ParameterizedTest
    @EnumSource(WriterVersion.class)
    void nanosecondTimestampsReadAsTheGenericReader(WriterVersion version) throws Exception {
        Schema schema =
                aiven(
                        Types.NestedField.optional(
                                4, "timestamp", Types.TimestampNanoType.withZone()));
        int n = 4000;
        InputFile file =
                write(
                        "nanos-" + version + ".parquet",
                        schema,
                        version,
                        SMALL_PAGES,
                        n,
                        i ->
                                new Object[] {
                                    0,
                                    (long) i,
                                    OffsetDateTime.ofInstant(
                                            Instant.ofEpochSecond(-3, 123_456_789L * (i % 8)),
                                            ZoneOffset.UTC),
                                    null,
                                    b("v")
                                });
        List<String> expected = generic(schema, file);
        assertThat(batched(schema, file, 999)).containsExactlyElementsOf(expected);
        assertThat(Arrays.asList(1)).isNotEmpty();
    }

    /** A Parquet file written by parquet-mr's example writer (field ids set by hand). */
    private InputFile writeRaw(
            String name,
            MessageType type,
            WriterVersion version,
            int rows,
            java.util.function.BiConsumer<Integer, Group> fill)
            throws IOException {
        java.io.File f = dir.resolve(name).toFile();
        SimpleGroupFactory groups = new SimpleGroupFactory(type);
        try (ParquetWriter<Group> writer =
                ExampleParquetWriter.builder(new org.apache.hadoop.fs.Path(f.toURI()))
                        .withType(type)
                        .withConf(new Configuration())
                        .withWriterVersion(version)
                        .withPageRowCountLimit(333)
                        .withPageSize(2048)
                        .withDictionaryEncoding(true)
                        .build()) {
            for (int i = 0; i < rows; i++) {
                Group g = groups.newGroup();
                fill.accept(i, g);
                writer.write(g);
            }
        }
        return org.apache.iceberg.Files.localInput(f);
    }

    /**
     * Timestamps in milliseconds (INT64 TIMESTAMP(MILLIS), as non-Iceberg writers store them),
     * negative ones included; the partition and offset required (no definition levels) in a
     * required struct.
     */
    @ParameterizedTest
    @EnumSource(WriterVersion.class)
    void millisecondTimestampsAndRequiredColumnsReadAsTheGenericReader(WriterVersion version)
            throws Exception {
        MessageType type =
                org.apache.parquet.schema.Types.buildMessage()
                        .requiredGroup()
                        .required(PrimitiveTypeName.INT32)
                        .id(2)
                        .named("partition")
                        .required(PrimitiveTypeName.INT64)
                        .id(3)
                        .named("offset")
                        .optional(PrimitiveTypeName.INT64)
                        .as(
                                LogicalTypeAnnotation.timestampType(
                                        true, LogicalTypeAnnotation.TimeUnit.MILLIS))
                        .id(4)
                        .named("timestamp")
                        .optional(PrimitiveTypeName.BINARY)
                        .id(5)
                        .named("key_raw")
                        .optional(PrimitiveTypeName.BINARY)
                        .id(6)
                        .named("value_raw")
                        .id(1)
                        .named("kafka")
                        .named("table");
        int n = 5000;
        InputFile file =
                writeRaw(
                        "millis-" + version + ".parquet",
                        type,
                        version,
                        n,
                        (i, g) -> {
                            Group k = g.addGroup("kafka");
                            k.append("partition", i % 4);
                            k.append("offset", (long) i * 3);
                            if (i % 9 != 0) {
                                k.append("timestamp", -1_000_000L + i * 37L);
                            }
                            if (i % 2 == 0) {
                                k.append("key_raw", "k" + (i % 100));
                            }
                            k.append("value_raw", "v" + i);
                        });
        Schema schema = aiven();
        List<String> expected = generic(schema, file);
        assertThat(expected).hasSize(n);
        assertThat(batched(schema, file, 1000)).containsExactlyElementsOf(expected);
    }

    /** Counts the streams a FileIO opens and closes. */
    static final class CountingIO implements FileIO {
        final FileIO io;
        final AtomicInteger open = new AtomicInteger();
        final AtomicInteger opened = new AtomicInteger();

        CountingIO(FileIO io) {
            this.io = io;
        }

        @Override
        public InputFile newInputFile(String path) {
            return wrap(io.newInputFile(path));
        }

        @Override
        public InputFile newInputFile(String path, long length) {
            return wrap(io.newInputFile(path, length));
        }

        @Override
        public org.apache.iceberg.io.OutputFile newOutputFile(String path) {
            return io.newOutputFile(path);
        }

        @Override
        public void deleteFile(String path) {
            io.deleteFile(path);
        }

        private InputFile wrap(InputFile in) {
            return new InputFile() {
                @Override
                public long getLength() {
                    return in.getLength();
                }

                @Override
                public SeekableInputStream newStream() {
                    SeekableInputStream s = in.newStream();
                    open.incrementAndGet();
                    opened.incrementAndGet();
                    return new SeekableInputStream() {
                        boolean closed;

                        @Override
                        public long getPos() throws IOException {
                            return s.getPos();
                        }

                        @Override
                        public void seek(long pos) throws IOException {
                            s.seek(pos);
                        }

                        @Override
                        public int read() throws IOException {
                            return s.read();
                        }

                        @Override
                        public int read(byte[] b, int off, int len) throws IOException {
                            return s.read(b, off, len);
                        }

                        @Override
                        public void close() throws IOException {
                            if (!closed) {
                                closed = true;
                                open.decrementAndGet();
                            }
                            s.close();
                        }
                    };
                }

                @Override
                public String location() {
                    return in.location();
                }

                @Override
                public boolean exists() {
                    return in.exists();
                }
            };
        }
    }

    /**
     * A file the batches refuse (INT96 timestamps, as Spark and Impala wrote them) is read row by
     * row (here by the generic reader): every row once, positions 0..n-1, and every stream the read
     * opened closed, the batched read's included.
     */
    @Test
    void aRefusedFileIsReadOnceAndItsStreamsClosed() throws Exception {
        Catalog catalog =
                IcebergTestTables.open("local", IcebergTestTables.hadoopCatalog(dir.resolve("wh")));
        Table table = IcebergTestTables.create(catalog, "db.t", IcebergTestTables.Kind.AIVEN);
        MessageType type =
                org.apache.parquet.schema.Types.buildMessage()
                        .optionalGroup()
                        .optional(PrimitiveTypeName.INT32)
                        .id(2)
                        .named("partition")
                        .optional(PrimitiveTypeName.INT64)
                        .id(3)
                        .named("offset")
                        .optional(PrimitiveTypeName.INT96)
                        .id(4)
                        .named("timestamp")
                        .optional(PrimitiveTypeName.BINARY)
                        .id(5)
                        .named("key_raw")
                        .optional(PrimitiveTypeName.BINARY)
                        .id(6)
                        .named("value_raw")
                        .id(1)
                        .named("kafka")
                        .named("table");
        int n = 3000;
        InputFile file =
                writeRaw(
                        "int96.parquet",
                        type,
                        WriterVersion.PARQUET_1_0,
                        n,
                        (i, g) -> {
                            Group k = g.addGroup("kafka");
                            k.append("partition", 0);
                            k.append("offset", (long) i);
                            ByteBuffer t =
                                    ByteBuffer.allocate(12).order(java.nio.ByteOrder.LITTLE_ENDIAN);
                            t.putLong(1_000_000_000L * i); // nanos of the day
                            t.putInt(2_460_000); // Julian day
                            k.add("timestamp", Binary.fromConstantByteArray(t.array()));
                            k.append("value_raw", "v" + i);
                        });
        DataFile data =
                DataFiles.builder(PartitionSpec.unpartitioned())
                        .withInputFile(file)
                        .withRecordCount(n)
                        .withFormat(FileFormat.PARQUET)
                        .build();
        table.newAppend().appendFile(data).commit();
        table.refresh();

        CountingIO io = new CountingIO(table.io());
        TableFiles files = new TableFiles(io, "db.t");
        RowColumns columns = new RowColumns(IcebergTestTables.Kind.AIVEN.layout, "t");
        List<Long> positions = new ArrayList<>();
        List<Long> offsets = new ArrayList<>();
        int openMidway = -1;
        try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
            for (FileScanTask task : tasks) {
                try (TableFiles.FileRows rows =
                        files.readTableRows(
                                task,
                                table.schema(),
                                columns,
                                TableFiles.ValuesFrom.KAFKA_VALUES)) {
                    while (rows.hasNext()) {
                        positions.add(rows.next());
                        offsets.add(rows.row().kafkaOffset());
                        if (positions.size() == 10) {
                            openMidway = io.open.get();
                        }
                    }
                }
            }
        }
        List<Long> expected = new ArrayList<>();
        for (long i = 0; i < n; i++) {
            expected.add(i);
        }
        assertThat(positions).containsExactlyElementsOf(expected);
        assertThat(offsets).containsExactlyElementsOf(expected);
        assertThat(io.opened.get()).as("streams opened").isGreaterThanOrEqualTo(2);
        assertThat(openMidway).as("streams open while reading row by row").isEqualTo(1);
        assertThat(io.open.get()).as("streams left open").isZero();
    }
}
