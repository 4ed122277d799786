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
import org.apache.parquet.compression.CompressionCodecFactory.BytesInputDecompressor;
import org.apache.parquet.hadoop.CodecFactory;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * A ZSTD page whose data ends short of its header's size (a corrupt header or page): the read fails
 * saying what the page decompressed to, not only Parquet's stream error (an {@link
 * java.io.EOFException} without a message).
 */
class PageCodecsShortPageFailureMessageTest {

    private final PageCodecs codecs = new PageCodecs(new CodecFactory(new Configuration(), 0));

    @AfterEach
    void release() {
        codecs.release();
    }

    private static byte[] page(int size) {
        Random random = new Random(7);
        byte[] page = new byte[size];
        for (int i = 0; i < size; i++) {
            page[i] = i % 3 == 0 ? (byte) random.nextInt(256) : (byte) (i / 100);
        }
        return page;
    }

    @Test
    void aPageShorterThanItsHeaderFailsSayingWhatItDecompressedTo() {
        byte[] compressed = Zstd.compress(page(12_345), 3);
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
        byte[] compressed = Zstd.compress(page(12_345), 3);
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
