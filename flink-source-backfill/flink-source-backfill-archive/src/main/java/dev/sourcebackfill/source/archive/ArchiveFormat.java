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
package dev.sourcebackfill.source.archive;

import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.file.src.reader.StreamFormat;
import org.apache.flink.core.fs.FSDataInputStream;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.util.Collector;
import org.apache.flink.util.UserCodeClassLoader;

import javax.annotation.Nullable;

import java.io.IOException;
import java.io.InputStream;
import java.io.Serializable;
import java.util.Arrays;

/**
 * How the records of an archive file are read, on Flink's format stack: newline-delimited records
 * through a {@link DeserializationSchema}, or any {@link StreamFormat} (Flink's file formats). Each
 * file is read from its start, decompressed first if its name ends in a compression extension
 * Flink's file source knows ({@code .gz}, {@code .deflate}, {@code .bz2}, {@code .xz}).
 */
@PublicEvolving
public abstract class ArchiveFormat<T> implements Serializable {

    private static final long serialVersionUID = 1L;

    private ArchiveFormat() {}

    /**
     * Newline-delimited records (JSON lines with {@code flink-json}'s schemas, raw strings with
     * {@code SimpleStringSchema}, ...): each line's bytes go to {@code schema} as the file holds
     * them, without the line end ({@code \n} or {@code \r\n}; a lone {@code \r} belongs to the
     * record). A line the schema turns into {@code null} is dropped; it keeps its place (its
     * offset) in the file.
     */
    public static <T> ArchiveFormat<T> lines(DeserializationSchema<T> schema) {
        return new Lines<>(schema);
    }

    /** Records as a Flink {@link StreamFormat} reads them, one offset per record. */
    public static <T> ArchiveFormat<T> of(StreamFormat<T> format) {
        return new Stream<>(format);
    }

    abstract TypeInformation<T> producedType();

    /** Called once per reader before the first file is opened. */
    abstract void open(DeserializationSchema.InitializationContext context) throws Exception;

    abstract RecordReader<T> open(FSDataInputStream stream, long length) throws IOException;

    /**
     * Whether the format reads lines: then a reader may deliver each line's bytes ({@link
     * #openLines}) and make its values later ({@link #deserializeLine}), in the task thread.
     */
    abstract boolean readsLines();

    /** Reads a file's lines as bytes, for a format that {@link #readsLines}. */
    RecordReader<byte[]> openLines(FSDataInputStream stream, long length) {
        throw new UnsupportedOperationException(this + " does not read lines");
    }

    /**
     * Makes the values of one line's bytes, for a format that {@link #readsLines} (opened).
     *
     * @throws IOException or a runtime exception of the schema if the line cannot be read
     */
    void deserializeLine(byte[] line, Collector<T> out) throws IOException {
        throw new UnsupportedOperationException(this + " does not read lines");
    }

    /** Reads one file: each {@link #next()} moves to the next record (or dropped record). */
    interface RecordReader<T> extends AutoCloseable {
        /** Moves to the next record; {@code false} at the end of the file. */
        boolean next() throws IOException;

        /** The current record; {@code null} if the format dropped it or could not read it. */
        @Nullable
        T value();

        /**
         * Why the current record could not be read, if the format read past it (a line whose
         * content the schema rejects); {@code null} otherwise.
         */
        @Nullable
        default Exception unreadable() {
            return null;
        }

        @Override
        void close() throws IOException;
    }

    private static final class Lines<T> extends ArchiveFormat<T> {
        private static final long serialVersionUID = 1L;

        private final DeserializationSchema<T> schema;

        Lines(DeserializationSchema<T> schema) {
            this.schema = schema;
        }

        @Override
        TypeInformation<T> producedType() {
            return schema.getProducedType();
        }

        @Override
        void open(DeserializationSchema.InitializationContext context) throws Exception {
            schema.open(context);
        }

        @Override
        boolean readsLines() {
            return true;
        }

        @Override
        RecordReader<byte[]> openLines(FSDataInputStream stream, long length) {
            LineReader lines = new LineReader(stream);
            return new RecordReader<>() {
                @Nullable private byte[] line;

                @Override
                public boolean next() throws IOException {
                    line = lines.next();
                    return line != null;
                }

                @Nullable
                @Override
                public byte[] value() {
                    return line;
                }

                @Override
                public void close() throws IOException {
                    lines.close();
                }
            };
        }

        @Override
        void deserializeLine(byte[] line, Collector<T> out) throws IOException {
            schema.deserialize(line, out);
        }

        /** The lines of {@link #openLines}, each made a value here, in the reader's thread. */
        @Override
        RecordReader<T> open(FSDataInputStream stream, long length) {
            RecordReader<byte[]> lines = openLines(stream, length);
            return new RecordReader<>() {
                @Nullable private T value;
                @Nullable private Exception unreadable;

                @Override
                public boolean next() throws IOException {
                    if (!lines.next()) {
                        return false;
                    }
                    try {
                        value = schema.deserialize(lines.value());
                        unreadable = null;
                    } catch (IOException | RuntimeException e) {
                        // the line is read: the next one can be
                        value = null;
                        unreadable = e;
                    }
                    return true;
                }

                @Nullable
                @Override
                public T value() {
                    return value;
                }

                @Nullable
                @Override
                public Exception unreadable() {
                    return unreadable;
                }

                @Override
                public void close() throws IOException {
                    lines.close();
                }
            };
        }

        @Override
        public String toString() {
            return "lines(" + schema.getClass().getSimpleName() + ")";
        }
    }

    private static final class Stream<T> extends ArchiveFormat<T> {
        private static final long serialVersionUID = 1L;

        private final StreamFormat<T> format;

        Stream(StreamFormat<T> format) {
            this.format = format;
        }

        @Override
        TypeInformation<T> producedType() {
            return format.getProducedType();
        }

        @Override
        void open(DeserializationSchema.InitializationContext context) {}

        @Override
        boolean readsLines() {
            return false;
        }

        @Override
        RecordReader<T> open(FSDataInputStream stream, long length) throws IOException {
            StreamFormat.Reader<T> reader =
                    format.createReader(new Configuration(), stream, length, length);
            return new RecordReader<>() {
                @Nullable private T value;

                @Override
                public boolean next() throws IOException {
                    value = reader.read();
                    return value != null;
                }

                @Nullable
                @Override
                public T value() {
                    return value;
                }

                @Override
                public void close() throws IOException {
                    reader.close();
                }
            };
        }

        @Override
        public String toString() {
            return "streamFormat(" + format.getClass().getSimpleName() + ")";
        }
    }

    /**
     * Splits a stream into the bytes of its lines, as the file holds them (no decoding): a line
     * ends at {@code \n} or {@code \r\n}; a lone {@code \r} is part of the record. The last line
     * needs no line end; an empty stream has no line.
     */
    static final class LineReader implements AutoCloseable {
        private final InputStream in;
        private final byte[] buffer = new byte[64 * 1024];
        private int position;
        private int limit;
        private byte[] line = new byte[256];

        LineReader(InputStream in) {
            this.in = in;
        }

        /** The next line's bytes without its line end; {@code null} at the end of the stream. */
        @Nullable
        byte[] next() throws IOException {
            int length = 0;
            while (true) {
                if (position == limit) {
                    limit = in.read(buffer, 0, buffer.length);
                    position = 0;
                    if (limit <= 0) {
                        limit = 0;
                        return length == 0 ? null : Arrays.copyOf(line, length);
                    }
                }
                int start = position;
                while (position < limit && buffer[position] != '\n') {
                    position++;
                }
                int chunk = position - start;
                if (length + chunk > line.length) {
                    line = Arrays.copyOf(line, Math.max(line.length * 2, length + chunk));
                }
                System.arraycopy(buffer, start, line, length, chunk);
                length += chunk;
                if (position < limit) {
                    position++; // the '\n'
                    if (length > 0 && line[length - 1] == '\r') {
                        length--;
                    }
                    return Arrays.copyOf(line, length);
                }
            }
        }

        @Override
        public void close() throws IOException {
            in.close();
        }
    }

    /** The context a schema is opened with: the reader's metric group and class loader. */
    static DeserializationSchema.InitializationContext context(
            MetricGroup metricGroup, UserCodeClassLoader classLoader) {
        return new DeserializationSchema.InitializationContext() {
            @Override
            public MetricGroup getMetricGroup() {
                return metricGroup;
            }

            @Override
            public UserCodeClassLoader getUserCodeClassLoader() {
                return classLoader;
            }
        };
    }
}
