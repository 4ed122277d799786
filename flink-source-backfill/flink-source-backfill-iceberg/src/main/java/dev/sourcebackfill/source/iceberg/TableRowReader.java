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

import org.apache.iceberg.Schema;
import org.apache.iceberg.parquet.ParquetSchemaUtil;
import org.apache.iceberg.parquet.ParquetValueReader;
import org.apache.iceberg.parquet.ParquetValueReaders;
import org.apache.iceberg.parquet.TypeWithSchemaVisitor;
import org.apache.iceberg.types.Type.PrimitiveType;
import org.apache.iceberg.types.Type.TypeID;
import org.apache.iceberg.types.Types;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.schema.GroupType;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;

import javax.annotation.Nullable;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads a data file's rows straight into {@link TableRow}s with the Kafka record each keeps (topic,
 * partition, offset, timestamp, key, value, headers), for a source whose values the live topic's
 * deserializer makes: only those columns are read, with Iceberg's Parquet column readers, each
 * struct as a plain array (no generic record, no date-time object per row: the timestamp stays a
 * number). Files with deletes, or read with a filter, go through Iceberg's generic reader ({@link
 * TableFiles}), which applies them.
 *
 * <p>A file whose Parquet schema this reader does not know how to read (a column of another type
 * than the layout's, a file without field ids) fails its open with {@link Unsupported}, and is read
 * by the generic reader.
 */
@Internal
final class TableRowReader {

    private TableRowReader() {}

    /** A file this reader does not read: the generic reader reads it. */
    static final class Unsupported extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Unsupported(String message) {
            super(message);
        }
    }

    /**
     * The columns of {@code schema} this reader reads for {@code layout}. Not {@code _pos}: this
     * reader reads files without deletes and without a filter, whose rows come one after another,
     * so a row's position is the count of rows before it.
     */
    static Schema projection(Schema schema, IcebergLayout layout) {
        List<String> names = new ArrayList<>();
        names.add(layout.partitionColumn());
        names.add(layout.offsetColumn());
        names.add(layout.timestampColumn());
        layout.topicColumn().ifPresent(names::add);
        layout.keyColumn().ifPresent(names::add);
        layout.valueColumn().ifPresent(names::add);
        layout.headersColumn().ifPresent(names::add);
        names.removeIf(name -> schema.findField(name) == null);
        return schema.select(names);
    }

    /**
     * The reader of a file whose Parquet schema (with Iceberg's field ids) is {@code file}: each
     * row as an array of the projection's columns (nested structs as arrays), of which {@link
     * Columns#row} makes a {@link TableRow}.
     */
    @SuppressWarnings("unchecked")
    static ParquetValueReader<Object[]> build(Schema projection, MessageType file) {
        if (!ParquetSchemaUtil.hasIds(file)) {
            throw new Unsupported("the file's Parquet schema has no field ids");
        }
        return (ParquetValueReader<Object[]>)
                TypeWithSchemaVisitor.visit(projection.asStruct(), file, new Builder(file));
    }

    /** Where each column is in the row's arrays, and how its values become a {@link TableRow}. */
    static final class Columns {
        private final IcebergLayout layout;
        @Nullable private final String onlyTopic;
        private final int[] partitionAt;
        private final int[] offsetAt;
        private final int[] timestampAt;
        private final long timestampPerMilli;
        @Nullable private final int[] topicAt;
        @Nullable private final int[] keyAt;
        @Nullable private final int[] valueAt;
        @Nullable private final int[] headersAt;
        private final int headerKeyAt;
        private final int headerValueAt;

        /** Fails ({@link Unsupported}) if a column of the projection is of a type not read here. */
        Columns(Types.StructType row, IcebergLayout layout, @Nullable String onlyTopic) {
            this.layout = layout;
            this.onlyTopic = onlyTopic;
            this.partitionAt = required(row, layout.partitionColumn());
            this.offsetAt = required(row, layout.offsetColumn());
            this.timestampAt = required(row, layout.timestampColumn());
            this.timestampPerMilli = perMilli(row.fields(), layout.timestampColumn(), row);
            this.topicAt = layout.topicColumn().map(c -> RowColumns.positions(row, c)).orElse(null);
            if (layout.topicColumn().isPresent() && topicAt == null) {
                throw new Unsupported("no topic column " + layout.topicColumn().get());
            }
            this.keyAt = layout.keyColumn().map(c -> RowColumns.positions(row, c)).orElse(null);
            this.valueAt = layout.valueColumn().map(c -> RowColumns.positions(row, c)).orElse(null);
            this.headersAt =
                    layout.headersColumn().map(c -> RowColumns.positions(row, c)).orElse(null);
            if (headersAt != null) {
                Types.NestedField headers = field(row, layout.headersColumn().get());
                if (!headers.type().isListType()
                        || !headers.type().asListType().elementType().isStructType()) {
                    throw new Unsupported(
                            "headers column " + headers + " is not a list of structs");
                }
                Types.StructType pair = headers.type().asListType().elementType().asStructType();
                this.headerKeyAt = indexOf(pair, "key");
                this.headerValueAt = indexOf(pair, "value");
            } else {
                this.headerKeyAt = -1;
                this.headerValueAt = -1;
            }
        }

        private static int[] required(Types.StructType row, String column) {
            int[] at = RowColumns.positions(row, column);
            if (at == null) {
                throw new Unsupported("no column " + column);
            }
            return at;
        }

        private static Types.NestedField field(Types.StructType row, String column) {
            Types.StructType struct = row;
            Types.NestedField field = null;
            for (String name : column.split("\\.")) {
                field = struct.field(name);
                if (field.type().isStructType()) {
                    struct = field.type().asStructType();
                }
            }
            return field;
        }

        /** How many of the timestamp column's units make a millisecond; 1 for epoch millis. */
        private static long perMilli(
                List<Types.NestedField> ignored, String column, Types.StructType row) {
            Types.NestedField field = field(row, column);
            switch (field.type().typeId()) {
                case TIMESTAMP:
                    return 1_000L; // microseconds
                case TIMESTAMP_NANO:
                    return 1_000_000L;
                case LONG:
                case INTEGER:
                    return 1L; // epoch milliseconds, as RowColumns reads a number
                default:
                    throw new Unsupported("timestamp column " + field);
            }
        }

        private static int indexOf(Types.StructType struct, String name) {
            List<Types.NestedField> fields = struct.fields();
            for (int i = 0; i < fields.size(); i++) {
                if (fields.get(i).name().equals(name)) {
                    return i;
                }
            }
            return -1;
        }

        /** The row's Kafka record; fails naming a Kafka column that is null. */
        TableRow row(Object[] row) {
            int partition =
                    ((Number) required(row, partitionAt, layout.partitionColumn(), "partition"))
                            .intValue();
            long offset =
                    ((Number) required(row, offsetAt, layout.offsetColumn(), "offset")).longValue();
            long timestamp =
                    Math.floorDiv(
                            ((Number)
                                            required(
                                                    row,
                                                    timestampAt,
                                                    layout.timestampColumn(),
                                                    "timestamp"))
                                    .longValue(),
                            timestampPerMilli);
            String topic =
                    topicAt == null
                            ? onlyTopic
                            : String.valueOf(
                                    required(row, topicAt, layout.topicColumn().get(), "topic"));
            return TableRow.ofKafkaRecord(
                    topic,
                    partition,
                    offset,
                    timestamp,
                    keyAt == null ? null : RowColumns.bytes(at(row, keyAt)),
                    valueAt == null ? null : RowColumns.bytes(at(row, valueAt)),
                    headers(row));
        }

        private Header[] headers(Object[] row) {
            Object list = headersAt == null ? null : at(row, headersAt);
            if (list == null) {
                return NO_HEADERS;
            }
            List<?> pairs = (List<?>) list;
            Header[] headers = new Header[pairs.size()];
            for (int i = 0; i < headers.length; i++) {
                Object[] pair = (Object[]) pairs.get(i);
                Object key = headerKeyAt < 0 ? null : pair[headerKeyAt];
                if (key == null) {
                    throw new IllegalStateException("A row has a header without a key");
                }
                headers[i] =
                        new RecordHeader(
                                key instanceof CharSequence
                                        ? key.toString()
                                        : new String(RowColumns.bytes(key), StandardCharsets.UTF_8),
                                headerValueAt < 0 ? null : RowColumns.bytes(pair[headerValueAt]));
            }
            return headers;
        }

        private static final Header[] NO_HEADERS = new Header[0];

        @Nullable
        private static Object at(Object[] row, int[] positions) {
            Object[] struct = row;
            for (int i = 0; i < positions.length - 1; i++) {
                struct = (Object[]) struct[positions[i]];
                if (struct == null) {
                    return null;
                }
            }
            return struct[positions[positions.length - 1]];
        }

        private static Object required(Object[] row, int[] at, String column, String role) {
            Object value = at(row, at);
            if (value == null) {
                throw new IllegalStateException(
                        String.format("A row has no %s (column '%s' is null)", role, column));
            }
            return value;
        }
    }

    /** A struct as an array of its fields' values, in the projection's order. */
    private static class ArrayStructReader<T>
            extends ParquetValueReaders.StructReader<T, Object[]> {
        private final int size;

        ArrayStructReader(List<ParquetValueReader<?>> readers) {
            super(readers);
            this.size = readers.size();
        }

        @Override
        protected Object[] newStructData(T reuse) {
            return new Object[size];
        }

        @Override
        protected Object getField(Object[] struct, int pos) {
            return null; // nothing is reused
        }

        @Override
        @SuppressWarnings("unchecked")
        protected T buildStruct(Object[] struct) {
            return (T) struct;
        }

        @Override
        protected void set(Object[] struct, int pos, Object value) {
            struct[pos] = value;
        }
    }

    /** Builds the readers of the projection's columns found in the file, by field id. */
    private static final class Builder extends TypeWithSchemaVisitor<ParquetValueReader<?>> {
        private final MessageType file;

        Builder(MessageType file) {
            this.file = file;
        }

        @Override
        public ParquetValueReader<?> message(
                Types.StructType expected,
                MessageType message,
                List<ParquetValueReader<?>> fieldReaders) {
            return new ArrayStructReader<Object[]>(
                    inExpectedOrder(expected, message, fieldReaders));
        }

        @Override
        public ParquetValueReader<?> struct(
                Types.StructType expected,
                GroupType struct,
                List<ParquetValueReader<?>> fieldReaders) {
            if (expected == null) {
                return null;
            }
            return new ArrayStructReader<Object[]>(inExpectedOrder(expected, struct, fieldReaders));
        }

        /** The readers of the expected fields in their order; a field the file lacks reads null. */
        private List<ParquetValueReader<?>> inExpectedOrder(
                Types.StructType expected,
                GroupType struct,
                List<ParquetValueReader<?>> fieldReaders) {
            Map<Integer, ParquetValueReader<?>> byId = new HashMap<>();
            List<org.apache.parquet.schema.Type> fields = struct.getFields();
            for (int i = 0; i < fields.size(); i++) {
                ParquetValueReader<?> reader = fieldReaders.get(i);
                if (reader != null) {
                    org.apache.parquet.schema.Type field = fields.get(i);
                    int definitionLevel = file.getMaxDefinitionLevel(path(field.getName())) - 1;
                    byId.put(
                            field.getId().intValue(),
                            ParquetValueReaders.option(field, definitionLevel, reader));
                }
            }
            List<ParquetValueReader<?>> ordered = new ArrayList<>(expected.fields().size());
            for (Types.NestedField field : expected.fields()) {
                ParquetValueReader<?> reader = byId.get(field.fieldId());
                if (reader == null) {
                    if (field.isRequired() || field.initialDefault() != null) {
                        throw new Unsupported("the file has no column " + field.name());
                    }
                    reader = ParquetValueReaders.nulls();
                }
                ordered.add(reader);
            }
            return ordered;
        }

        @Override
        public ParquetValueReader<?> list(
                Types.ListType expected, GroupType array, ParquetValueReader<?> element) {
            if (expected == null) {
                return null;
            }
            String[] repeated = currentPath();
            int repeatedD = file.getMaxDefinitionLevel(repeated) - 1;
            int repeatedR = file.getMaxRepetitionLevel(repeated) - 1;
            org.apache.parquet.schema.Type elementType =
                    ParquetSchemaUtil.determineListElementType(array);
            int elementD = file.getMaxDefinitionLevel(path(elementType.getName())) - 1;
            return new ParquetValueReaders.ListReader<>(
                    repeatedD,
                    repeatedR,
                    ParquetValueReaders.option(elementType, elementD, element));
        }

        @Override
        public ParquetValueReader<?> map(
                Types.MapType expected,
                GroupType map,
                ParquetValueReader<?> key,
                ParquetValueReader<?> value) {
            if (expected == null) {
                return null;
            }
            throw new Unsupported("a map column");
        }

        @Override
        public ParquetValueReader<?> primitive(
                PrimitiveType expected, org.apache.parquet.schema.PrimitiveType primitive) {
            if (expected == null) {
                return null;
            }
            ColumnDescriptor column = file.getColumnDescription(currentPath());
            LogicalTypeAnnotation logical = primitive.getLogicalTypeAnnotation();
            switch (expected.typeId()) {
                case INTEGER:
                    if (primitive.getPrimitiveTypeName()
                            == org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName.INT32) {
                        return ParquetValueReaders.unboxed(column);
                    }
                    break;
                case LONG:
                    switch (primitive.getPrimitiveTypeName()) {
                        case INT32:
                            return ParquetValueReaders.intsAsLongs(column);
                        case INT64:
                            return new ParquetValueReaders.UnboxedReader<Long>(column);
                        default:
                            break;
                    }
                    break;
                case TIMESTAMP:
                case TIMESTAMP_NANO:
                    if (logical instanceof LogicalTypeAnnotation.TimestampLogicalTypeAnnotation
                            && primitive.getPrimitiveTypeName()
                                    == org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName
                                            .INT64) {
                        LogicalTypeAnnotation.TimeUnit unit =
                                ((LogicalTypeAnnotation.TimestampLogicalTypeAnnotation) logical)
                                        .getUnit();
                        // Iceberg's reader gives microseconds of MILLIS and MICROS columns, and
                        // nanoseconds of NANOS ones: the unit must be the column type's
                        boolean nanos = unit == LogicalTypeAnnotation.TimeUnit.NANOS;
                        if (nanos == (expected.typeId() == TypeID.TIMESTAMP_NANO)) {
                            return ParquetValueReaders.timestamps(column);
                        }
                    }
                    break;
                case STRING:
                    if (primitive.getPrimitiveTypeName()
                            == org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName.BINARY) {
                        return ParquetValueReaders.strings(column);
                    }
                    break;
                case BINARY:
                    if (primitive.getPrimitiveTypeName()
                            == org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName.BINARY) {
                        return new ParquetValueReaders.ByteArrayReader(column);
                    }
                    break;
                default:
                    break;
            }
            throw new Unsupported(
                    "column "
                            + String.join(".", currentPath())
                            + " is "
                            + primitive
                            + " read as "
                            + expected);
        }
    }
}
