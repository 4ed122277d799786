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
import org.apache.flink.annotation.VisibleForTesting;
import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.streaming.connectors.kafka.table.KafkaConnectorOptions;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.connector.format.DecodingFormat;
import org.apache.flink.table.connector.source.DynamicTableSource;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.factories.DeserializationFormatFactory;
import org.apache.flink.table.factories.DynamicTableSourceFactory;
import org.apache.flink.table.factories.FactoryUtil;
import org.apache.flink.table.types.DataType;
import org.apache.flink.types.RowKind;

import javax.annotation.Nullable;

import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;

/**
 * The {@code kafka-backfill} table connector: a Kafka table as Flink's Kafka SQL connector defines
 * it (same option names and meanings), read by the backfill source, so that each partition's
 * history is read first and the partition then goes on live, exactly once across the handover.
 */
@Internal
public final class KafkaBackfillDynamicTableFactory implements DynamicTableSourceFactory {

    public static final String IDENTIFIER = "kafka-backfill";

    /**
     * Flink's Kafka connector's deprecated sink option (its own, private there): accepted, like the
     * other sink options, so that the DDL of a table that is also written to reads.
     */
    static final ConfigOption<String> SINK_SEMANTIC =
            ConfigOptions.key("sink.semantic")
                    .stringType()
                    .noDefaultValue()
                    .withDescription(
                            "A sink option of Flink's Kafka connector; a source ignores it.");

    @Override
    public String factoryIdentifier() {
        return IDENTIFIER;
    }

    @Override
    public Set<ConfigOption<?>> requiredOptions() {
        return Set.of(KafkaConnectorOptions.PROPS_BOOTSTRAP_SERVERS);
    }

    @Override
    public Set<ConfigOption<?>> optionalOptions() {
        Set<ConfigOption<?>> options = new HashSet<>(KafkaBackfillConnectorOptions.ICEBERG_OPTIONS);
        options.addAll(
                List.of(
                        FactoryUtil.FORMAT,
                        KafkaConnectorOptions.KEY_FORMAT,
                        KafkaConnectorOptions.KEY_FIELDS,
                        KafkaConnectorOptions.KEY_FIELDS_PREFIX,
                        KafkaConnectorOptions.VALUE_FORMAT,
                        KafkaConnectorOptions.VALUE_FIELDS_INCLUDE,
                        KafkaConnectorOptions.TOPIC,
                        KafkaConnectorOptions.TOPIC_PATTERN,
                        KafkaConnectorOptions.PROPS_GROUP_ID,
                        KafkaConnectorOptions.SCAN_STARTUP_MODE,
                        KafkaConnectorOptions.SCAN_STARTUP_SPECIFIC_OFFSETS,
                        KafkaConnectorOptions.SCAN_STARTUP_TIMESTAMP_MILLIS,
                        KafkaConnectorOptions.SCAN_BOUNDED_MODE,
                        KafkaConnectorOptions.SCAN_BOUNDED_SPECIFIC_OFFSETS,
                        KafkaConnectorOptions.SCAN_BOUNDED_TIMESTAMP_MILLIS,
                        KafkaConnectorOptions.SCAN_TOPIC_PARTITION_DISCOVERY,
                        // Flink's scan.parallelism, which the Kafka connector names for 2.x
                        FactoryUtil.SOURCE_PARALLELISM,
                        // sink options: the same DDL often writes the table too; a source ignores
                        // them,
                        // as Flink's Kafka connector's source does
                        KafkaConnectorOptions.SINK_PARTITIONER,
                        KafkaConnectorOptions.SINK_PARALLELISM,
                        KafkaConnectorOptions.DELIVERY_GUARANTEE,
                        KafkaConnectorOptions.TRANSACTIONAL_ID_PREFIX,
                        SINK_SEMANTIC,
                        KafkaBackfillConnectorOptions.OFFSET_GAP_POLICY,
                        KafkaBackfillConnectorOptions.POLL_TIMEOUT,
                        KafkaBackfillConnectorOptions.BACKFILL_RECORDS_PER_SECOND,
                        KafkaBackfillConnectorOptions.BACKFILL_CHUNK_SIZE,
                        KafkaBackfillConnectorOptions.BACKFILL_CONTROL_FILE,
                        KafkaBackfillConnectorOptions.BACKFILL_CONTROL_INTERVAL,
                        KafkaBackfillConnectorOptions.ARCHIVE_PATH,
                        KafkaBackfillConnectorOptions.ARCHIVE_OFFSET_FIELD,
                        KafkaBackfillConnectorOptions.ARCHIVE_SKIP_UNREADABLE_RECORDS));
        options.addAll(KafkaSinkNamingOptions.options());
        return options;
    }

    @Override
    public DynamicTableSource createDynamicTableSource(Context context) {
        FactoryUtil.TableFactoryHelper helper = FactoryUtil.createTableFactoryHelper(this, context);
        Optional<DecodingFormat<DeserializationSchema<RowData>>> keyFormat =
                helper.discoverOptionalDecodingFormat(
                        DeserializationFormatFactory.class, KafkaConnectorOptions.KEY_FORMAT);
        DecodingFormat<DeserializationSchema<RowData>> valueFormat =
                helper.discoverOptionalDecodingFormat(
                                DeserializationFormatFactory.class, FactoryUtil.FORMAT)
                        .orElseGet(
                                () ->
                                        helper.discoverDecodingFormat(
                                                DeserializationFormatFactory.class,
                                                KafkaConnectorOptions.VALUE_FORMAT));
        // the Kafka client's own settings pass through under properties.*, the Iceberg catalog's
        // under backfill.iceberg.catalog.*
        helper.validateExcept(
                KafkaTableOptions.PROPERTIES_PREFIX,
                KafkaBackfillConnectorOptions.ICEBERG_CATALOG_PREFIX);
        ReadableConfig options = helper.getOptions();
        KafkaTableOptions.validateTopic(options);
        KafkaTableOptions.validateGroupId(options);
        keyFormat.ifPresent(f -> checkInsertOnly(f, KafkaConnectorOptions.KEY_FORMAT));
        checkInsertOnly(valueFormat, FactoryUtil.FORMAT);
        if (context.getPrimaryKeyIndexes().length > 0) {
            throw new ValidationException(
                    "The kafka-backfill connector reads an append-only table: a PRIMARY KEY is"
                            + " not supported (Flink's upsert-kafka semantics are not implemented).");
        }

        Properties properties =
                KafkaTableOptions.kafkaProperties(context.getCatalogTable().getOptions());
        DataType physicalType = context.getPhysicalRowDataType();
        int[] keyProjection = KafkaTableOptions.keyProjection(options, physicalType);
        int[] valueProjection =
                KafkaTableOptions.valueProjection(options, physicalType, keyProjection);
        TableHistory history =
                history(
                        options,
                        context.getCatalogTable().getOptions(),
                        physicalType,
                        ICEBERG_MODULE_CLASS);
        String keyPrefix =
                options.getOptional(KafkaConnectorOptions.KEY_FIELDS_PREFIX).orElse(null);
        KafkaReadOptions readOptions = KafkaReadOptions.of(options, properties);
        String table = context.getObjectIdentifier().asSummaryString();
        KafkaBackfillDynamicSource source =
                new KafkaBackfillDynamicSource(
                        physicalType,
                        keyFormat.orElse(null),
                        valueFormat,
                        keyProjection,
                        valueProjection,
                        keyPrefix,
                        readOptions,
                        history,
                        table);
        return history.supportsProjection()
                ? new KafkaBackfillDynamicSource.Projecting(source)
                : source;
    }

    /**
     * The table's history: an Iceberg table ({@code backfill.iceberg.*}), an archive ({@code
     * backfill.archive.*}) or the topic itself.
     */
    private static TableHistory history(
            ReadableConfig options,
            Map<String, String> tableOptions,
            DataType physicalType,
            String icebergModuleClass) {
        Optional<ArchiveTableOptions> archive = ArchiveTableOptions.of(options, physicalType);
        IcebergTableOptions iceberg =
                iceberg(options, tableOptions, physicalType, icebergModuleClass);
        if (iceberg != null) {
            return iceberg;
        }
        return archive.<TableHistory>map(a -> a).orElseGet(TableHistory.FromTopic::new);
    }

    /**
     * The {@code backfill.iceberg.*} options, if the table sets them; Iceberg's classes are loaded
     * only then, and a class path without the Iceberg module fails naming the option.
     */
    @VisibleForTesting
    @Nullable
    static IcebergTableOptions iceberg(
            ReadableConfig options,
            Map<String, String> tableOptions,
            DataType physicalType,
            String moduleClass) {
        boolean anyIcebergOption =
                tableOptions.keySet().stream()
                        .anyMatch(k -> k.startsWith(KafkaBackfillConnectorOptions.ICEBERG_PREFIX));
        if (!anyIcebergOption) {
            return null;
        }
        ClassLoader loader = KafkaBackfillDynamicTableFactory.class.getClassLoader();
        for (String needed : List.of(moduleClass, ICEBERG_CLASS, HADOOP_CLASS)) {
            try {
                Class.forName(needed, false, loader);
            } catch (ClassNotFoundException | LinkageError e) {
                throw missingIceberg(needed, e);
            }
        }
        try {
            return IcebergTableOptions.of(options, tableOptions, physicalType).orElse(null);
        } catch (LinkageError e) {
            throw missingIceberg(e.getMessage(), e);
        }
    }

    private static ValidationException missingIceberg(String missing, Throwable cause) {
        return new ValidationException(
                String.format(
                        "Option '%s' needs the Iceberg module on the class path"
                                + " (dev.sourcebackfill:flink-source-backfill-iceberg, or the SQL"
                                + " jar, with Iceberg's and Hadoop's client jars); %s is missing.",
                        KafkaBackfillConnectorOptions.ICEBERG_TABLE.key(), missing),
                cause);
    }

    /** An Iceberg class the Iceberg options need (the module's jar alone is not enough). */
    private static final String ICEBERG_CLASS = "org.apache.iceberg.catalog.TableIdentifier";

    /** A Hadoop class Iceberg's catalogs and Parquet readers need. */
    private static final String HADOOP_CLASS = "org.apache.hadoop.conf.Configuration";

    /** A class of the Iceberg module that loads Iceberg's own classes. */
    static final String ICEBERG_MODULE_CLASS =
            "dev.sourcebackfill.source.iceberg.IcebergBackfillSourceBuilder";

    private static void checkInsertOnly(
            DecodingFormat<DeserializationSchema<RowData>> format, ConfigOption<?> option) {
        if (!format.getChangelogMode().containsOnly(RowKind.INSERT)) {
            throw new ValidationException(
                    String.format(
                            "The format of '%s' produces a changelog (%s); the kafka-backfill"
                                    + " connector reads insert-only formats.",
                            option.key(), format.getChangelogMode()));
        }
    }
}
