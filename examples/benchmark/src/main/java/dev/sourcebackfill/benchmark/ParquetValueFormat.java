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
package dev.sourcebackfill.benchmark;

import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.file.src.reader.StreamFormat;
import org.apache.flink.connector.file.src.util.CheckpointedPosition;
import org.apache.flink.core.fs.FSDataInputStream;
import org.apache.flink.formats.parquet.avro.AvroParquetReaders;

import org.apache.avro.Schema;
import org.apache.avro.generic.GenericRecord;

import javax.annotation.Nullable;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * What a user of Flink's {@code FileSource} reads an Iceberg table's Parquet data files with, to
 * put it in front of a {@code KafkaSource} of {@code String} values in a {@code HybridSource}:
 * Flink's {@link AvroParquetReaders#forGenericRecord} (flink-parquet's Avro reader over
 * parquet-avro), each row's {@code value} bytes made a string as the topic's {@code
 * SimpleStringSchema} makes them. A {@code HybridSource}'s sources all produce the same type, so
 * the string is made here, in the fetcher thread, and not in a {@code map} after the source.
 *
 * <p>Tuned: given a projection, the reader reads only those columns (parquet-avro's {@code
 * parquet.avro.projection}, passed as {@code flink.hadoop.parquet.avro.projection}: flink-parquet
 * makes the Hadoop configuration of its Parquet reader from the Flink configuration with Flink's
 * {@code HadoopUtils}, which takes the {@code flink.hadoop.} keys).
 */
final class ParquetValueFormat implements StreamFormat<String> {

    private static final long serialVersionUID = 1L;

    private static final String PROJECTION = "flink.hadoop.parquet.avro.projection";

    private final StreamFormat<GenericRecord> parquet;
    @Nullable private final String projection;

    /**
     * @param schema the Avro schema of the table's rows (Iceberg's {@code AvroSchemaUtil})
     * @param projection the Avro schema of the columns to read, a record with a {@code value}
     *     field; {@code null}: every column
     */
    ParquetValueFormat(Schema schema, @Nullable Schema projection) {
        this.parquet = AvroParquetReaders.forGenericRecord(schema);
        this.projection = projection == null ? null : projection.toString();
    }

    private Configuration withProjection(Configuration config) {
        if (projection == null) {
            return config;
        }
        Configuration projected = new Configuration(config);
        projected.setString(PROJECTION, projection);
        return projected;
    }

    @Override
    public Reader<String> createReader(
            Configuration config, FSDataInputStream stream, long fileLen, long splitEnd)
            throws IOException {
        return new ValueReader(
                parquet.createReader(withProjection(config), stream, fileLen, splitEnd),
                projection != null);
    }

    @Override
    public Reader<String> restoreReader(
            Configuration config,
            FSDataInputStream stream,
            long restoredOffset,
            long fileLen,
            long splitEnd)
            throws IOException {
        return new ValueReader(
                parquet.restoreReader(
                        withProjection(config), stream, restoredOffset, fileLen, splitEnd),
                projection != null);
    }

    @Override
    public boolean isSplittable() {
        return parquet.isSplittable();
    }

    @Override
    public TypeInformation<String> getProducedType() {
        return Types.STRING;
    }

    /** The rows' {@code value} bytes as strings (UTF-8). */
    private static final class ValueReader implements StreamFormat.Reader<String> {
        private final StreamFormat.Reader<GenericRecord> rows;

        /** Whether the first row is still to be checked to hold the value column alone. */
        private boolean checkProjection;

        ValueReader(StreamFormat.Reader<GenericRecord> rows, boolean projected) {
            this.rows = rows;
            this.checkProjection = projected;
        }

        @Nullable
        @Override
        public String read() throws IOException {
            GenericRecord row = rows.read();
            if (row == null) {
                return null;
            }
            if (checkProjection) {
                // a projection the reader did not take would read every column silently
                if (row.getSchema().getFields().size() != 1) {
                    throw new IllegalStateException(
                            "The Parquet reader read more than the value column: "
                                    + row.getSchema());
                }
                checkProjection = false;
            }
            ByteBuffer value = (ByteBuffer) row.get("value");
            if (value.hasArray()) {
                return new String(
                        value.array(),
                        value.arrayOffset() + value.position(),
                        value.remaining(),
                        StandardCharsets.UTF_8);
            }
            byte[] bytes = new byte[value.remaining()];
            value.duplicate().get(bytes);
            return new String(bytes, StandardCharsets.UTF_8);
        }

        @Nullable
        @Override
        public CheckpointedPosition getCheckpointedPosition() {
            return rows.getCheckpointedPosition();
        }

        @Override
        public void close() throws IOException {
            rows.close();
        }
    }
}
