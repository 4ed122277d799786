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
package dev.sourcebackfill.source.table;

import org.apache.flink.annotation.Internal;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.LogicalType;

import javax.annotation.Nullable;

import java.io.Serializable;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;

/**
 * A column's value in Flink's internal data structures, of the value Iceberg read: the conversions
 * of the {@code COLUMNS} mode ({@link IcebergColumnsMapper}). Touches no Iceberg class.
 */
@Internal
@FunctionalInterface
interface IcebergColumnValue extends Serializable {
    Object convert(Object icebergValue);

    /**
     * The conversion to {@code type}; {@code null} if there is none. Exact: a value that does not
     * fit the column (a long above an INT, a decimal wider than its DECIMAL, a fraction into an
     * integer) or of another kind (bytes into a STRING) throws, never becomes another value or
     * NULL.
     */
    @Nullable
    static IcebergColumnValue of(LogicalType type) {
        switch (type.getTypeRoot()) {
            case CHAR:
            case VARCHAR:
                return v -> StringData.fromString(text(v));
            case BOOLEAN:
                return v -> (Boolean) v;
            case TINYINT:
                return v -> (byte) integral(v, Byte.MIN_VALUE, Byte.MAX_VALUE);
            case SMALLINT:
                return v -> (short) integral(v, Short.MIN_VALUE, Short.MAX_VALUE);
            case INTEGER:
                return v -> (int) integral(v, Integer.MIN_VALUE, Integer.MAX_VALUE);
            case BIGINT:
                return v -> integral(v, Long.MIN_VALUE, Long.MAX_VALUE);
            case FLOAT:
                return v -> {
                    if (v instanceof Float) {
                        return v;
                    }
                    throw new ClassCastException(kind(v) + " is not a FLOAT");
                };
            case DOUBLE:
                return v -> {
                    if (v instanceof Float || v instanceof Double) {
                        return ((Number) v).doubleValue();
                    }
                    throw new ClassCastException(kind(v) + " is not a DOUBLE");
                };
            case DECIMAL:
                DecimalType decimal = (DecimalType) type;
                int precision = decimal.getPrecision();
                int scale = decimal.getScale();
                return v -> {
                    BigDecimal value = (BigDecimal) v;
                    DecimalData data =
                            value.scale() > scale
                                    ? null
                                    : DecimalData.fromBigDecimal(value, precision, scale);
                    if (data == null) {
                        throw new ClassCastException(
                                value + " does not fit DECIMAL(" + precision + ", " + scale + ")");
                    }
                    return data;
                };
            case BINARY:
            case VARBINARY:
                return IcebergColumnValue::bytes;
            case DATE:
                return v -> (int) ((LocalDate) v).toEpochDay();
            case TIME_WITHOUT_TIME_ZONE:
                return v -> (int) (((LocalTime) v).toNanoOfDay() / 1_000_000L);
            case TIMESTAMP_WITHOUT_TIME_ZONE:
                return v ->
                        v instanceof OffsetDateTime
                                ? TimestampData.fromLocalDateTime(
                                        ((OffsetDateTime) v)
                                                .withOffsetSameInstant(ZoneOffset.UTC)
                                                .toLocalDateTime())
                                : TimestampData.fromLocalDateTime((LocalDateTime) v);
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
                return IcebergColumnValue::instant;
            default:
                return null;
        }
    }

    /** An Iceberg int or long within {@code [min, max]}. */
    private static long integral(Object value, long min, long max) {
        if (!(value instanceof Integer || value instanceof Long)) {
            throw new ClassCastException(kind(value) + " is not an integer");
        }
        long v = ((Number) value).longValue();
        if (v < min || v > max) {
            throw new ClassCastException(
                    v + " is out of the column's range [" + min + ", " + max + "]");
        }
        return v;
    }

    /** An Iceberg string (or UUID) as text; bytes, structs, lists and maps are not text. */
    private static String text(Object value) {
        if (value instanceof CharSequence || value instanceof java.util.UUID) {
            return value.toString();
        }
        throw new ClassCastException(kind(value) + " is not text");
    }

    private static String kind(Object value) {
        return value.getClass().getSimpleName();
    }

    private static byte[] bytes(Object value) {
        if (value instanceof byte[]) {
            return (byte[]) value;
        }
        ByteBuffer buffer = ((ByteBuffer) value).duplicate();
        byte[] bytes = new byte[buffer.remaining()];
        buffer.get(bytes);
        return bytes;
    }

    /** An instant of an Iceberg timestamp (with or without zone, taken as UTC) or epoch millis. */
    static TimestampData instant(Object value) {
        if (value instanceof OffsetDateTime) {
            return TimestampData.fromInstant(((OffsetDateTime) value).toInstant());
        }
        if (value instanceof LocalDateTime) {
            return TimestampData.fromInstant(((LocalDateTime) value).toInstant(ZoneOffset.UTC));
        }
        return TimestampData.fromEpochMillis(((Number) value).longValue());
    }
}
