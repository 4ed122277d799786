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

import com.github.luben.zstd.ZstdDecompressCtx;
import com.github.luben.zstd.ZstdException;
import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.compression.CompressionCodecFactory;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;

import javax.annotation.Nullable;

import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * The page codecs of one Parquet file's read: a ZSTD page is decompressed whole, in one call, with
 * a zstd context the read keeps for all its pages, into an array its column chunk reuses from page
 * to page; every other codec is Parquet's own (the factory the read options made).
 *
 * <p>Parquet's own ZSTD decompressor opens a zstd stream per page: a native context created and
 * freed, a 128 KiB input buffer allocated, the page copied through it in pieces. On a table's
 * history read that was about a tenth of the fetcher thread's CPU, most of it the C heap mapping
 * and unmapping the context's memory page after page (docs/benchmarks.md, section 11's profile). A
 * page's decompressed size is in its header, so the page can be decompressed at once into an array
 * of that size.
 *
 * <p>Parquet asks for a decompressor once per column chunk (a column of a row group) and asks it
 * for the chunk's pages one after another, each when its reader is done with the one before: a
 * value page of about 1 MiB would otherwise be a new array each time, zeroed, and in a heap of 1
 * MiB regions a humongous allocation. So each chunk's decompressor keeps the array of its largest
 * page so far, and a page it returns holds only until the chunk's next page is asked for. The one
 * reader of these pages, {@link ColumnBatchReader}, copies out every value it keeps (and decodes a
 * chunk's dictionary page before its first data page).
 *
 * <p>A page the one call does not decompress to exactly that size (bytes after its last frame, data
 * longer than the header says, or not zstd at all) is decompressed again by Parquet's own ZSTD
 * decompressor, which reads a stream up to the header's size: the page then reads as Iceberg's
 * generic reader reads it, or fails as it fails (the error naming the page's sizes).
 *
 * <p>Not thread-safe: one read, on one thread, as a {@link
 * org.apache.parquet.hadoop.ParquetFileReader} reads its pages. {@link #release()} (the file
 * reader's close) frees the zstd context.
 */
@Internal
final class PageCodecs implements CompressionCodecFactory {

    private final CompressionCodecFactory parquets;

    /** Parquet's own ZSTD decompressor, for a page the one call refuses; made at the first. */
    @Nullable private BytesInputDecompressor parquetsZstd;

    /** Made at the first ZSTD chunk, freed at the release. */
    @Nullable private ZstdDecompressCtx context;

    private boolean released;
    private long whole;
    private long byParquet;

    /**
     * @param parquets Parquet's factory, for every codec but ZSTD and for compression
     */
    PageCodecs(CompressionCodecFactory parquets) {
        this.parquets = parquets;
    }

    /** For ZSTD, a decompressor of one column chunk's pages; else Parquet's own. */
    @Override
    public BytesInputDecompressor getDecompressor(CompressionCodecName codec) {
        if (codec != CompressionCodecName.ZSTD) {
            return parquets.getDecompressor(codec);
        }
        if (context == null && !released) {
            context = new ZstdDecompressCtx();
        }
        return new ZstdChunk();
    }

    @Override
    public BytesInputCompressor getCompressor(CompressionCodecName codec) {
        return parquets.getCompressor(codec);
    }

    @Override
    public void release() {
        released = true;
        try {
            if (context != null) {
                context.close();
                context = null;
            }
        } finally {
            parquets.release();
        }
    }

    /** The ZSTD pages decompressed whole so far (not by Parquet's decompressor). */
    @VisibleForTesting
    long zstdPagesWhole() {
        return whole;
    }

    /** The ZSTD pages Parquet's own decompressor decompressed, after the one call refused them. */
    @VisibleForTesting
    long zstdPagesByParquet() {
        return byParquet;
    }

    /** Whether the zstd context is open (made at the first ZSTD chunk, freed at the release). */
    @VisibleForTesting
    boolean zstdContextOpen() {
        return context != null;
    }

    /** One column chunk's ZSTD pages, each decompressed whole into the chunk's array. */
    private final class ZstdChunk implements BytesInputDecompressor {

        /** The array of the chunk's pages: its largest page's size, once that page was read. */
        private byte[] pages = new byte[0];

        @Override
        public BytesInput decompress(BytesInput page, int size) throws IOException {
            if (size == 0) {
                return BytesInput.empty();
            }
            ByteBuffer bytes = page.toByteBuffer();
            String refused = decompressWhole(bytes, size);
            if (refused == null) {
                return BytesInput.from(pages, 0, size);
            }
            return byParquet(bytes, size, refused);
        }

        @Override
        public void decompress(ByteBuffer input, int compressedSize, ByteBuffer output, int size)
                throws IOException {
            if (input.remaining() < compressedSize) {
                throw new IOException(
                        "ZSTD page: "
                                + compressedSize
                                + " compressed bytes expected, "
                                + input.remaining()
                                + " left in the buffer");
            }
            ByteBuffer page = input.slice();
            page.limit(compressedSize);
            if (size > 0) {
                String refused = decompressWhole(page, size);
                if (refused == null) {
                    output.put(pages, 0, size);
                } else {
                    output.put(byParquet(page, size, refused).toByteBuffer());
                }
            }
            input.position(input.position() + compressedSize);
        }

        /**
         * The whole page, {@code page}'s remaining bytes, into the first {@code size} bytes of
         * {@link #pages}; {@code null}, or why the one call refused the page or did not decompress
         * it to exactly {@code size} bytes.
         */
        @Nullable
        private String decompressWhole(ByteBuffer page, int size) throws IOException {
            if (context == null) {
                throw new IOException("ZSTD page read after its file's read was closed");
            }
            if (pages.length < size) {
                pages = new byte[size];
            }
            int compressed = page.remaining();
            int read;
            try {
                if (page.hasArray()) {
                    read =
                            context.decompressByteArray(
                                    pages,
                                    0,
                                    size,
                                    page.array(),
                                    page.arrayOffset() + page.position(),
                                    compressed);
                } else {
                    // a read-only or direct buffer: copied (zstd-jni's direct-to-array call is
                    // not in the older zstd-jni a job may bring)
                    byte[] bytes = new byte[compressed];
                    page.duplicate().get(bytes);
                    read = context.decompressByteArray(pages, 0, size, bytes, 0, compressed);
                }
            } catch (ZstdException e) {
                return e.getMessage();
            }
            if (read != size) {
                return "decompressed to " + read + " bytes";
            }
            whole++;
            return null;
        }

        /**
         * The page as Parquet's own ZSTD decompressor reads it (a stream, up to {@code size}),
         * after the one call {@code refused} it.
         */
        private BytesInput byParquet(ByteBuffer page, int size, String refused) throws IOException {
            int compressed = page.remaining();
            try {
                if (parquetsZstd == null) {
                    parquetsZstd = parquets.getDecompressor(CompressionCodecName.ZSTD);
                }
                // read here, in full (a decompressor may hand over a stream read later)
                byte[] read = parquetsZstd.decompress(BytesInput.from(page), size).toByteArray();
                byParquet++;
                return BytesInput.from(read);
            } catch (IOException | RuntimeException e) {
                throw new IOException(
                        "ZSTD page of "
                                + compressed
                                + " bytes, "
                                + size
                                + " bytes decompressed in its header: "
                                + e.getMessage()
                                + " (decompressed whole: "
                                + refused
                                + ")",
                        e);
            }
        }

        @Override
        public void release() {}
    }
}
