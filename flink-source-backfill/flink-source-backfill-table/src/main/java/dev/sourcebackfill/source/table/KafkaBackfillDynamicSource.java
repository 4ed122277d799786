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

import dev.sourcebackfill.source.BackfillSource;
import dev.sourcebackfill.source.RecordOrigin;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.DataStreamSource;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.connector.ChangelogMode;
import org.apache.flink.table.connector.Projection;
import org.apache.flink.table.connector.ProviderContext;
import org.apache.flink.table.connector.format.DecodingFormat;
import org.apache.flink.table.connector.source.DataStreamScanProvider;
import org.apache.flink.table.connector.source.DynamicTableSource;
import org.apache.flink.table.connector.source.ScanTableSource;
import org.apache.flink.table.connector.source.abilities.SupportsProjectionPushDown;
import org.apache.flink.table.connector.source.abilities.SupportsReadingMetadata;
import org.apache.flink.table.connector.source.abilities.SupportsWatermarkPushDown;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.logical.utils.LogicalTypeChecks;
import org.apache.flink.table.types.utils.DataTypeUtils;

import javax.annotation.Nullable;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import java.util.stream.Stream;

/**
 * A Kafka table read by the backfill source: key and value through the table's formats, the
 * connector's metadata columns, watermarks generated in the source (per partition, through the
 * handover).
 */
@Internal
class KafkaBackfillDynamicSource
        implements ScanTableSource, SupportsReadingMetadata, SupportsWatermarkPushDown {

    final DataType physicalType;
    @Nullable final DecodingFormat<DeserializationSchema<RowData>> keyFormat;
    final DecodingFormat<DeserializationSchema<RowData>> valueFormat;
    final int[] keyProjection;
    final int[] valueProjection;
    @Nullable final String keyPrefix;
    final KafkaReadOptions readOptions;
    final TableHistory history;
    final String tableIdentifier;

    DataType producedType;
    private List<ReadableMetadata> metadata = List.of();
    @Nullable private WatermarkStrategy<RowData> watermarkStrategy;

    /** The physical columns the query reads, in the produced row's order; {@code null}: all. */
    @Nullable int[] projectedColumns;

    KafkaBackfillDynamicSource(
            DataType physicalType,
            @Nullable DecodingFormat<DeserializationSchema<RowData>> keyFormat,
            DecodingFormat<DeserializationSchema<RowData>> valueFormat,
            int[] keyProjection,
            int[] valueProjection,
            @Nullable String keyPrefix,
            KafkaReadOptions readOptions,
            TableHistory history,
            String tableIdentifier) {
        this.history = history;
        this.physicalType = physicalType;
        this.keyFormat = keyFormat;
        this.valueFormat = valueFormat;
        this.keyProjection = keyProjection;
        this.valueProjection = valueProjection;
        this.keyPrefix = keyPrefix;
        this.readOptions = readOptions;
        this.tableIdentifier = tableIdentifier;
        this.producedType = physicalType;
    }

    @Override
    public ChangelogMode getChangelogMode() {
        return ChangelogMode.insertOnly();
    }

    @Override
    public ScanRuntimeProvider getScanRuntimeProvider(ScanContext context) {
        int physicalCount = LogicalTypeChecks.getFieldCount(physicalType.getLogicalType());
        // where each physical column goes in the produced row (negative: not read)
        int[] outputOf = new int[physicalCount];
        for (int i = 0; i < physicalCount; i++) {
            outputOf[i] = projectedColumns == null ? i : -1;
        }
        if (projectedColumns != null) {
            for (int j = 0; j < projectedColumns.length; j++) {
                outputOf[projectedColumns[j]] = j;
            }
        }
        int physicalArity = projectedColumns == null ? physicalCount : projectedColumns.length;
        TableHistory.Decoding keys =
                decoding(context, keyFormat, keyProjection, keyPrefix, outputOf);
        TableHistory.Decoding values =
                decoding(context, valueFormat, valueProjection, null, outputOf);
        TypeInformation<RowData> producedTypeInfo = context.createTypeInformation(producedType);
        int origin = metadata.indexOf(ReadableMetadata.ORIGIN);
        RowDataKafkaDeserializer kafkaRecords =
                new RowDataKafkaDeserializer(
                        keys.schema(),
                        values.schema(),
                        keys.targets(),
                        values.targets(),
                        physicalArity,
                        metadata,
                        producedTypeInfo);
        RecordOrigin.Marker<RowData> originMarker =
                origin < 0
                        ? RecordOrigin.Marker.none()
                        : new RowOriginMarker(physicalArity + origin);
        BackfillSource<RowData> source =
                history.build(
                        new TableHistory.Scan(
                                readOptions,
                                kafkaRecords,
                                originMarker,
                                () ->
                                        decoding(
                                                context,
                                                valueFormat,
                                                valueProjection,
                                                null,
                                                outputOf),
                                physicalType,
                                outputOf,
                                physicalArity,
                                metadata,
                                producedTypeInfo));
        WatermarkStrategy<RowData> watermarks =
                watermarkStrategy == null ? WatermarkStrategy.noWatermarks() : watermarkStrategy;
        String name = "KafkaBackfillSource-" + tableIdentifier;
        return new DataStreamScanProvider() {
            @Override
            public DataStream<RowData> produceDataStream(
                    ProviderContext providerContext, StreamExecutionEnvironment env) {
                DataStreamSource<RowData> stream = env.fromSource(source, watermarks, name);
                providerContext.generateUid("kafka-backfill").ifPresent(stream::uid);
                if (readOptions.parallelism() != null) {
                    stream.setParallelism(readOptions.parallelism());
                }
                return stream;
            }

            @Override
            public boolean isBounded() {
                return readOptions.bounded();
            }
        };
    }

    /**
     * The decoder of the {@code fields} (physical columns) a format holds, and where each goes in
     * the produced row (negative for a column the query does not read).
     */
    private TableHistory.Decoding decoding(
            ScanContext context,
            @Nullable DecodingFormat<DeserializationSchema<RowData>> format,
            int[] fields,
            @Nullable String prefix,
            int[] outputOf) {
        if (format == null) {
            return new TableHistory.Decoding(null, new int[0]);
        }
        DataType type = Projection.of(fields).project(physicalType);
        if (prefix != null) {
            type = stripPrefix(type, prefix);
        }
        int[] targets = IntStream.of(fields).map(f -> outputOf[f]).toArray();
        // the whole format type, always: a format's own projection may assume its records were
        // written with the projected schema (Flink's avro reads by position), which Kafka
        // records were not
        return new TableHistory.Decoding(format.createRuntimeDecoder(context, type), targets);
    }

    /** The key's row type with each field's name without the key prefix (the format's names). */
    private static DataType stripPrefix(DataType row, String prefix) {
        List<String> names = DataType.getFieldNames(row);
        List<DataType> types = DataType.getFieldDataTypes(row);
        List<DataTypes.Field> fields = new ArrayList<>();
        for (int i = 0; i < names.size(); i++) {
            fields.add(DataTypes.FIELD(names.get(i).substring(prefix.length()), types.get(i)));
        }
        return DataTypeUtils.removeTimeAttribute(DataTypes.ROW(fields).notNull());
    }

    @Override
    public Map<String, DataType> listReadableMetadata() {
        Map<String, DataType> columns = new LinkedHashMap<>();
        // archived records know only where they were found; an Iceberg table's rows what its
        // layout keeps
        for (ReadableMetadata m : history.metadata()) {
            columns.put(m.key, m.dataType);
        }
        return columns;
    }

    @Override
    public void applyReadableMetadata(List<String> metadataKeys, DataType producedDataType) {
        List<ReadableMetadata> read = new ArrayList<>();
        for (String key : metadataKeys) {
            read.add(ReadableMetadata.ofKey(key));
        }
        this.metadata = List.copyOf(read);
        this.producedType = producedDataType;
    }

    @Override
    public boolean supportsMetadataProjection() {
        return false;
    }

    @Override
    public void applyWatermark(WatermarkStrategy<RowData> watermarkStrategy) {
        this.watermarkStrategy = watermarkStrategy;
    }

    @Override
    public DynamicTableSource copy() {
        KafkaBackfillDynamicSource copy = newCopy();
        copy.producedType = producedType;
        copy.metadata = metadata;
        copy.watermarkStrategy = watermarkStrategy;
        copy.projectedColumns = projectedColumns;
        return copy;
    }

    /** A source of the same class over the same table, before any push-down. */
    KafkaBackfillDynamicSource newCopy() {
        return new KafkaBackfillDynamicSource(this);
    }

    /** The same table as {@code table}, before any push-down. */
    KafkaBackfillDynamicSource(KafkaBackfillDynamicSource table) {
        this(
                table.physicalType,
                table.keyFormat,
                table.valueFormat,
                table.keyProjection,
                table.valueProjection,
                table.keyPrefix,
                table.readOptions,
                table.history,
                table.tableIdentifier);
    }

    /**
     * The source with projection push-down: it produces the query's physical columns only (each
     * format decodes its whole record; the source keeps what is read). Not for an archive whose
     * offset is a column (the column must be read even where the query does not).
     */
    static final class Projecting extends KafkaBackfillDynamicSource
            implements SupportsProjectionPushDown {

        /** The same table as {@code table}, with projection push-down. */
        Projecting(KafkaBackfillDynamicSource table) {
            super(table);
        }

        @Override
        public boolean supportsNestedProjection() {
            return false;
        }

        @Override
        public void applyProjection(int[][] projectedFields, DataType producedDataType) {
            projectedColumns = Stream.of(projectedFields).mapToInt(f -> f[0]).toArray();
            producedType = producedDataType;
        }

        @Override
        KafkaBackfillDynamicSource newCopy() {
            return new Projecting(this);
        }
    }

    @Override
    public String asSummaryString() {
        return "Kafka backfill table source";
    }
}
