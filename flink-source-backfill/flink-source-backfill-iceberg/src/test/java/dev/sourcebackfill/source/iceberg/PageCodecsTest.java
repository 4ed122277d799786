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

import com.github.luben.zstd.Zstd;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.compression.CompressionCodecFactory;
import org.apache.parquet.compression.CompressionCodecFactory.BytesInputDecompressor;
import org.apache.parquet.hadoop.CodecFactory;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * {@link PageCodecs}: a ZSTD page Parquet's own compressor made decompresses to its bytes, one
 * context for many pages, from any kind of buffer; a page whose size is not the header's fails,
 * naming both; every other codec is Parquet's own.
 */
class PageCodecsTest {

    private final CodecFactory parquets = new CodecFactory(new Configuration(), 0);
    private final PageCodecs codecs = new PageCodecs(new CodecFactory(new Configuration(), 0));

    @AfterEach
    void release() {
        codecs.release();
        parquets.release();
    }

    /** A page of {@code size} bytes, half random and half repeated (also for the edge cases). */
    static byte[] page(int size, long seed) {
        Random random = new Random(seed);
        byte[] page = new byte[size];
        for (int i = 0; i < size; i++) {
            page[i] = i % 2 == 0 ? (byte) random.nextInt(256) : (byte) (i / 64);
        }
        return page;
    }

    private byte[] compressed(CompressionCodecName codec, byte[] page) throws IOException {
        return parquets.getCompressor(codec).compress(BytesInput.from(page)).toByteArray();
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 17, 4096, 1 << 20, 3 << 20})
    void zstdPagesOfEverySizeDecompressToTheirBytesWithOneContext(int size) throws IOException {
        BytesInputDecompressor zstd = codecs.getDecompressor(CompressionCodecName.ZSTD);
        for (long seed = 0; seed < 3; seed++) {
            byte[] page = page(size, seed);
            byte[] compressed = compressed(CompressionCodecName.ZSTD, page);
            assertThat(zstd.decompress(BytesInput.from(compressed), size).toByteArray())
                    .isEqualTo(page);
        }
        assertThat(codecs.zstdContextOpen()).isTrue();
        // each decompressed whole, none left to Parquet's decompressor
        assertThat(codecs.zstdPagesWhole()).isEqualTo(3);
        assertThat(codecs.zstdPagesByParquet()).isZero();
    }

    /**
     * A column chunk's pages, one after another, are decompressed into one array, grown to the
     * largest page; another chunk's into its own (its page holds while the first chunk reads on).
     */
    @Test
    void aChunksPagesShareOneArrayAndEachChunkHasItsOwn() throws IOException {
        BytesInputDecompressor first = codecs.getDecompressor(CompressionCodecName.ZSTD);
        BytesInputDecompressor second = codecs.getDecompressor(CompressionCodecName.ZSTD);
        assertThat(second).isNotSameAs(first);
        byte[] otherPage = page(3000, 9);
        ByteBuffer other =
                second.decompress(
                                BytesInput.from(compressed(CompressionCodecName.ZSTD, otherPage)),
                                otherPage.length)
                        .toByteBuffer();
        byte[] array = null;
        int[] sizes = {5000, 5000, 1200, 8000, 700};
        for (int i = 0; i < sizes.length; i++) {
            byte[] page = page(sizes[i], i);
            ByteBuffer read =
                    first.decompress(
                                    BytesInput.from(compressed(CompressionCodecName.ZSTD, page)),
                                    page.length)
                            .toByteBuffer();
            byte[] bytes = new byte[read.remaining()];
            read.duplicate().get(bytes);
            assertThat(bytes).isEqualTo(page);
            assertThat(read.hasArray()).isTrue();
            if (i == 1 || i == 2 || i == 4) {
                // no larger than the array already: the same array
                assertThat(read.array()).isSameAs(array);
            }
            array = read.array();
            assertThat(array.length).isEqualTo(i < 3 ? 5000 : 8000);
        }
        // the other chunk's page is as it was decompressed
        byte[] bytes = new byte[other.remaining()];
        other.duplicate().get(bytes);
        assertThat(bytes).isEqualTo(otherPage);
        assertThat(codecs.zstdPagesWhole()).isEqualTo(6);
    }

    @Test
    void anEmptyPageIsEmpty() throws IOException {
        BytesInputDecompressor zstd = codecs.getDecompressor(CompressionCodecName.ZSTD);
        byte[] compressed = compressed(CompressionCodecName.ZSTD, new byte[0]);
        assertThat(zstd.decompress(BytesInput.from(compressed), 0).toByteArray()).isEmpty();
    }

    /**
     * A page inside a larger array (as a column chunk's buffer holds it), a read-only buffer (no
     * array to read) and a direct one.
     */
    @Test
    void pagesInSlicesReadOnlyAndDirectBuffers() throws IOException {
        BytesInputDecompressor zstd = codecs.getDecompressor(CompressionCodecName.ZSTD);
        byte[] page = page(100_000, 7);
        byte[] compressed = compressed(CompressionCodecName.ZSTD, page);
        byte[] chunk = new byte[compressed.length + 300];
        Arrays.fill(chunk, (byte) 0x5a);
        System.arraycopy(compressed, 0, chunk, 100, compressed.length);

        ByteBuffer inChunk = ByteBuffer.wrap(chunk, 100, compressed.length).slice();
        assertThat(zstd.decompress(BytesInput.from(inChunk), page.length).toByteArray())
                .isEqualTo(page);

        ByteBuffer readOnly = ByteBuffer.wrap(compressed).asReadOnlyBuffer();
        assertThat(readOnly.hasArray()).isFalse();
        assertThat(zstd.decompress(BytesInput.from(readOnly), page.length).toByteArray())
                .isEqualTo(page);

        ByteBuffer direct = ByteBuffer.allocateDirect(compressed.length);
        direct.put(compressed).flip();
        assertThat(zstd.decompress(BytesInput.from(direct), page.length).toByteArray())
                .isEqualTo(page);
    }

    /** The buffer-to-buffer call reads its page and no further, and moves both positions. */
    @Test
    void bufferToBufferMovesBothPositionsByThePage() throws IOException {
        BytesInputDecompressor zstd = codecs.getDecompressor(CompressionCodecName.ZSTD);
        byte[] first = page(5_000, 1);
        byte[] second = page(7_000, 2);
        byte[] a = compressed(CompressionCodecName.ZSTD, first);
        byte[] b = compressed(CompressionCodecName.ZSTD, second);
        ByteBuffer input = ByteBuffer.allocate(a.length + b.length);
        input.put(a).put(b).flip();
        ByteBuffer output = ByteBuffer.allocate(first.length + second.length + 10);

        zstd.decompress(input, a.length, output, first.length);
        assertThat(input.position()).isEqualTo(a.length);
        assertThat(output.position()).isEqualTo(first.length);
        zstd.decompress(input, b.length, output, second.length);
        assertThat(input.position()).isEqualTo(a.length + b.length);
        assertThat(output.position()).isEqualTo(first.length + second.length);

        byte[] both = new byte[first.length + second.length];
        output.flip().get(both);
        assertThat(Arrays.copyOfRange(both, 0, first.length)).isEqualTo(first);
        assertThat(Arrays.copyOfRange(both, first.length, both.length)).isEqualTo(second);

        assertThatThrownBy(() -> zstd.decompress(ByteBuffer.wrap(a), a.length + 1, output, 1))
                .isInstanceOf(IOException.class)
                .hasMessageContaining((a.length + 1) + " compressed bytes expected");
    }

    /**
     * A header that gives another size than the page's: the one call refuses the page and Parquet's
     * own decompressor reads it as it reads it for Iceberg's generic reader: a page shorter than
     * its header fails, naming both sizes; a longer one is cut at the header's size; bytes that are
     * not zstd fail.
     */
    @Test
    void aPageOfAnotherSizeThanItsHeaderReadsAsParquetReadsIt() throws IOException {
        BytesInputDecompressor zstd = codecs.getDecompressor(CompressionCodecName.ZSTD);
        BytesInputDecompressor parquet = parquets.getDecompressor(CompressionCodecName.ZSTD);
        byte[] page = page(10_000, 3);
        byte[] compressed = compressed(CompressionCodecName.ZSTD, page);
        // the header gives more: the page ends short of it
        assertThatThrownBy(() -> parquet.decompress(BytesInput.from(compressed), 10_001))
                .isInstanceOf(IOException.class);
        assertThatThrownBy(() -> zstd.decompress(BytesInput.from(compressed), 10_001))
                .isInstanceOf(IOException.class)
                .hasMessageContaining(
                        "ZSTD page of " + compressed.length + " bytes, 10001 bytes decompressed");
        // the header gives less: cut there, as Parquet cuts it
        assertThat(parquet.decompress(BytesInput.from(compressed), 9_999).toByteArray())
                .isEqualTo(Arrays.copyOf(page, 9_999));
        assertThat(zstd.decompress(BytesInput.from(compressed), 9_999).toByteArray())
                .isEqualTo(Arrays.copyOf(page, 9_999));
        // bytes that are not zstd
        assertThatThrownBy(() -> zstd.decompress(BytesInput.from(page), 10_000))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("ZSTD page of 10000 bytes, 10000 bytes decompressed");
        assertThat(codecs.zstdPagesWhole()).isZero();
        assertThat(codecs.zstdPagesByParquet()).isEqualTo(1);
        // the context is still good for the next page
        assertThat(zstd.decompress(BytesInput.from(compressed), 10_000).toByteArray())
                .isEqualTo(page);
        assertThat(codecs.zstdPagesWhole()).isEqualTo(1);
    }

    @Test
    void aPageReadAfterTheReadClosedFails() throws IOException {
        BytesInputDecompressor zstd = codecs.getDecompressor(CompressionCodecName.ZSTD);
        byte[] compressed = compressed(CompressionCodecName.ZSTD, page(100, 4));
        codecs.release();
        assertThat(codecs.zstdContextOpen()).isFalse();
        assertThatThrownBy(() -> zstd.decompress(BytesInput.from(compressed), 100))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("after its file's read was closed");
    }

    /** Every other codec: Parquet's own decompressor, which reads what Parquet compressed. */
    @ParameterizedTest
    @EnumSource(
            value = CompressionCodecName.class,
            names = {"SNAPPY", "GZIP", "UNCOMPRESSED"})
    void otherCodecsAreParquetsOwn(CompressionCodecName codec) throws IOException {
        CompressionCodecFactory.BytesInputDecompressor decompressor = codecs.getDecompressor(codec);
        assertThat(decompressor.getClass().getName()).startsWith("org.apache.parquet.");
        byte[] page = page(50_000, 5);
        assertThat(
                        decompressor
                                .decompress(BytesInput.from(compressed(codec, page)), page.length)
                                .toByteArray())
                .isEqualTo(page);
    }

    /**
     * A ZSTD page whose data ends short of its header's size (a corrupt header or page): the read
     * fails saying what the page decompressed to, not only Parquet's stream error (an {@link
     * java.io.EOFException} without a message).
     */
    @Test
    void aPageShorterThanItsHeaderFailsSayingWhatItDecompressedTo() {
        byte[] compressed = Zstd.compress(page(12_345, 7), 3);
        BytesInputDecompressor zstd = codecs.getDecompressor(CompressionCodecName.ZSTD);

        Throwable thrown =
                catchThrowable(() -> zstd.decompress(BytesInput.from(compressed), 12_346));

        assertThat(thrown).isInstanceOf(IOException.class);
        assertThat(thrown.getMessage())
                .contains("12346")
                .as("the page's own size, 12345 bytes, named")
                .contains("12345")
                .doesNotEndWith("null");
    }

    @Test
    void aPageShorterThanItsHeaderInADirectBufferFailsSayingWhatItDecompressedTo() {
        byte[] compressed = Zstd.compress(page(12_345, 7), 3);
        ByteBuffer input = ByteBuffer.allocateDirect(compressed.length);
        input.put(compressed).flip();
        ByteBuffer output = ByteBuffer.allocateDirect(12_346);
        BytesInputDecompressor zstd = codecs.getDecompressor(CompressionCodecName.ZSTD);

        Throwable thrown =
                catchThrowable(() -> zstd.decompress(input, compressed.length, output, 12_346));

        assertThat(thrown).isInstanceOf(IOException.class);
        assertThat(thrown.getMessage())
                .as("the page's own size, 12345 bytes, named")
                .contains("12345")
                .doesNotEndWith("null");
    }
}
