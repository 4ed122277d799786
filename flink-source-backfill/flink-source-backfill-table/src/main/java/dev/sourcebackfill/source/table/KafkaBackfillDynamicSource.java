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

/**
 * A Kafka table read by the backfill source: key and value through the table's formats, the
 * connector's metadata columns, watermarks generated in the source (per partition, through the
 * handover).
 */
@Internal
final class KafkaBackfillDynamicSource
        implements ScanTableSource, SupportsReadingMetadata, SupportsWatermarkPushDown {

    private final DataType physicalType;
    @Nullable private final DecodingFormat<DeserializationSchema<RowData>> keyFormat;
    private final DecodingFormat<DeserializationSchema<RowData>> valueFormat;
    private final int[] keyProjection;
    private final int[] valueProjection;
    @Nullable private final String keyPrefix;
    private final KafkaReadOptions readOptions;
    @Nullable private final ArchiveTableOptions archive;
    private final String tableIdentifier;

    private DataType producedType;
    private List<ReadableMetadata> metadata = List.of();
    @Nullable private WatermarkStrategy<RowData> watermarkStrategy;

    KafkaBackfillDynamicSource(
            DataType physicalType,
            @Nullable DecodingFormat<DeserializationSchema<RowData>> keyFormat,
            DecodingFormat<DeserializationSchema<RowData>> valueFormat,
            int[] keyProjection,
            int[] valueProjection,
            @Nullable String keyPrefix,
            KafkaReadOptions readOptions,
            @Nullable ArchiveTableOptions archive,
            String tableIdentifier) {
        this.archive = archive;
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
        DeserializationSchema<RowData> keys = decoder(context, keyFormat, keyProjection, keyPrefix);
        DeserializationSchema<RowData> values =
                decoder(context, valueFormat, valueProjection, null);
        TypeInformation<RowData> producedTypeInfo = context.createTypeInformation(producedType);
        int physicalArity = LogicalTypeChecks.getFieldCount(physicalType.getLogicalType());
        int origin = metadata.indexOf(ReadableMetadata.ORIGIN);
        RowDataKafkaDeserializer kafkaRecords =
                new RowDataKafkaDeserializer(
                        keys,
                        values,
                        keyProjection,
                        valueProjection,
                        physicalArity,
                        metadata,
                        producedTypeInfo);
        RecordOrigin.Marker<RowData> originMarker =
                origin < 0
                        ? RecordOrigin.Marker.none()
                        : new RowOriginMarker(physicalArity + origin);
        BackfillSource<RowData> source =
                archive == null
                        ? readOptions.build(kafkaRecords, originMarker)
                        : archive.build(
                                readOptions.kafkaBuilder(kafkaRecords, originMarker),
                                readOptions.gapPolicy(),
                                decoder(context, valueFormat, valueProjection, null),
                                valueProjection,
                                physicalArity,
                                metadata,
                                producedTypeInfo);
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

    @Nullable
    private DeserializationSchema<RowData> decoder(
            ScanContext context,
            @Nullable DecodingFormat<DeserializationSchema<RowData>> format,
            int[] projection,
            @Nullable String prefix) {
        if (format == null) {
            return null;
        }
        DataType type = Projection.of(projection).project(physicalType);
        if (prefix != null) {
            type = stripPrefix(type, prefix);
        }
        return format.createRuntimeDecoder(context, type);
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
        // archived records know only where they were found
        for (ReadableMetadata m :
                archive == null
                        ? List.of(ReadableMetadata.values())
                        : ArchiveTableOptions.METADATA) {
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
        KafkaBackfillDynamicSource copy =
                new KafkaBackfillDynamicSource(
                        physicalType,
                        keyFormat,
                        valueFormat,
                        keyProjection,
                        valueProjection,
                        keyPrefix,
                        readOptions,
                        archive,
                        tableIdentifier);
        copy.producedType = producedType;
        copy.metadata = metadata;
        copy.watermarkStrategy = watermarkStrategy;
        return copy;
    }

    @Override
    public String asSummaryString() {
        return "Kafka backfill table source";
    }
}
