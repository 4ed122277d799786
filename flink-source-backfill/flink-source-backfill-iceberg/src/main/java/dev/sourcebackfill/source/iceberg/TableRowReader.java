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
import org.apache.parquet.schema.LogicalTypeAnnotation.TimeUnit;
import org.apache.parquet.schema.LogicalTypeAnnotation.TimestampLogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;

import javax.annotation.Nullable;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Reads a data file's rows straight into the parts of the Kafka record each keeps (topic,
 * partition, offset, timestamp, key, value, headers), for a source whose values the live topic's
 * deserializer makes: only those columns are read, with Iceberg's Parquet column readers, and each
 * value goes from its column into one holder ({@link RowParts}, the same for every row of a file):
 * the partition, offset and timestamp as primitives (no boxing, no date-time object), the key and
 * value as byte arrays, no record or struct object per row. Files with deletes, or read with a
 * filter, go through Iceberg's generic reader ({@link TableFiles}), which applies them.
 *
 * <p>The layout's columns must be of types this reader reads ({@link Columns} checks the table's
 * schema, {@link Unsupported} otherwise), and each file's columns stored as this reader reads them
 * (a number without an annotation, or a signed integer one; a timestamp as INT64 in its unit; bytes
 * as BINARY), {@link Unsupported} otherwise: both are then read by the generic reader.
 */
@Internal
final class TableRowReader {

    private TableRowReader() {}

    /** A table or file this reader does not read: the generic reader reads it. */
    static final class Unsupported extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Unsupported(String message) {
            super(message);
        }
    }

    /**
     * The columns of {@code schema} this reader reads for {@code layout}: the record's key and
     * headers only {@code withKeyAndHeaders} (a value-only deserializer reads neither). Not {@code
     * _pos}: this reader reads files without deletes and without a filter, whose rows come one
     * after another, so a row's position is the count of rows before it.
     */
    static Schema projection(Schema schema, IcebergLayout layout, boolean withKeyAndHeaders) {
        List<String> names = new ArrayList<>();
        names.add(layout.partitionColumn());
        names.add(layout.offsetColumn());
        names.add(layout.timestampColumn());
        layout.topicColumn().ifPresent(names::add);
        layout.valueColumn().ifPresent(names::add);
        if (withKeyAndHeaders) {
            layout.keyColumn().ifPresent(names::add);
            layout.headersColumn().ifPresent(names::add);
        }
        names.removeIf(name -> schema.findField(name) == null);
        return schema.select(names);
    }

    /**
     * The reader of a file whose Parquet schema (with Iceberg's field ids) is {@code file}: each
     * row it reads is the file's one {@link RowParts}, filled anew, of which {@link Columns#row}
     * makes a {@link TableRow} (before the next row is read).
     */
    @SuppressWarnings("unchecked")
    static ParquetValueReader<RowParts> build(
            Schema projection, MessageType file, Columns columns) {
        // a file without field ids comes with Iceberg's fallback ids (or its name mapping's), as
        // the generic reader gets it
        return (ParquetValueReader<RowParts>)
                TypeWithSchemaVisitor.visit(
                        projection.asStruct(), file, new Builder(file, columns, new RowParts()));
    }

    /** One row's Kafka columns, as the column readers set them; cleared before each row. */
    static final class RowParts {
        /**
         * The row's position in its file (as {@code _pos}); not set by {@link ColumnBatchReader}.
         */
        long position;

        /** As the column holds it (a long column's value may be beyond an int: checked later). */
        long partition;

        boolean hasPartition;
        long offset;
        boolean hasOffset;

        /** In epoch milliseconds. */
        long timestamp;

        boolean hasTimestamp;
        @Nullable String topic;
        @Nullable byte[] key;
        @Nullable byte[] value;
        @Nullable List<?> headers;

        void clear() {
            hasPartition = false;
            hasOffset = false;
            hasTimestamp = false;
            topic = null;
            key = null;
            value = null;
            headers = null;
        }
    }

    /** What a column of the layout is to the Kafka record. */
    enum Part {
        PARTITION,
        OFFSET,
        TIMESTAMP,
        TOPIC,
        KEY,
        VALUE
    }

    /**
     * The layout's columns in a table's schema: checked to be of types this reader reads, found by
     * field id in each file, and made a {@link TableRow} of.
     */
    static final class Columns {
        private final IcebergLayout layout;
        @Nullable private final String onlyTopic;
        private final Map<Integer, Part> parts = new HashMap<>();
        private final int headersId;
        private final int headerKeyAt;
        private final int headerValueAt;

        /**
         * The field ids of the structs on the way to a layout's column (the row's own included).
         */
        private final Set<Integer> partsStructs = new HashSet<>();

        /** The layout's columns of the projection by field id: what each is to the record. */
        Map<Integer, Part> parts() {
            return parts;
        }

        /**
         * Whether the projection reads the headers column (a list, which the batches do not read).
         */
        boolean readsHeaders() {
            return headersId >= 0;
        }

        /** Fails ({@link Unsupported}) if a column of the projection is of a type not read here. */
        Columns(Schema projection, IcebergLayout layout, @Nullable String onlyTopic) {
            this(projection, layout, onlyTopic, true);
        }

        /**
         * @param withTimestamp whether the projection must have the timestamp column: not for a
         *     read of the rows' positions in the topic alone ({@link #positions})
         */
        private Columns(
                Schema projection,
                IcebergLayout layout,
                @Nullable String onlyTopic,
                boolean withTimestamp) {
            this.layout = layout;
            this.onlyTopic = onlyTopic;
            put(projection, layout.partitionColumn(), Part.PARTITION, true);
            put(projection, layout.offsetColumn(), Part.OFFSET, true);
            put(projection, layout.timestampColumn(), Part.TIMESTAMP, withTimestamp);
            layout.topicColumn().ifPresent(c -> put(projection, c, Part.TOPIC, true));
            layout.keyColumn().ifPresent(c -> put(projection, c, Part.KEY, false));
            layout.valueColumn().ifPresent(c -> put(projection, c, Part.VALUE, false));
            Types.NestedField headers =
                    layout.headersColumn().map(projection::findField).orElse(null);
            if (headers != null) {
                if (!headers.type().isListType()
                        || !headers.type().asListType().elementType().isStructType()) {
                    throw new Unsupported(
                            "headers column " + headers + " is not a list of structs");
                }
                Types.StructType pair = headers.type().asListType().elementType().asStructType();
                this.headersId = headers.fieldId();
                this.headerKeyAt = indexOf(pair, "key");
                this.headerValueAt = indexOf(pair, "value");
                structsOnTheWay(projection, layout.headersColumn().get());
            } else {
                this.headersId = -1;
                this.headerKeyAt = -1;
                this.headerValueAt = -1;
            }
        }

        private void put(Schema projection, String column, Part part, boolean required) {
            Types.NestedField field = projection.findField(column);
            if (field == null) {
                if (required) {
                    throw new Unsupported("no column " + column);
                }
                return;
            }
            TypeID type = field.type().typeId();
            boolean readable;
            switch (part) {
                case PARTITION:
                    readable = type == TypeID.INTEGER || type == TypeID.LONG;
                    break;
                case OFFSET:
                    readable = type == TypeID.LONG || type == TypeID.INTEGER;
                    break;
                case TIMESTAMP:
                    readable =
                            type == TypeID.TIMESTAMP
                                    || type == TypeID.TIMESTAMP_NANO
                                    || type == TypeID.LONG
                                    || type == TypeID.INTEGER;
                    break;
                case TOPIC:
                    readable = type == TypeID.STRING;
                    break;
                default:
                    readable = type == TypeID.BINARY || type == TypeID.STRING;
                    break;
            }
            if (!readable) {
                throw new Unsupported(part + " column " + field + " is of a type not read here");
            }
            parts.put(field.fieldId(), part);
            structsOnTheWay(projection, column);
        }

        private void structsOnTheWay(Schema projection, String column) {
            String[] names = column.split("\\.");
            StringBuilder path = new StringBuilder();
            for (int i = 0; i < names.length - 1; i++) {
                path.append(i == 0 ? "" : ".").append(names[i]);
                partsStructs.add(projection.findField(path.toString()).fieldId());
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

        /**
         * The columns of a read of the rows' positions in the topic alone: the topic (where the
         * layout has the column), partition and offset of the {@code schema}'s, the projection
         * {@link #positionsProjection} makes.
         */
        static Columns positions(Schema projection, IcebergLayout layout, @Nullable String topic) {
            return new Columns(projection, layout, topic, false);
        }

        /** The columns of {@code schema} a read of the rows' positions in the topic reads. */
        static Schema positionsProjection(Schema schema, IcebergLayout layout) {
            List<String> names = new ArrayList<>();
            names.add(layout.partitionColumn());
            names.add(layout.offsetColumn());
            layout.topicColumn().ifPresent(names::add);
            return schema.select(names);
        }

        /** The row's Kafka record; fails naming a Kafka column that is null. */
        TableRow row(RowParts row) {
            int partition = partition(row.hasPartition, row.partition);
            long offset = offset(row.hasOffset, row.offset);
            if (!row.hasTimestamp) {
                throw missing(layout.timestampColumn(), "timestamp");
            }
            return TableRow.ofKafkaRecord(
                    topic(row.topic),
                    partition,
                    offset,
                    row.timestamp,
                    row.key,
                    row.value,
                    headers(row.headers));
        }

        /**
         * Row {@code i} of the batch's Kafka record, as {@link #row(RowParts)} makes it from the
         * same columns (read from the batch's arrays: no holder in between).
         */
        TableRow row(ColumnBatchReader.RowBatch batch, int i) {
            int partition = partition(batch.hasPartition[i], batch.partition[i]);
            long offset = offset(batch.hasOffset[i], batch.offset[i]);
            if (!batch.hasTimestamp[i]) {
                throw missing(layout.timestampColumn(), "timestamp");
            }
            return TableRow.ofKafkaRecord(
                    topic(batch.topic[i]),
                    partition,
                    offset,
                    batch.timestamp[i],
                    batch.key[i],
                    batch.value[i],
                    NO_HEADERS);
        }

        /** The row's topic, its column's value read; fails naming the column if it is null. */
        String topic(@Nullable String read) {
            if (layout.topicColumn().isPresent()) {
                if (read == null) {
                    throw missing(layout.topicColumn().get(), "topic");
                }
                return read;
            }
            return onlyTopic;
        }

        /** The row's partition; fails naming the column if it is null or no Kafka partition. */
        int partition(boolean read, long partition) {
            if (!read) {
                throw missing(layout.partitionColumn(), "partition");
            }
            if (partition < 0 || partition > Integer.MAX_VALUE) {
                throw new IllegalStateException(
                        String.format(
                                "The partition column '%s' holds %d, which is not a Kafka partition",
                                layout.partitionColumn(), partition));
            }
            return (int) partition;
        }

        /** The row's offset; fails naming the column if it is null. */
        long offset(boolean read, long offset) {
            if (!read) {
                throw missing(layout.offsetColumn(), "offset");
            }
            return offset;
        }

        private static IllegalStateException missing(String column, String role) {
            return new IllegalStateException(
                    String.format("A row has no %s (column '%s' is null)", role, column));
        }

        private Header[] headers(@Nullable List<?> pairs) {
            if (pairs == null) {
                return NO_HEADERS;
            }
            Header[] headers = new Header[pairs.size()];
            for (int i = 0; i < headers.length; i++) {
                Object[] pair = (Object[]) pairs.get(i);
                Object key = pair == null || headerKeyAt < 0 ? null : pair[headerKeyAt];
                headers[i] =
                        new RecordHeader(
                                RowColumns.headerKey(key),
                                headerValueAt < 0 ? null : RowColumns.bytes(pair[headerValueAt]));
            }
            return headers;
        }

        private static final Header[] NO_HEADERS = new Header[0];
    }

    /** The row: clears the holder, has its columns read into it, and is the holder. */
    private static final class RowReader
            extends ParquetValueReaders.StructReader<RowParts, RowParts> {
        private final RowParts parts;

        /** Where the reader of the row's position is: last. */
        private final int positionAt;

        RowReader(List<ParquetValueReader<?>> readers, RowParts parts) {
            super(readers);
            this.parts = parts;
            this.positionAt = readers.size() - 1;
        }

        @Override
        protected RowParts newStructData(RowParts reuse) {
            parts.clear();
            return parts;
        }

        @Override
        protected Object getField(RowParts struct, int pos) {
            return null;
        }

        @Override
        protected RowParts buildStruct(RowParts struct) {
            return struct;
        }

        @Override
        protected void set(RowParts struct, int pos, Object value) {
            // the columns set the holder themselves; the last reader gives the row's position
            if (pos == positionAt) {
                struct.position = (Long) value;
            }
        }
    }

    /** A struct on the way to the layout's columns: its columns set the holder themselves. */
    private static final class PartsStructReader
            extends ParquetValueReaders.StructReader<Object, Object> {
        PartsStructReader(List<ParquetValueReader<?>> readers) {
            super(readers);
        }

        @Override
        protected Object newStructData(Object reuse) {
            return null;
        }

        @Override
        protected Object getField(Object struct, int pos) {
            return null;
        }

        @Override
        protected Object buildStruct(Object struct) {
            return null;
        }

        @Override
        protected void set(Object struct, int pos, Object value) {}
    }

    /** A header: an array of its fields' values, in the projection's order. */
    private static final class PairReader
            extends ParquetValueReaders.StructReader<Object[], Object[]> {
        private final int size;

        PairReader(List<ParquetValueReader<?>> readers) {
            super(readers);
            this.size = readers.size();
        }

        @Override
        protected Object[] newStructData(Object[] reuse) {
            return new Object[size];
        }

        @Override
        protected Object getField(Object[] struct, int pos) {
            return null;
        }

        @Override
        protected Object[] buildStruct(Object[] struct) {
            return struct;
        }

        @Override
        protected void set(Object[] struct, int pos, Object value) {
            struct[pos] = value;
        }
    }

    /** The headers list, which puts itself into the holder. */
    private static final class HeadersReader extends ParquetValueReaders.ListReader<Object> {
        private final RowParts parts;

        HeadersReader(int d, int r, ParquetValueReader<Object> element, RowParts parts) {
            super(d, r, element);
            this.parts = parts;
        }

        @Override
        protected List<Object> buildList(List<Object> list) {
            parts.headers = list;
            return list;
        }
    }

    /** A layout column's value, read straight into the holder. */
    private static final class PartReader extends ParquetValueReaders.UnboxedReader<Object> {
        private final Part part;
        private final RowParts parts;
        private final boolean int32;

        /** Units of the timestamp column in a millisecond (1 for epoch milliseconds). */
        private final long perMilli;

        PartReader(ColumnDescriptor column, Part part, RowParts parts, long perMilli) {
            super(column);
            this.part = part;
            this.parts = parts;
            this.int32 =
                    column.getPrimitiveType().getPrimitiveTypeName() == PrimitiveTypeName.INT32;
            this.perMilli = perMilli;
        }

        @Override
        public Object read(Object ignored) {
            switch (part) {
                case PARTITION:
                    parts.partition = int32 ? readInteger() : readLong();
                    parts.hasPartition = true;
                    break;
                case OFFSET:
                    parts.offset = int32 ? readInteger() : readLong();
                    parts.hasOffset = true;
                    break;
                case TIMESTAMP:
                    long value = int32 ? readInteger() : readLong();
                    parts.timestamp = perMilli == 1 ? value : Math.floorDiv(value, perMilli);
                    parts.hasTimestamp = true;
                    break;
                case TOPIC:
                    parts.topic = readBinary().toStringUsingUTF8();
                    break;
                case KEY:
                    parts.key = readBinary().getBytes();
                    break;
                case VALUE:
                    parts.value = readBinary().getBytes();
                    break;
            }
            return null;
        }
    }

    /** Builds the readers of the projection's columns found in the file, by field id. */
    private static final class Builder extends TypeWithSchemaVisitor<ParquetValueReader<?>> {
        private final MessageType file;
        private final Columns columns;
        private final RowParts parts;

        Builder(MessageType file, Columns columns, RowParts parts) {
            this.file = file;
            this.columns = columns;
            this.parts = parts;
        }

        @Override
        public ParquetValueReader<?> message(
                Types.StructType expected,
                MessageType message,
                List<ParquetValueReader<?>> fieldReaders) {
            List<ParquetValueReader<?>> readers = inExpectedOrder(expected, message, fieldReaders);
            // each row's position in the file, last (a read of a byte range starts at a later
            // row group)
            readers.add(ParquetValueReaders.position());
            return new RowReader(readers, parts);
        }

        @Override
        public ParquetValueReader<?> struct(
                Types.StructType expected,
                GroupType struct,
                List<ParquetValueReader<?>> fieldReaders) {
            if (expected == null) {
                return null;
            }
            List<ParquetValueReader<?>> readers = inExpectedOrder(expected, struct, fieldReaders);
            return struct.getId() != null
                            && columns.partsStructs.contains(struct.getId().intValue())
                    ? new PartsStructReader(readers)
                    : new PairReader(readers);
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
        @SuppressWarnings("unchecked")
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
            ParquetValueReader<Object> elements =
                    (ParquetValueReader<Object>)
                            ParquetValueReaders.option(elementType, elementD, element);
            if (array.getId() != null && array.getId().intValue() == columns.headersId) {
                return new HeadersReader(repeatedD, repeatedR, elements, parts);
            }
            throw new Unsupported("a list column other than the headers");
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
            Part part =
                    primitive.getId() == null
                            ? null
                            : columns.parts.get(primitive.getId().intValue());
            PrimitiveTypeName stored = primitive.getPrimitiveTypeName();
            if (part != null) {
                switch (part) {
                    case PARTITION:
                    case OFFSET:
                        if (plainNumber(primitive)) {
                            return new PartReader(column, part, parts, 1);
                        }
                        break;
                    case TIMESTAMP:
                        long perMilli = perMilli(expected, primitive);
                        if (perMilli > 0) {
                            return new PartReader(column, part, parts, perMilli);
                        }
                        break;
                    default:
                        if (stored == PrimitiveTypeName.BINARY) {
                            return new PartReader(column, part, parts, 1);
                        }
                        break;
                }
            } else if (stored == PrimitiveTypeName.BINARY) {
                // a header's key or value
                return expected.typeId() == TypeID.STRING
                        ? ParquetValueReaders.strings(column)
                        : new ParquetValueReaders.ByteArrayReader(column);
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

    /**
     * An INT32 or INT64 column whose values are the numbers themselves: no annotation, or a signed
     * integer one (not a timestamp, a decimal or an unsigned integer).
     */
    static boolean plainNumber(org.apache.parquet.schema.PrimitiveType primitive) {
        PrimitiveTypeName stored = primitive.getPrimitiveTypeName();
        if (stored != PrimitiveTypeName.INT32 && stored != PrimitiveTypeName.INT64) {
            return false;
        }
        LogicalTypeAnnotation logical = primitive.getLogicalTypeAnnotation();
        return logical == null
                || logical instanceof LogicalTypeAnnotation.IntLogicalTypeAnnotation
                        && ((LogicalTypeAnnotation.IntLogicalTypeAnnotation) logical).isSigned();
    }

    /**
     * Units of a timestamp column's stored values in a millisecond; 0 if not read here. A number
     * (not a timestamp type) is epoch milliseconds, as {@link RowColumns} reads it.
     */
    static long perMilli(
            PrimitiveType expected, org.apache.parquet.schema.PrimitiveType primitive) {
        PrimitiveTypeName stored = primitive.getPrimitiveTypeName();
        LogicalTypeAnnotation logical = primitive.getLogicalTypeAnnotation();
        if (expected.typeId() == TypeID.LONG || expected.typeId() == TypeID.INTEGER) {
            return plainNumber(primitive) ? 1 : 0;
        }
        if (stored != PrimitiveTypeName.INT64
                || !(logical instanceof TimestampLogicalTypeAnnotation)) {
            return 0;
        }
        TimeUnit unit = ((TimestampLogicalTypeAnnotation) logical).getUnit();
        if (expected.typeId() == TypeID.TIMESTAMP_NANO) {
            return unit == TimeUnit.NANOS ? 1_000_000 : 0;
        }
        switch (unit) {
            case MILLIS:
                return 1;
            case MICROS:
                return 1_000;
            default:
                return 0;
        }
    }
}
