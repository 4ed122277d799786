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
import org.apache.iceberg.StructLike;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Type;
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
 * timestamp, its key, value and headers, and its position in its data file ({@code _pos}). Reads
 * them by position, with accessors made once per struct type (the rows of a file share one): not
 * thread-safe, each reader and deserializer has a copy of its own ({@link #copy()}).
 */
@Internal
final class RowColumns implements Serializable {

    private static final long serialVersionUID = 1L;

    private final IcebergLayout layout;

    /** The topic of every row, if the layout has no topic column (the source's only topic). */
    @Nullable private final String onlyTopic;

    /** The struct the accessors below were made for: the rows of one file share one. */
    @Nullable private transient Types.StructType bound;

    @Nullable private transient int[] partitionAt;
    @Nullable private transient int[] offsetAt;
    @Nullable private transient int[] timestampAt;
    @Nullable private transient int[] topicAt;
    @Nullable private transient int[] keyAt;
    @Nullable private transient int[] valueAt;
    @Nullable private transient int[] headersAt;
    @Nullable private transient int[] positionAt;

    RowColumns(IcebergLayout layout, @Nullable String onlyTopic) {
        this.layout = layout;
        this.onlyTopic = onlyTopic;
    }

    IcebergLayout layout() {
        return layout;
    }

    /** The topic of every row if the layout has no topic column; {@code null} otherwise. */
    @Nullable
    String onlyTopic() {
        return onlyTopic;
    }

    /** A copy for another thread. */
    RowColumns copy() {
        return new RowColumns(layout, onlyTopic);
    }

    /** Makes the accessors of the row's struct type, unless they are made already. */
    private void bind(Record row) {
        Types.StructType struct = row.struct();
        if (struct == bound) {
            return;
        }
        partitionAt = positions(struct, layout.partitionColumn());
        offsetAt = positions(struct, layout.offsetColumn());
        timestampAt = positions(struct, layout.timestampColumn());
        topicAt = layout.topicColumn().map(c -> positions(struct, c)).orElse(null);
        keyAt = layout.keyColumn().map(c -> positions(struct, c)).orElse(null);
        valueAt = layout.valueColumn().map(c -> positions(struct, c)).orElse(null);
        headersAt = layout.headersColumn().map(c -> positions(struct, c)).orElse(null);
        positionAt = positions(struct, MetadataColumns.ROW_POSITION.name());
        bound = struct;
    }

    /** The column's place in the struct, as positions down its path; {@code null} if absent. */
    @Nullable
    private static int[] positions(Types.StructType struct, String column) {
        String[] names = column.split("\\.");
        int[] positions = new int[names.length];
        Types.StructType current = struct;
        for (int i = 0; i < names.length; i++) {
            if (current == null) {
                return null;
            }
            List<Types.NestedField> fields = current.fields();
            int found = -1;
            for (int f = 0; f < fields.size(); f++) {
                if (fields.get(f).name().equals(names[i])) {
                    found = f;
                    break;
                }
            }
            if (found < 0) {
                return null;
            }
            positions[i] = found;
            Type type = fields.get(found).type();
            current = type.isStructType() ? type.asStructType() : null;
        }
        return positions;
    }

    /** The value at {@code positions} in the row; {@code null} where a struct on the way is. */
    @Nullable
    private static Object at(Record row, int[] positions) {
        StructLike struct = row;
        for (int i = 0; i < positions.length - 1; i++) {
            struct = struct.get(positions[i], StructLike.class);
            if (struct == null) {
                return null;
            }
        }
        return struct.get(positions[positions.length - 1], Object.class);
    }

    /** The value at {@code accessor}, which must be of the row's struct: bind the row first. */
    @Nullable
    private static Object get(Record row, @Nullable int[] accessor) {
        return accessor == null ? null : at(row, accessor);
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
            checkBytes(schema, table, layout.valueColumn().get(), "value");
            layout.keyColumn()
                    .filter(c -> schema.findField(c) != null)
                    .ifPresent(c -> checkBytes(schema, table, c, "key"));
        }
    }

    /**
     * A key or value column must hold the record's bytes (binary, fixed, or a string, as UTF-8): a
     * column of another type is a field of the value (a writer's schema mode), not the record.
     */
    private static void checkBytes(Schema schema, String table, String column, String role) {
        Type.TypeID type = schema.findType(column).typeId();
        if (type != Type.TypeID.BINARY && type != Type.TypeID.FIXED && type != Type.TypeID.STRING) {
            throw new IllegalArgumentException(
                    String.format(
                            "Iceberg table %s: the %s column '%s' is %s, not the record's bytes (binary or string): its values cannot go through the topic's deserializer; set a record mapper",
                            table, role, column, schema.findType(column)));
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

    /**
     * The row's Kafka partition; a value no Kafka partition has (negative, or beyond an int in a
     * long column) fails naming the column and the value, never becomes another partition.
     */
    int partition(Record row) {
        bind(row);
        long partition =
                ((Number) required(row, partitionAt, layout.partitionColumn(), "partition"))
                        .longValue();
        if (partition < 0 || partition > Integer.MAX_VALUE) {
            throw new IllegalStateException(
                    String.format(
                            "The partition column '%s' holds %d, which is not a Kafka partition: %s",
                            layout.partitionColumn(), partition, row));
        }
        return (int) partition;
    }

    long offset(Record row) {
        bind(row);
        return ((Number) required(row, offsetAt, layout.offsetColumn(), "offset")).longValue();
    }

    /** The row's position in its data file. */
    long position(Record row) {
        bind(row);
        return (Long) required(row, positionAt, MetadataColumns.ROW_POSITION.name(), "position");
    }

    /** The row's timestamp in epoch milliseconds. */
    long timestamp(Record row) {
        bind(row);
        Object value = required(row, timestampAt, layout.timestampColumn(), "timestamp");
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

    /** The row's topic; {@code row} may be {@code null} if the layout has no topic column. */
    String topic(@Nullable Record row) {
        if (layout.topicColumn().isEmpty()) {
            return onlyTopic;
        }
        bind(row);
        return String.valueOf(required(row, topicAt, layout.topicColumn().get(), "topic"));
    }

    @Nullable
    byte[] key(Record row) {
        bind(row); // before keyAt is read: the row may be of another struct
        return bytes(get(row, keyAt));
    }

    @Nullable
    byte[] value(Record row) {
        bind(row);
        return bytes(get(row, valueAt));
    }

    /** The headers as (key, value) pairs; none if the layout or the row has none. */
    List<?> headers(Record row) {
        bind(row);
        Object list = get(row, headersAt);
        return list == null ? List.of() : (List<?>) list;
    }

    Optional<String> topicColumn() {
        return layout.topicColumn();
    }

    private static Object required(
            Record row, @Nullable int[] accessor, String column, String role) {
        Object value = accessor == null ? null : at(row, accessor);
        if (value == null) {
            throw new IllegalStateException(
                    String.format("A row has no %s (column '%s' is null): %s", role, column, row));
        }
        return value;
    }

    /** A header's key: a string column, or UTF-8 bytes; a header without one fails. */
    static String headerKey(@Nullable Object key) {
        if (key == null) {
            throw new IllegalStateException("A row has a header without a key");
        }
        return key instanceof CharSequence
                ? key.toString()
                : new String(bytes(key), java.nio.charset.StandardCharsets.UTF_8);
    }

    @Nullable
    static byte[] bytes(@Nullable Object value) {
        if (value == null) {
            return null;
        }
        if (value instanceof ByteBuffer) {
            ByteBuffer whole = (ByteBuffer) value;
            if (whole.hasArray()
                    && whole.arrayOffset() == 0
                    && whole.position() == 0
                    && whole.remaining() == whole.array().length) {
                // Iceberg's readers wrap a fresh array per value: no copy
                return whole.array();
            }
            ByteBuffer buffer = whole.duplicate();
            byte[] bytes = new byte[buffer.remaining()];
            buffer.get(bytes);
            return bytes;
        }
        if (value instanceof byte[]) {
            return (byte[]) value;
        }
        if (value instanceof CharSequence) {
            return value.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8);
        }
        throw new IllegalStateException(
                String.format(
                        "A key, value or header column holds %s (%s), not bytes or a string",
                        value, value.getClass().getName()));
    }
}
