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

import com.github.luben.zstd.Zstd;
import com.github.luben.zstd.ZstdOutputStream;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.column.page.DataPageV2;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.column.page.PageReader;
import org.apache.parquet.compression.CompressionCodecFactory.BytesInputDecompressor;
import org.apache.parquet.hadoop.CodecFactory;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link PageCodecs} against Parquet's own ZSTD decompressor: a page's bytes as Parquet gives them,
 * for the frame shapes writers make, bytes after the last frame and pages split over buffers;
 * through {@link TableFiles}, v2 pages and several row groups of a ZSTD table read with {@link
 * PageCodecs} (each page decompressed whole), its zstd context freed once the read closes, early or
 * at the end.
 */
class PageCodecsEdgeCasesTest {

    private static final String TOPIC = "orders";

    @TempDir Path warehouse;
    private Catalog catalog;

    private final CodecFactory parquets = new CodecFactory(new Configuration(), 0);
    private final PageCodecs codecs = new PageCodecs(new CodecFactory(new Configuration(), 0));

    @BeforeEach
    void openCatalog() {
        catalog = IcebergTestTables.open("local", IcebergTestTables.hadoopCatalog(warehouse));
    }

    @AfterEach
    void release() {
        codecs.release();
        parquets.release();
    }

    private static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] part : parts) {
            out.writeBytes(part);
        }
        return out.toByteArray();
    }

    /** A zstd stream's frame: no content size in its header (as a streaming writer makes it). */
    private static byte[] streamed(byte[] page) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (ZstdOutputStream zstd = new ZstdOutputStream(out)) {
            zstd.setChecksum(true);
            zstd.write(page);
        }
        return out.toByteArray();
    }

    /** A skippable frame (magic 0x184D2A50, little endian), then {@code length} bytes. */
    private static byte[] skippable(int length) {
        ByteBuffer frame = ByteBuffer.allocate(8 + length).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        frame.putInt(0x184D2A50).putInt(length);
        return frame.array();
    }

    private byte[] parquetReads(byte[] compressed, int size) throws IOException {
        return parquets.getDecompressor(CompressionCodecName.ZSTD)
                .decompress(BytesInput.from(compressed), size)
                .toByteArray();
    }

    private byte[] pageCodecsReads(byte[] compressed, int size) throws IOException {
        return codecs.getDecompressor(CompressionCodecName.ZSTD)
                .decompress(BytesInput.from(compressed), size)
                .toByteArray();
    }

    /**
     * Frames a writer may give a page: one-shot with its content size, streamed without it (and
     * with a checksum), two frames one after the other, a skippable frame before the data: the
     * page's bytes as Parquet's own decompressor gives them.
     */
    @ParameterizedTest
    @ValueSource(strings = {"oneShot", "streamed", "twoFrames", "skippableFirst"})
    void framesOfEveryShapeDecompressAsParquetsOwn(String shape) throws IOException {
        byte[] page = PageCodecsTest.page(300_000, 11);
        byte[] half1 = Arrays.copyOfRange(page, 0, 123_456);
        byte[] half2 = Arrays.copyOfRange(page, 123_456, page.length);
        byte[] compressed;
        switch (shape) {
            case "oneShot":
                compressed = Zstd.compress(page, 3);
                break;
            case "streamed":
                compressed = streamed(page);
                break;
            case "twoFrames":
                compressed = concat(Zstd.compress(half1, 1), streamed(half2));
                break;
            default:
                compressed = concat(skippable(16), Zstd.compress(page, 3));
        }
        assertThat(parquetReads(compressed, page.length)).isEqualTo(page);
        assertThat(pageCodecsReads(compressed, page.length)).isEqualTo(page);
    }

    /**
     * A page whose frame is followed by other bytes (padding a writer left): Parquet's own
     * decompressor stops at the header's size; the one zstd call refuses the page, which Parquet's
     * decompressor then reads, so the page reads as the generic reader reads it.
     */
    @Test
    void aFrameFollowedByPaddingReadsAsParquetReadsIt() throws IOException {
        byte[] page = PageCodecsTest.page(50_000, 12);
        byte[] compressed = concat(Zstd.compress(page, 3), new byte[16]);
        // Parquet's own decompressor: the page's bytes
        assertThat(parquetReads(compressed, page.length)).isEqualTo(page);
        // PageCodecs: the same, through Parquet's decompressor
        assertThat(pageCodecsReads(compressed, page.length)).isEqualTo(page);
        assertThat(codecs.zstdPagesByParquet()).isEqualTo(1);
        assertThat(codecs.zstdPagesWhole()).isZero();
    }

    /**
     * A page whose bytes are in two buffers (a column chunk read in parts of Parquet's allocation
     * size, the page across the boundary): its bytes.
     */
    @Test
    void aPageAcrossTwoBuffersDecompressesToItsBytes() throws IOException {
        byte[] page = PageCodecsTest.page(200_000, 13);
        byte[] compressed = Zstd.compress(page, 3);
        int cut = compressed.length / 3;
        ByteBuffer first = ByteBuffer.allocateDirect(cut);
        first.put(compressed, 0, cut).flip();
        ByteBuffer second = ByteBuffer.wrap(compressed, cut, compressed.length - cut).slice();
        BytesInputDecompressor zstd = codecs.getDecompressor(CompressionCodecName.ZSTD);
        assertThat(
                        zstd.decompress(BytesInput.from(List.of(first, second)), page.length)
                                .toByteArray())
                .isEqualTo(page);
    }

    // ---- through TableFiles ----------------------------------------------------------------

    private Table zstdTable(String pageVersion, int rows, int valueBytes) {
        Table table = IcebergTestTables.create(catalog, "db.t", Kind.REDPANDA);
        table.updateProperties()
                .set(TableProperties.PARQUET_COMPRESSION, "zstd")
                .set(TableProperties.PARQUET_PAGE_VERSION, pageVersion)
                .set(TableProperties.PARQUET_PAGE_SIZE_BYTES, "8192")
                .set(TableProperties.PARQUET_PAGE_ROW_LIMIT, "50")
                .set(TableProperties.PARQUET_DICT_SIZE_BYTES, "4096")
                .set(TableProperties.PARQUET_ROW_GROUP_SIZE_BYTES, "65536")
                .set(TableProperties.PARQUET_ROW_GROUP_CHECK_MIN_RECORD_COUNT, "10")
                .set(TableProperties.PARQUET_ROW_GROUP_CHECK_MAX_RECORD_COUNT, "50")
                .commit();
        Random random = new Random(5);
        List<Record> records = new ArrayList<>();
        for (long offset = 0; offset < rows; offset++) {
            StringBuilder value = new StringBuilder("value " + offset + " ");
            int length = random.nextInt(valueBytes);
            for (int i = 0; i < length; i++) {
                value.append((char) ('a' + random.nextInt(26)));
            }
            records.add(
                    IcebergTestTables.row(
                            Kind.REDPANDA,
                            table.schema(),
                            TOPIC,
                            (int) (offset % 2),
                            offset,
                            value.toString()));
        }
        IcebergTestTables.append(table, records);
        table.refresh();
        return table;
    }

    private static List<FileScanTask> tasks(Table table) throws IOException {
        List<FileScanTask> tasks = new ArrayList<>();
        try (CloseableIterable<FileScanTask> planned = table.newScan().planFiles()) {
            planned.forEach(tasks::add);
        }
        return tasks;
    }

    private static String text(long position, TableRow row, RowColumns columns) {
        byte[] value = row.row() == null ? row.value() : columns.value(row.row());
        return position
                + " "
                + row.partition()
                + "@"
                + row.kafkaOffset()
                + " "
                + row.timestamp()
                + " "
                + new String(value, StandardCharsets.UTF_8);
    }

    /**
     * A ZSTD table of v1 or v2 pages, pages of at most 50 rows, several row groups a file, a
     * dictionary that fills up (dictionary pages then plain pages): through {@link TableFiles}, the
     * batched read gives the generic reader's rows, and its pages went through {@link PageCodecs}
     * (a zstd context open while it reads, freed once the read is closed).
     */
    @ParameterizedTest
    @ValueSource(strings = {"v1", "v2"})
    void zstdTablesOfV1AndV2PagesReadInBatchesThroughPageCodecs(String pageVersion)
            throws Exception {
        Table table = zstdTable(pageVersion, 4_000, 300);
        RowColumns columns = new RowColumns(Kind.REDPANDA.layout, TOPIC);
        TableFiles files = new TableFiles(table.io(), "db.t");
        int rowGroups = 0;
        boolean v2Pages = false;
        for (FileScanTask task : tasks(table)) {
            try (ParquetFileReader footer =
                    ParquetFileReader.open(
                            HadoopInputFile.fromPath(
                                    new org.apache.hadoop.fs.Path(task.file().location()),
                                    new Configuration()))) {
                for (BlockMetaData rowGroup : footer.getFooter().getBlocks()) {
                    rowGroups++;
                    for (ColumnChunkMetaData column : rowGroup.getColumns()) {
                        assertThat(column.getCodec()).isEqualTo(CompressionCodecName.ZSTD);
                    }
                }
                PageReadStore first = footer.readNextRowGroup();
                PageReader pages =
                        first.getPageReader(
                                footer.getFooter()
                                        .getFileMetaData()
                                        .getSchema()
                                        .getColumns()
                                        .get(0));
                v2Pages |= pages.readPage() instanceof DataPageV2;
            }
            List<String> batched = new ArrayList<>();
            try (TableFiles.FileRows read =
                    files.readTableRows(
                            task, table.schema(), columns, TableFiles.ValuesFrom.KAFKA_VALUES)) {
                PageCodecs factory = read.pageCodecs();
                assertThat(factory).isNotNull();
                while (read.hasNext()) {
                    long position = read.next();
                    batched.add(text(position, read.row(), columns));
                    // the read's pages go through PageCodecs, with a live zstd context
                    assertThat(factory.zstdContextOpen()).isTrue();
                }
                assertThat(read.readInBatches()).isTrue();
                // every page decompressed whole (none left to Parquet's decompressor): more
                // pages than the file's row groups have columns
                assertThat(factory.zstdPagesByParquet()).isZero();
                assertThat(factory.zstdPagesWhole()).isGreaterThan(20);
                read.close();
                assertThat(factory.zstdContextOpen()).isFalse();
            }
            List<String> generic = new ArrayList<>();
            try (TableFiles.FileRows read =
                    files.readTableRows(
                            task, table.schema(), columns, TableFiles.ValuesFrom.ROWS)) {
                while (read.hasNext()) {
                    long position = read.next();
                    generic.add(text(position, read.row(), columns));
                }
            }
            assertThat(batched).isNotEmpty().containsExactlyElementsOf(generic);
        }
        assertThat(rowGroups).isGreaterThan(2);
        assertThat(v2Pages).isEqualTo(pageVersion.equals("v2"));
    }

    /** A batched read closed after its first row: its zstd context is freed. */
    @Test
    void aReadClosedEarlyFreesItsZstdContext() throws Exception {
        Table table = zstdTable("v1", 2_000, 200);
        RowColumns columns = new RowColumns(Kind.REDPANDA.layout, TOPIC);
        TableFiles files = new TableFiles(table.io(), "db.t");
        FileScanTask task = tasks(table).get(0);
        TableFiles.FileRows read =
                files.readTableRows(
                        task, table.schema(), columns, TableFiles.ValuesFrom.KAFKA_VALUES);
        assertThat(read.hasNext()).isTrue();
        read.next();
        read.row();
        PageCodecs factory = read.pageCodecs();
        assertThat(factory).isNotNull();
        assertThat(factory.zstdContextOpen()).isTrue();
        read.close();
        assertThat(factory.zstdContextOpen()).isFalse();
    }
}
