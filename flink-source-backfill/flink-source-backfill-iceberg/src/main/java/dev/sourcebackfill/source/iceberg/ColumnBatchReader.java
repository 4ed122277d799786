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

import dev.sourcebackfill.source.iceberg.TableRowReader.Part;
import dev.sourcebackfill.source.iceberg.TableRowReader.Unsupported;

import org.apache.flink.annotation.Internal;
import org.apache.flink.annotation.VisibleForTesting;

import org.apache.iceberg.Schema;
import org.apache.iceberg.parquet.VectorizedReader;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Type.TypeID;
import org.apache.iceberg.types.Types;
import org.apache.parquet.bytes.ByteBufferInputStream;
import org.apache.parquet.bytes.BytesUtils;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.Dictionary;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.column.ValuesType;
import org.apache.parquet.column.page.DataPage;
import org.apache.parquet.column.page.DataPageV1;
import org.apache.parquet.column.page.DataPageV2;
import org.apache.parquet.column.page.DictionaryPage;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.column.page.PageReader;
import org.apache.parquet.column.values.ValuesReader;
import org.apache.parquet.column.values.bitpacking.BytePacker;
import org.apache.parquet.column.values.bitpacking.Packer;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.ColumnPath;
import org.apache.parquet.io.ParquetDecodingException;
import org.apache.parquet.schema.GroupType;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;

import javax.annotation.Nullable;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * Reads a data file's Kafka columns (partition, offset, timestamp, and the topic, key and value the
 * layout has) a batch of rows at a time, a column at a time: each page's definition levels and
 * dictionary ids decoded in runs, its plain values read straight from the page's bytes, with
 * Parquet's own page readers (decompression) and bit unpackers. Pages of other encodings (delta,
 * byte stream split) are decoded by Parquet's value readers, a value at a time. Through Iceberg's
 * batched Parquet read ({@code Parquet.read(...).createBatchedReaderFunc}), which finds the
 * projection's columns in the file by field id and hands this reader each row group.
 *
 * <p>It reads what {@link TableRowReader} reads (the same projection, the same checks of each row
 * by {@link TableRowReader.Columns#row}) except the headers, a list column: a projection with the
 * headers column is read by {@link TableRowReader}. A file whose columns are stored otherwise than
 * this reader reads them gets a reader that refuses ({@link #forFile}): its first batch throws
 * {@link Unsupported}, and the file is then read by {@link TableRowReader}.
 */
@Internal
final class ColumnBatchReader implements VectorizedReader<ColumnBatchReader.RowBatch> {

    /** Rows in a batch, unless Iceberg's read asks for another size. */
    static final int BATCH_SIZE = 4096;

    private final List<Leaf> leaves;
    private int batchSize = BATCH_SIZE;

    /** The file's row the next batch starts at: its row group's first row, then counted on. */
    private long nextRow;

    private ColumnBatchReader(List<Leaf> leaves) {
        this.leaves = leaves;
    }

    /**
     * This reader of the file whose Parquet schema (with Iceberg's field ids) is {@code file}, or
     * one whose first batch throws {@link Unsupported} saying why it cannot read it.
     */
    static VectorizedReader<RowBatch> forFile(
            Schema projection, MessageType file, TableRowReader.Columns columns) {
        try {
            return build(projection, file, columns);
        } catch (Unsupported e) {
            return new Refusal(e);
        } catch (RuntimeException e) {
            // thrown here, it would leave the file Iceberg's read opened for this reader open
            Unsupported reason = new Unsupported("the batched read of the file failed: " + e);
            reason.initCause(e);
            return new Refusal(reason);
        }
    }

    @VisibleForTesting
    static ColumnBatchReader build(
            Schema projection, MessageType file, TableRowReader.Columns columns) {
        if (columns.readsHeaders()) {
            throw new Unsupported("the headers column is read row by row");
        }
        List<Leaf> leaves = new ArrayList<>();
        for (Map.Entry<Integer, Part> part : columns.parts().entrySet()) {
            int id = part.getKey();
            Types.NestedField field = projection.findField(id);
            String[] path = pathOf(file, id);
            if (path == null) {
                if (field.isRequired() || field.initialDefault() != null) {
                    throw new Unsupported("the file has no column " + field.name());
                }
                leaves.add(new Leaf(part.getValue(), null, 1)); // null in every row
                continue;
            }
            ColumnDescriptor column = file.getColumnDescription(path);
            if (column.getMaxRepetitionLevel() != 0) {
                throw new Unsupported("column " + String.join(".", path) + " is repeated");
            }
            leaves.add(new Leaf(part.getValue(), column, unitsPerMilli(part, field, column)));
        }
        return new ColumnBatchReader(leaves);
    }

    /**
     * For a number column, the units of a stored value in a millisecond (1 for the partition and
     * offset); for a bytes column 1. Fails if the column is stored otherwise than read here.
     */
    private static long unitsPerMilli(
            Map.Entry<Integer, Part> part, Types.NestedField field, ColumnDescriptor column) {
        org.apache.parquet.schema.PrimitiveType stored = column.getPrimitiveType();
        Type.PrimitiveType expected = field.type().asPrimitiveType();
        switch (part.getValue()) {
            case PARTITION:
            case OFFSET:
                if (TableRowReader.plainNumber(stored)) {
                    return 1;
                }
                break;
            case TIMESTAMP:
                long perMilli = TableRowReader.perMilli(expected, stored);
                if (perMilli > 0) {
                    return perMilli;
                }
                break;
            default:
                if (stored.getPrimitiveTypeName() == PrimitiveTypeName.BINARY
                        && (expected.typeId() == TypeID.BINARY
                                || expected.typeId() == TypeID.STRING)) {
                    return 1;
                }
                break;
        }
        throw new Unsupported("column " + field.name() + " is " + stored + " read as " + expected);
    }

    /** The path of the file's leaf column with field id {@code id}; {@code null} if none. */
    @Nullable
    private static String[] pathOf(GroupType group, int id) {
        for (org.apache.parquet.schema.Type child : group.getFields()) {
            if (child.isPrimitive()) {
                if (child.getId() != null && child.getId().intValue() == id) {
                    return new String[] {child.getName()};
                }
            } else {
                String[] below = pathOf(child.asGroupType(), id);
                if (below != null) {
                    String[] path = new String[below.length + 1];
                    path[0] = child.getName();
                    System.arraycopy(below, 0, path, 1, below.length);
                    return path;
                }
            }
        }
        return null;
    }

    @Override
    public void setBatchSize(int batchSize) {
        this.batchSize = batchSize;
    }

    @Override
    public void setRowGroupInfo(
            PageReadStore pages, Map<ColumnPath, ColumnChunkMetaData> metadata) {
        // where the row group is in the file: a read of a byte range starts at a later row group
        nextRow =
                pages.getRowIndexOffset()
                        .orElseThrow(
                                () ->
                                        new IllegalStateException(
                                                "Parquet gave a row group without the index of its first row in the file"));
        for (Leaf leaf : leaves) {
            leaf.startRowGroup(pages);
        }
    }

    @Override
    public RowBatch read(@Nullable RowBatch reuse, int rows) {
        RowBatch batch =
                reuse != null && reuse.capacity >= rows
                        ? reuse
                        : new RowBatch(Math.max(rows, batchSize));
        for (Leaf leaf : leaves) {
            leaf.read(batch, rows);
        }
        batch.size = rows;
        batch.firstRow = nextRow;
        nextRow += rows;
        return batch;
    }

    @Override
    public void close() {}

    /**
     * Rows of a file, a column at a time: the Kafka columns of row {@code i} at index {@code i}. A
     * number's {@code has} flag is false where the column is null (or absent from the file).
     */
    static final class RowBatch {
        final int capacity;
        int size;

        /** The file's row (its position in the file) that row 0 of the batch is. */
        long firstRow;

        final long[] partition;
        final boolean[] hasPartition;
        final long[] offset;
        final boolean[] hasOffset;
        final long[] timestamp;
        final boolean[] hasTimestamp;
        final String[] topic;
        final byte[][] key;
        final byte[][] value;

        RowBatch(int capacity) {
            this.capacity = capacity;
            this.partition = new long[capacity];
            this.hasPartition = new boolean[capacity];
            this.offset = new long[capacity];
            this.hasOffset = new boolean[capacity];
            this.timestamp = new long[capacity];
            this.hasTimestamp = new boolean[capacity];
            this.topic = new String[capacity];
            this.key = new byte[capacity][];
            this.value = new byte[capacity][];
        }

        int size() {
            return size;
        }

        long firstRow() {
            return firstRow;
        }
    }

    /** The reader of a file this class does not read: its first batch says why. */
    private static final class Refusal implements VectorizedReader<RowBatch> {
        private final Unsupported reason;

        Refusal(Unsupported reason) {
            this.reason = reason;
        }

        @Override
        public RowBatch read(RowBatch reuse, int numRows) {
            throw reason;
        }

        @Override
        public void setBatchSize(int batchSize) {}

        @Override
        public void setRowGroupInfo(
                PageReadStore pages, Map<ColumnPath, ColumnChunkMetaData> metadata) {}

        @Override
        public void close() {}
    }

    /** How a page's values are stored. */
    private enum Values {
        /** One after another: little-endian numbers, or a length and the bytes. */
        PLAIN,
        /** Ids in the row group's dictionary, run-length and bit-packed. */
        DICTIONARY,
        /** Another encoding: Parquet's value reader, a value at a time. */
        OTHER
    }

    /** One Kafka column of the file: its pages in the current row group, decoded into batches. */
    private static final class Leaf {
        private final Part part;
        @Nullable private final ColumnDescriptor column;
        private final long perMilli;
        private final boolean int32;

        /** Whether the column holds numbers (the partition, offset or timestamp). */
        private final boolean number;

        private final int maxDefinition;

        @Nullable private PageReader pages;

        /** The row group's dictionary, decoded once: numbers, bytes, or the topic's strings. */
        @Nullable private long[] dictionaryNumbers;

        @Nullable private byte[][] dictionaryBytes;
        @Nullable private String[] dictionaryStrings;

        /** Values left in the current page (its rows: the column is not repeated). */
        private int pageLeft;

        @Nullable private HybridInts definitions;
        @Nullable private ValuesReader otherDefinitions;
        private Values values = Values.PLAIN;
        @Nullable private ByteBuffer plain;
        @Nullable private HybridInts ids;
        @Nullable private ValuesReader other;

        private int[] levels = new int[0];
        private int[] idBuffer = new int[0];

        Leaf(Part part, @Nullable ColumnDescriptor column, long perMilli) {
            this.part = part;
            this.column = column;
            this.perMilli = perMilli;
            this.int32 =
                    column != null
                            && column.getPrimitiveType().getPrimitiveTypeName()
                                    == PrimitiveTypeName.INT32;
            this.number =
                    column != null
                            && (part == Part.PARTITION
                                    || part == Part.OFFSET
                                    || part == Part.TIMESTAMP)
                            && (int32
                                    || column.getPrimitiveType().getPrimitiveTypeName()
                                            == PrimitiveTypeName.INT64);
            this.maxDefinition = column == null ? 0 : column.getMaxDefinitionLevel();
        }

        void startRowGroup(PageReadStore rowGroup) {
            if (column == null) {
                return;
            }
            pages = rowGroup.getPageReader(column);
            pageLeft = 0;
            dictionaryNumbers = null;
            dictionaryBytes = null;
            dictionaryStrings = null;
            DictionaryPage page = pages.readDictionaryPage();
            if (page != null) {
                try {
                    if (number && plainEncoded(page)) {
                        dictionaryNumbers = plainNumbers(page);
                    } else {
                        decodeDictionary(page.getEncoding().initDictionary(column, page));
                    }
                } catch (IOException e) {
                    throw new UncheckedIOException(
                            "Reading the dictionary of column " + describe() + " failed", e);
                }
            }
        }

        /** Whether a dictionary page holds its values one after another (as Parquet writes it). */
        private static boolean plainEncoded(DictionaryPage page) {
            return page.getEncoding() == Encoding.PLAIN
                    || page.getEncoding() == Encoding.PLAIN_DICTIONARY;
        }

        /**
         * A numbers column's dictionary straight from the page's little-endian values: Parquet's
         * dictionary reads them through a stream a value at a time, and this column's dictionary
         * (the offsets' above all, of distinct values) is read anew at every row group.
         */
        private long[] plainNumbers(DictionaryPage page) throws IOException {
            int size = page.getDictionarySize();
            int width = int32 ? Integer.BYTES : Long.BYTES;
            ByteBuffer bytes = page.getBytes().toByteBuffer().order(ByteOrder.LITTLE_ENDIAN);
            if (size < 0 || (long) size * width > bytes.remaining()) {
                throw new ParquetDecodingException(
                        String.format(
                                "The dictionary page of column %s says it holds %d values of %d bytes, but has %d bytes",
                                describe(), size, width, bytes.remaining()));
            }
            long[] numbers = new long[size];
            int at = bytes.position();
            for (int id = 0; id < size; id++, at += width) {
                numbers[id] = number(int32 ? bytes.getInt(at) : bytes.getLong(at));
            }
            return numbers;
        }

        private void decodeDictionary(Dictionary dictionary) {
            int size = dictionary.getMaxId() + 1;
            switch (part) {
                case PARTITION:
                case OFFSET:
                case TIMESTAMP:
                    dictionaryNumbers = new long[size];
                    for (int id = 0; id < size; id++) {
                        dictionaryNumbers[id] =
                                number(
                                        int32
                                                ? dictionary.decodeToInt(id)
                                                : dictionary.decodeToLong(id));
                    }
                    break;
                case TOPIC:
                    dictionaryStrings = new String[size];
                    for (int id = 0; id < size; id++) {
                        dictionaryStrings[id] = dictionary.decodeToBinary(id).toStringUsingUTF8();
                    }
                    break;
                default:
                    dictionaryBytes = new byte[size][];
                    for (int id = 0; id < size; id++) {
                        dictionaryBytes[id] = dictionary.decodeToBinary(id).getBytes();
                    }
                    break;
            }
        }

        /** A stored number as the row holds it (a timestamp in epoch milliseconds). */
        private long number(long stored) {
            return perMilli == 1 ? stored : Math.floorDiv(stored, perMilli);
        }

        private String describe() {
            return column == null ? part.name() : String.join(".", column.getPath());
        }

        /** Reads the next {@code rows} rows of the column into the batch. */
        void read(RowBatch batch, int rows) {
            if (levels.length < rows) {
                levels = new int[rows];
                idBuffer = new int[rows];
            }
            if (column == null) {
                readInto(batch, 0, rows, 0);
                return;
            }
            int done = 0;
            while (done < rows) {
                if (pageLeft == 0) {
                    nextPage();
                }
                int n = Math.min(rows - done, pageLeft);
                int defined = definitionLevels(n);
                readInto(batch, done, n, defined);
                pageLeft -= n;
                done += n;
            }
        }

        /** The next {@code n} definition levels into {@link #levels}; returns how many are set. */
        private int definitionLevels(int n) {
            if (maxDefinition == 0) {
                return n;
            }
            if (definitions != null) {
                definitions.read(levels, n);
            } else {
                for (int i = 0; i < n; i++) {
                    levels[i] = otherDefinitions.readInteger();
                }
            }
            int defined = 0;
            for (int i = 0; i < n; i++) {
                if (levels[i] == maxDefinition) {
                    defined++;
                }
            }
            return defined;
        }

        private boolean isSet(int i) {
            return maxDefinition == 0 || levels[i] == maxDefinition;
        }

        /**
         * Rows {@code at} to {@code at + n} of the batch, of which {@code defined} are not null
         * (their values next in the page).
         */
        private void readInto(RowBatch batch, int at, int n, int defined) {
            if (column == null) {
                switch (part) {
                    case PARTITION:
                    case OFFSET:
                    case TIMESTAMP:
                        Arrays.fill(hasOf(batch), at, at + n, false);
                        break;
                    default:
                        Arrays.fill(objectsOf(batch), at, at + n, null);
                        break;
                }
                return;
            }
            if (values == Values.DICTIONARY) {
                ids.read(idBuffer, defined);
            }
            switch (part) {
                case PARTITION:
                case OFFSET:
                case TIMESTAMP:
                    readNumbers(numbersOf(batch), hasOf(batch), at, n);
                    break;
                case TOPIC:
                    readStrings(batch.topic, at, n);
                    break;
                case KEY:
                    readBytes(batch.key, at, n);
                    break;
                default:
                    readBytes(batch.value, at, n);
                    break;
            }
        }

        private long[] numbersOf(RowBatch batch) {
            switch (part) {
                case PARTITION:
                    return batch.partition;
                case OFFSET:
                    return batch.offset;
                default:
                    return batch.timestamp;
            }
        }

        private boolean[] hasOf(RowBatch batch) {
            switch (part) {
                case PARTITION:
                    return batch.hasPartition;
                case OFFSET:
                    return batch.hasOffset;
                default:
                    return batch.hasTimestamp;
            }
        }

        private Object[] objectsOf(RowBatch batch) {
            switch (part) {
                case TOPIC:
                    return batch.topic;
                case KEY:
                    return batch.key;
                default:
                    return batch.value;
            }
        }

        private void readNumbers(long[] out, boolean[] has, int at, int n) {
            int next = 0; // the next dictionary id
            for (int i = 0; i < n; i++) {
                if (!isSet(i)) {
                    has[at + i] = false;
                    continue;
                }
                has[at + i] = true;
                switch (values) {
                    case PLAIN:
                        out[at + i] = number(int32 ? plain.getInt() : plain.getLong());
                        break;
                    case DICTIONARY:
                        out[at + i] = dictionaryNumbers[idBuffer[next++]];
                        break;
                    default:
                        out[at + i] = number(int32 ? other.readInteger() : other.readLong());
                        break;
                }
            }
        }

        private void readBytes(byte[][] out, int at, int n) {
            int next = 0;
            for (int i = 0; i < n; i++) {
                if (!isSet(i)) {
                    out[at + i] = null;
                    continue;
                }
                switch (values) {
                    case PLAIN:
                        out[at + i] = plainBytes();
                        break;
                    case DICTIONARY:
                        out[at + i] = dictionaryBytes[idBuffer[next++]].clone();
                        break;
                    default:
                        out[at + i] = other.readBytes().getBytes();
                        break;
                }
            }
        }

        private void readStrings(String[] out, int at, int n) {
            int next = 0;
            for (int i = 0; i < n; i++) {
                if (!isSet(i)) {
                    out[at + i] = null;
                    continue;
                }
                switch (values) {
                    case PLAIN:
                        out[at + i] = new String(plainBytes(), StandardCharsets.UTF_8);
                        break;
                    case DICTIONARY:
                        out[at + i] = dictionaryStrings[idBuffer[next++]];
                        break;
                    default:
                        out[at + i] = other.readBytes().toStringUsingUTF8();
                        break;
                }
            }
        }

        private byte[] plainBytes() {
            int length = plain.getInt();
            if (length < 0 || length > plain.remaining()) {
                throw new ParquetDecodingException(
                        String.format(
                                "Column %s: a value of %d bytes where the page has %d left",
                                describe(), length, plain.remaining()));
            }
            byte[] bytes = new byte[length];
            plain.get(bytes);
            return bytes;
        }

        private void nextPage() {
            DataPage page = pages.readPage();
            if (page == null) {
                throw new ParquetDecodingException(
                        "Column " + describe() + " ended before the row group's rows");
            }
            try {
                if (page instanceof DataPageV1) {
                    startPage((DataPageV1) page);
                } else {
                    startPage((DataPageV2) page);
                }
            } catch (IOException e) {
                throw new UncheckedIOException(
                        "Reading a page of column " + describe() + " failed", e);
            }
            pageLeft = page.getValueCount();
        }

        private void startPage(DataPageV1 page) throws IOException {
            ByteBufferInputStream in = page.getBytes().toInputStream();
            // a column that is not repeated has no repetition levels in the page
            definitions = null;
            otherDefinitions = null;
            if (maxDefinition > 0) {
                if (page.getDlEncoding() == Encoding.RLE) {
                    int length = BytesUtils.readIntLittleEndian(in);
                    definitions =
                            new HybridInts(
                                    in.slice(length),
                                    BytesUtils.getWidthFromMaxInt(maxDefinition),
                                    describe());
                } else {
                    otherDefinitions =
                            page.getDlEncoding()
                                    .getValuesReader(column, ValuesType.DEFINITION_LEVEL);
                    otherDefinitions.initFromPage(page.getValueCount(), in);
                }
            }
            startValues(page.getValueEncoding(), in, page.getValueCount());
        }

        private void startPage(DataPageV2 page) throws IOException {
            definitions = null;
            otherDefinitions = null;
            if (maxDefinition > 0) {
                definitions =
                        new HybridInts(
                                page.getDefinitionLevels().toByteBuffer(),
                                BytesUtils.getWidthFromMaxInt(maxDefinition),
                                describe());
            }
            startValues(
                    page.getDataEncoding(), page.getData().toInputStream(), page.getValueCount());
        }

        private void startValues(Encoding encoding, ByteBufferInputStream in, int count)
                throws IOException {
            plain = null;
            ids = null;
            other = null;
            if (encoding == Encoding.PLAIN) {
                values = Values.PLAIN;
                plain = in.slice(in.available()).order(ByteOrder.LITTLE_ENDIAN);
            } else if (encoding.usesDictionary()) {
                if (dictionaryNumbers == null
                        && dictionaryBytes == null
                        && dictionaryStrings == null) {
                    throw new ParquetDecodingException(
                            "Column "
                                    + describe()
                                    + " has a page of dictionary ids and no dictionary");
                }
                values = Values.DICTIONARY;
                // a page of nulls alone may have no ids, nor their width
                int bitWidth = in.available() == 0 ? 0 : in.read();
                ids = new HybridInts(in.slice(in.available()), bitWidth, describe());
            } else {
                values = Values.OTHER;
                other = encoding.getValuesReader(column, ValuesType.VALUES);
                other.initFromPage(count, in);
            }
        }
    }

    /**
     * Parquet's run-length and bit-packed hybrid encoding of small integers (definition levels,
     * dictionary ids), decoded a run at a time: a repeated run is one fill, a bit-packed run eight
     * values per call of Parquet's unpacker.
     */
    static final class HybridInts {
        private final ByteBuffer in;
        private final int bitWidth;
        private final String column;
        @Nullable private final BytePacker packer;

        private int repeatedLeft;
        private int repeated;
        private int[] packed = new int[64];
        private int packedAt;
        private int packedEnd;

        HybridInts(ByteBuffer in, int bitWidth, String column) {
            if (bitWidth < 0 || bitWidth > 32) {
                throw new ParquetDecodingException(
                        "Column " + column + ": a bit width of " + bitWidth);
            }
            this.in = in;
            this.bitWidth = bitWidth;
            this.column = column;
            this.packer = Packer.LITTLE_ENDIAN.newBytePacker(bitWidth);
        }

        /** The next {@code n} values into {@code out[0, n)}. */
        void read(int[] out, int n) {
            int at = 0;
            while (at < n) {
                if (repeatedLeft == 0 && packedAt == packedEnd) {
                    nextRun();
                }
                if (repeatedLeft > 0) {
                    int k = Math.min(n - at, repeatedLeft);
                    Arrays.fill(out, at, at + k, repeated);
                    repeatedLeft -= k;
                    at += k;
                } else {
                    int k = Math.min(n - at, packedEnd - packedAt);
                    System.arraycopy(packed, packedAt, out, at, k);
                    packedAt += k;
                    at += k;
                }
            }
        }

        private void nextRun() {
            if (!in.hasRemaining()) {
                throw new ParquetDecodingException(
                        "Column " + column + ": its levels or ids end before its values");
            }
            int header = unsignedVarInt();
            if ((header & 1) == 0) {
                repeatedLeft = header >>> 1;
                int bytes = (bitWidth + 7) / 8;
                int value = 0;
                for (int i = 0; i < bytes; i++) {
                    value |= (in.get() & 0xff) << (8 * i);
                }
                repeated = value;
            } else {
                int groups = header >>> 1;
                int values = groups * 8;
                if (packed.length < values) {
                    packed = new int[values];
                }
                int need = groups * bitWidth;
                ByteBuffer source = in;
                int position = in.position();
                if (in.remaining() < need) {
                    // the last run's bytes may stop short of its last group: pad them
                    byte[] padded = new byte[need];
                    int have = in.remaining();
                    in.get(padded, 0, have);
                    source = ByteBuffer.wrap(padded);
                    position = 0;
                } else {
                    in.position(position + need);
                }
                for (int g = 0; g < groups; g++) {
                    packer.unpack8Values(source, position + g * bitWidth, packed, g * 8);
                }
                packedAt = 0;
                packedEnd = values;
            }
        }

        private int unsignedVarInt() {
            int value = 0;
            int shift = 0;
            while (true) {
                int b = in.get() & 0xff;
                value |= (b & 0x7f) << shift;
                if ((b & 0x80) == 0) {
                    return value;
                }
                shift += 7;
                if (shift > 28) {
                    throw new ParquetDecodingException(
                            "Column " + column + ": a run header longer than an int");
                }
            }
        }
    }
}
