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

import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Types;

import javax.annotation.Nullable;

import java.io.Serializable;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;

/**
 * The layout's columns of a row read by this adapter: its Kafka topic, partition, offset and
 * timestamp, its key, value and headers, and its position in its data file ({@code _pos}).
 */
@Internal
final class RowColumns implements Serializable {

    private static final long serialVersionUID = 1L;

    private final IcebergLayout layout;
    private final String[] partition;
    private final String[] offset;
    private final String[] timestamp;
    @Nullable private final String[] topic;
    @Nullable private final String[] key;
    @Nullable private final String[] value;
    @Nullable private final String[] headers;

    /** The topic of every row, if the layout has no topic column (the source's only topic). */
    @Nullable private final String onlyTopic;

    RowColumns(IcebergLayout layout, @Nullable String onlyTopic) {
        this.layout = layout;
        this.partition = path(layout.partitionColumn());
        this.offset = path(layout.offsetColumn());
        this.timestamp = path(layout.timestampColumn());
        this.topic = layout.topicColumn().map(RowColumns::path).orElse(null);
        this.key = layout.keyColumn().map(RowColumns::path).orElse(null);
        this.value = layout.valueColumn().map(RowColumns::path).orElse(null);
        this.headers = layout.headersColumn().map(RowColumns::path).orElse(null);
        this.onlyTopic = onlyTopic;
    }

    private static String[] path(String column) {
        return column.split("\\.");
    }

    IcebergLayout layout() {
        return layout;
    }

    /**
     * Checks that the table's schema has the layout's partition, offset and timestamp columns (and
     * its topic column, if it names one), of types that can hold them, and its value column if
     * {@code needsValue}; names the table, the column and what is wrong. A key or headers column
     * the table does not have is read as absent (not every version of a writer has them).
     */
    static void check(IcebergLayout layout, Schema schema, String table, boolean needsValue) {
        checkColumn(schema, table, layout.partitionColumn(), "partition", true);
        checkColumn(schema, table, layout.offsetColumn(), "offset", true);
        checkColumn(schema, table, layout.timestampColumn(), "timestamp", true);
        layout.topicColumn().ifPresent(c -> checkColumn(schema, table, c, "topic", false));
        if (needsValue) {
            checkColumn(schema, table, layout.valueColumn().orElseThrow(), "value", false);
        }
    }

    private static void checkColumn(
            Schema schema, String table, String column, String role, boolean number) {
        Types.NestedField field = schema.findField(column);
        if (field == null) {
            throw new IllegalArgumentException(
                    String.format(
                            "Iceberg table %s has no column '%s' (the %s column of the layout); its columns are %s",
                            table, column, role, schema.asStruct()));
        }
        if (number && role.equals("partition")) {
            if (!field.type().equals(Types.IntegerType.get())
                    && !field.type().equals(Types.LongType.get())) {
                throw new IllegalArgumentException(
                        String.format(
                                "Iceberg table %s: the partition column '%s' is %s, not an int or a long",
                                table, column, field.type()));
            }
        } else if (number && role.equals("offset")) {
            if (!field.type().equals(Types.LongType.get())
                    && !field.type().equals(Types.IntegerType.get())) {
                throw new IllegalArgumentException(
                        String.format(
                                "Iceberg table %s: the offset column '%s' is %s, not a long",
                                table, column, field.type()));
            }
        }
    }

    /** The column's field id in {@code schema}. */
    static int fieldId(Schema schema, String column) {
        return schema.findField(column).fieldId();
    }

    int partition(Record row) {
        return ((Number) required(row, partition, "partition")).intValue();
    }

    long offset(Record row) {
        return ((Number) required(row, offset, "offset")).longValue();
    }

    /** The row's position in its data file. */
    static long position(Record row) {
        return (Long) row.getField(MetadataColumns.ROW_POSITION.name());
    }

    /** The row's timestamp in epoch milliseconds. */
    long timestamp(Record row) {
        Object value = required(row, timestamp, "timestamp");
        if (value instanceof OffsetDateTime) {
            return ((OffsetDateTime) value).toInstant().toEpochMilli();
        } else if (value instanceof LocalDateTime) {
            return ((LocalDateTime) value).toInstant(ZoneOffset.UTC).toEpochMilli();
        } else if (value instanceof Instant) {
            return ((Instant) value).toEpochMilli();
        } else if (value instanceof Number) {
            return ((Number) value).longValue();
        }
        throw new IllegalStateException(
                String.format(
                        "The timestamp column '%s' holds %s (%s), not a timestamp or epoch milliseconds",
                        layout.timestampColumn(), value, value.getClass().getName()));
    }

    String topic(Record row) {
        if (topic == null) {
            return onlyTopic;
        }
        return String.valueOf(required(row, topic, "topic"));
    }

    @Nullable
    byte[] key(Record row) {
        return key == null ? null : bytes(get(row, key));
    }

    @Nullable
    byte[] value(Record row) {
        return value == null ? null : bytes(get(row, value));
    }

    /** The headers as (key, value) pairs; none if the layout has no headers column. */
    List<?> headers(Record row) {
        if (headers == null) {
            return List.of();
        }
        Object list = get(row, headers);
        return list == null ? List.of() : (List<?>) list;
    }

    Optional<String> topicColumn() {
        return layout.topicColumn();
    }

    private Object required(Record row, String[] path, String role) {
        Object value = get(row, path);
        if (value == null) {
            throw new IllegalStateException(
                    String.format(
                            "A row has no %s (column '%s' is null): %s",
                            role, String.join(".", path), row));
        }
        return value;
    }

    @Nullable
    static Object get(Record row, String[] path) {
        Object value = row;
        for (String name : path) {
            if (value == null) {
                return null;
            }
            value = ((Record) value).getField(name);
        }
        return value;
    }

    @Nullable
    static byte[] bytes(@Nullable Object value) {
        if (value == null) {
            return null;
        }
        if (value instanceof ByteBuffer) {
            ByteBuffer buffer = ((ByteBuffer) value).duplicate();
            byte[] bytes = new byte[buffer.remaining()];
            buffer.get(bytes);
            return bytes;
        }
        if (value instanceof byte[]) {
            return (byte[]) value;
        }
        return String.valueOf(value).getBytes(java.nio.charset.StandardCharsets.UTF_8);
    }
}
