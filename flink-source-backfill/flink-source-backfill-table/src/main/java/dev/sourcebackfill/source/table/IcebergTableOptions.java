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
import dev.sourcebackfill.source.iceberg.IcebergBackfill;
import dev.sourcebackfill.source.iceberg.IcebergBackfillSourceBuilder;
import dev.sourcebackfill.source.iceberg.IcebergLayout;
import dev.sourcebackfill.source.kafka.KafkaBackfillSourceBuilder;
import dev.sourcebackfill.source.table.KafkaBackfillConnectorOptions.IcebergValues;

import org.apache.flink.annotation.Internal;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.streaming.connectors.kafka.table.KafkaConnectorOptions;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.logical.LogicalType;

import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.SnapshotRef;
import org.apache.iceberg.catalog.TableIdentifier;

import javax.annotation.Nullable;

import java.io.Serializable;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.stream.IntStream;
import java.util.stream.Stream;

/**
 * The {@code backfill.iceberg.*} options: each partition's history from an Iceberg table written
 * from the topic, handed over to the topic after the highest offset the partition has in the
 * snapshot pinned at the first start. Rows become the SQL table's rows either through the table's
 * formats (the layout's value column, as the topic's records are read; the metadata columns of the
 * record rebuilt of the row) or column by column by name ({@link IcebergValues#COLUMNS}: the
 * metadata columns the layout keeps).
 *
 * <p>Only this class and what it builds use Iceberg's classes: a table without {@code
 * backfill.iceberg.table} never loads them.
 */
@Internal
record IcebergTableOptions(
        String catalogName,
        Map<String, String> catalogProperties,
        String table,
        IcebergLayout layout,
        IcebergValues values,
        @Nullable SnapshotTagOptions snapshotTag,
        boolean ordered)
        implements TableHistory {

    /** {@code backfill.iceberg.snapshot-tag} and its max age. */
    record SnapshotTagOptions(String name, Duration maxAge) implements Serializable {}

    /** The metadata columns a row read column by column has. */
    static final List<ReadableMetadata> COLUMNS_METADATA =
            List.of(
                    ReadableMetadata.TOPIC,
                    ReadableMetadata.PARTITION,
                    ReadableMetadata.OFFSET,
                    ReadableMetadata.TIMESTAMP,
                    ReadableMetadata.ORIGIN);

    private static final Map<String, IcebergLayout> PRESETS =
            Map.of(
                    "redpanda", IcebergLayout.redpanda(),
                    "kafka-connect", IcebergLayout.kafkaConnect(),
                    "kafka-connect-nested", IcebergLayout.kafkaConnectNested(),
                    "automq", IcebergLayout.autoMq(),
                    "aiven", IcebergLayout.aiven());

    private static final String CUSTOM = "custom";

    /** The options, if {@code backfill.iceberg.table} is set; each checked, naming the option. */
    static Optional<IcebergTableOptions> of(
            ReadableConfig options, Map<String, String> tableOptions, DataType physicalType) {
        Optional<String> table = options.getOptional(KafkaBackfillConnectorOptions.ICEBERG_TABLE);
        Map<String, String> catalog = new HashMap<>();
        tableOptions.forEach(
                (key, value) -> {
                    if (key.startsWith(KafkaBackfillConnectorOptions.ICEBERG_CATALOG_PREFIX)) {
                        catalog.put(
                                key.substring(
                                        KafkaBackfillConnectorOptions.ICEBERG_CATALOG_PREFIX
                                                .length()),
                                value);
                    }
                });
        if (table.isEmpty()) {
            for (ConfigOption<?> option : dependentOptions()) {
                if (options.getOptional(option).isPresent()) {
                    throw needsTable(option.key());
                }
            }
            if (!catalog.isEmpty()) {
                throw needsTable(
                        KafkaBackfillConnectorOptions.ICEBERG_CATALOG_PREFIX
                                + catalog.keySet().iterator().next());
            }
            return Optional.empty();
        }
        if (options.getOptional(KafkaBackfillConnectorOptions.ARCHIVE_PATH).isPresent()) {
            throw new ValidationException(
                    String.format(
                            "Options '%s' and '%s' cannot both be set: a table's history comes"
                                    + " from one of them.",
                            KafkaBackfillConnectorOptions.ICEBERG_TABLE.key(),
                            KafkaBackfillConnectorOptions.ARCHIVE_PATH.key()));
        }
        if (options.getOptional(KafkaConnectorOptions.TOPIC_PATTERN).isPresent()) {
            throw new ValidationException(
                    String.format(
                            "Option '%s' cannot be used with '%s': the topics must be listed in"
                                    + " '%s'.",
                            KafkaConnectorOptions.TOPIC_PATTERN.key(),
                            KafkaBackfillConnectorOptions.ICEBERG_TABLE.key(),
                            KafkaConnectorOptions.TOPIC.key()));
        }
        try {
            TableIdentifier.parse(table.get());
        } catch (IllegalArgumentException e) {
            throw new ValidationException(
                    String.format(
                            "Option '%s' is '%s', which is not an Iceberg table identifier"
                                    + " ('namespace.table'): %s",
                            KafkaBackfillConnectorOptions.ICEBERG_TABLE.key(),
                            table.get(),
                            e.getMessage()));
        }
        if (!catalog.containsKey(CatalogUtil.ICEBERG_CATALOG_TYPE)
                && !catalog.containsKey(CatalogProperties.CATALOG_IMPL)) {
            throw new ValidationException(
                    String.format(
                            "Option '%s' needs the catalog: set '%s%s' (rest, hadoop, jdbc, hive,"
                                    + " glue, ...) or '%s%s'.",
                            KafkaBackfillConnectorOptions.ICEBERG_TABLE.key(),
                            KafkaBackfillConnectorOptions.ICEBERG_CATALOG_PREFIX,
                            CatalogUtil.ICEBERG_CATALOG_TYPE,
                            KafkaBackfillConnectorOptions.ICEBERG_CATALOG_PREFIX,
                            CatalogProperties.CATALOG_IMPL));
        }
        IcebergLayout layout = layout(options);
        List<String> topics = options.getOptional(KafkaConnectorOptions.TOPIC).orElse(List.of());
        if (topics.size() > 1 && layout.topicColumn().isEmpty()) {
            throw new ValidationException(
                    String.format(
                            "Option '%s' lists %d topics, but the %s has no topic column to tell"
                                    + " their rows apart: set '%s'.",
                            KafkaConnectorOptions.TOPIC.key(),
                            topics.size(),
                            layout,
                            KafkaBackfillConnectorOptions.ICEBERG_TOPIC_COLUMN.key()));
        }
        IcebergValues values =
                options.getOptional(KafkaBackfillConnectorOptions.ICEBERG_VALUES)
                        .orElse(
                                layout.valueColumn().isPresent()
                                        ? IcebergValues.FORMAT
                                        : IcebergValues.COLUMNS);
        if (values == IcebergValues.FORMAT && layout.valueColumn().isEmpty()) {
            throw new ValidationException(
                    String.format(
                            "Option '%s' is FORMAT, but the %s keeps no record value: set '%s'"
                                    + " or read the rows' columns ('%s' = 'COLUMNS').",
                            KafkaBackfillConnectorOptions.ICEBERG_VALUES.key(),
                            layout,
                            KafkaBackfillConnectorOptions.ICEBERG_VALUE_COLUMN.key(),
                            KafkaBackfillConnectorOptions.ICEBERG_VALUES.key()));
        }
        if (values == IcebergValues.FORMAT
                && options.getOptional(KafkaConnectorOptions.KEY_FORMAT).isPresent()
                && layout.keyColumn().isEmpty()) {
            throw new ValidationException(
                    String.format(
                            "Option '%s' is set, but the %s keeps no record key for it: set '%s'"
                                    + " (history rows would have no key columns).",
                            KafkaConnectorOptions.KEY_FORMAT.key(),
                            layout,
                            KafkaBackfillConnectorOptions.ICEBERG_KEY_COLUMN.key()));
        }
        if (values == IcebergValues.COLUMNS) {
            List<String> names = DataType.getFieldNames(physicalType);
            List<DataType> types = DataType.getFieldDataTypes(physicalType);
            for (int i = 0; i < names.size(); i++) {
                if (IcebergColumnValue.of(types.get(i).getLogicalType()) == null) {
                    throw new ValidationException(
                            String.format(
                                    "Column '%s' is %s, which '%s' = 'COLUMNS' cannot read from"
                                            + " an Iceberg column (supported: strings, booleans,"
                                            + " numbers, decimals, bytes, dates, times,"
                                            + " timestamps).",
                                    names.get(i),
                                    types.get(i),
                                    KafkaBackfillConnectorOptions.ICEBERG_VALUES.key()));
                }
            }
        }
        boolean ordered;
        try {
            ordered = options.get(KafkaBackfillConnectorOptions.ICEBERG_ORDERED);
        } catch (IllegalArgumentException e) {
            throw new ValidationException(
                    String.format(
                            "Option '%s' must be 'true' or 'false': %s",
                            KafkaBackfillConnectorOptions.ICEBERG_ORDERED.key(), e.getMessage()),
                    e);
        }
        if (ordered
                && options.getOptional(KafkaBackfillConnectorOptions.BACKFILL_CHUNK_SIZE)
                        .isPresent()) {
            throw new ValidationException(
                    String.format(
                            "Option '%s' reads each partition's history in one piece, by its own"
                                    + " split: remove '%s'.",
                            KafkaBackfillConnectorOptions.ICEBERG_ORDERED.key(),
                            KafkaBackfillConnectorOptions.BACKFILL_CHUNK_SIZE.key()));
        }
        SnapshotTagOptions snapshotTag = snapshotTag(options);
        return Optional.of(
                new IcebergTableOptions(
                        options.get(KafkaBackfillConnectorOptions.ICEBERG_CATALOG_NAME),
                        Map.copyOf(catalog),
                        table.get(),
                        layout,
                        values,
                        snapshotTag,
                        ordered));
    }

    /** The snapshot tag's options, checked, naming the option; {@code null} if not set. */
    @Nullable
    private static SnapshotTagOptions snapshotTag(ReadableConfig options) {
        Optional<String> name =
                options.getOptional(KafkaBackfillConnectorOptions.ICEBERG_SNAPSHOT_TAG);
        Optional<Duration> maxAge =
                options.getOptional(KafkaBackfillConnectorOptions.ICEBERG_SNAPSHOT_TAG_MAX_AGE);
        String tagKey = KafkaBackfillConnectorOptions.ICEBERG_SNAPSHOT_TAG.key();
        String maxAgeKey = KafkaBackfillConnectorOptions.ICEBERG_SNAPSHOT_TAG_MAX_AGE.key();
        if (name.isEmpty()) {
            if (maxAge.isPresent()) {
                throw new ValidationException(
                        String.format(
                                "Option '%s' is set without '%s': set the tag's name, or drop the"
                                        + " max age.",
                                maxAgeKey, tagKey));
            }
            return null;
        }
        if (name.get().isBlank()) {
            throw new ValidationException(
                    String.format("Option '%s' is empty: give the tag a name.", tagKey));
        }
        if (name.get().equals(SnapshotRef.MAIN_BRANCH)) {
            throw new ValidationException(
                    String.format(
                            "Option '%s' is '%s', the name of the table's main branch: choose"
                                    + " another name for the tag.",
                            tagKey, SnapshotRef.MAIN_BRANCH));
        }
        if (maxAge.isEmpty()) {
            throw new ValidationException(
                    String.format(
                            "Option '%s' is required with '%s': how long the tag may keep the"
                                    + " snapshot if the job never reaches forward mode (for"
                                    + " example '7 d').",
                            maxAgeKey, tagKey));
        }
        if (maxAge.get().toMillis() < 1) {
            throw new ValidationException(
                    String.format(
                            "Option '%s' is %s: it must be at least a millisecond.",
                            maxAgeKey, maxAge.get()));
        }
        return new SnapshotTagOptions(name.get(), maxAge.get());
    }

    /** The options that mean nothing without {@code backfill.iceberg.table}. */
    private static List<ConfigOption<?>> dependentOptions() {
        return KafkaBackfillConnectorOptions.ICEBERG_OPTIONS.stream()
                .filter(o -> o != KafkaBackfillConnectorOptions.ICEBERG_TABLE)
                .toList();
    }

    private static ValidationException needsTable(String option) {
        return new ValidationException(
                String.format(
                        "Option '%s' needs '%s'.",
                        option, KafkaBackfillConnectorOptions.ICEBERG_TABLE.key()));
    }

    /** The preset, or {@code custom} columns, with the column options over it. */
    private static IcebergLayout layout(ReadableConfig options) {
        String name =
                options.getOptional(KafkaBackfillConnectorOptions.ICEBERG_LAYOUT)
                        .map(n -> n.toLowerCase(Locale.ROOT))
                        .orElseThrow(
                                () ->
                                        new ValidationException(
                                                String.format(
                                                        "Option '%s' is required with '%s': one of"
                                                                + " %s or '%s'.",
                                                        KafkaBackfillConnectorOptions.ICEBERG_LAYOUT
                                                                .key(),
                                                        KafkaBackfillConnectorOptions.ICEBERG_TABLE
                                                                .key(),
                                                        PRESETS.keySet().stream().sorted().toList(),
                                                        CUSTOM)));
        Optional<String> partition =
                options.getOptional(KafkaBackfillConnectorOptions.ICEBERG_PARTITION_COLUMN);
        Optional<String> offset =
                options.getOptional(KafkaBackfillConnectorOptions.ICEBERG_OFFSET_COLUMN);
        Optional<String> timestamp =
                options.getOptional(KafkaBackfillConnectorOptions.ICEBERG_TIMESTAMP_COLUMN);
        IcebergLayout layout;
        if (name.equals(CUSTOM)) {
            for (ConfigOption<String> column :
                    List.of(
                            KafkaBackfillConnectorOptions.ICEBERG_PARTITION_COLUMN,
                            KafkaBackfillConnectorOptions.ICEBERG_OFFSET_COLUMN,
                            KafkaBackfillConnectorOptions.ICEBERG_TIMESTAMP_COLUMN)) {
                if (options.getOptional(column).isEmpty()) {
                    throw new ValidationException(
                            String.format(
                                    "Option '%s' is required when '%s' is '%s'.",
                                    column.key(),
                                    KafkaBackfillConnectorOptions.ICEBERG_LAYOUT.key(),
                                    CUSTOM));
                }
            }
            layout = IcebergLayout.of(partition.get(), offset.get(), timestamp.get());
        } else {
            IcebergLayout preset = PRESETS.get(name);
            if (preset == null) {
                throw new ValidationException(
                        String.format(
                                "Option '%s' is '%s'; it must be one of %s or '%s'.",
                                KafkaBackfillConnectorOptions.ICEBERG_LAYOUT.key(),
                                name,
                                PRESETS.keySet().stream().sorted().toList(),
                                CUSTOM));
            }
            layout =
                    partition.isPresent() || offset.isPresent() || timestamp.isPresent()
                            ? withTopicKeyValueHeaders(
                                    IcebergLayout.of(
                                            partition.orElse(preset.partitionColumn()),
                                            offset.orElse(preset.offsetColumn()),
                                            timestamp.orElse(preset.timestampColumn())),
                                    preset)
                            : preset;
        }
        Optional<String> topic =
                options.getOptional(KafkaBackfillConnectorOptions.ICEBERG_TOPIC_COLUMN);
        Optional<String> key =
                options.getOptional(KafkaBackfillConnectorOptions.ICEBERG_KEY_COLUMN);
        Optional<String> value =
                options.getOptional(KafkaBackfillConnectorOptions.ICEBERG_VALUE_COLUMN);
        Optional<String> headers =
                options.getOptional(KafkaBackfillConnectorOptions.ICEBERG_HEADERS_COLUMN);
        if (topic.isPresent()) {
            layout = layout.withTopicColumn(topic.get());
        }
        if (key.isPresent()) {
            layout = layout.withKeyColumn(key.get());
        }
        if (value.isPresent()) {
            layout = layout.withValueColumn(value.get());
        }
        if (headers.isPresent()) {
            layout = layout.withHeadersColumn(headers.get());
        }
        return layout;
    }

    private static IcebergLayout withTopicKeyValueHeaders(
            IcebergLayout layout, IcebergLayout from) {
        IcebergLayout result = layout;
        if (from.topicColumn().isPresent()) {
            result = result.withTopicColumn(from.topicColumn().get());
        }
        if (from.keyColumn().isPresent()) {
            result = result.withKeyColumn(from.keyColumn().get());
        }
        if (from.valueColumn().isPresent()) {
            result = result.withValueColumn(from.valueColumn().get());
        }
        if (from.headersColumn().isPresent()) {
            result = result.withHeadersColumn(from.headersColumn().get());
        }
        return result;
    }

    /** The metadata columns a row of this table has. */
    @Override
    public List<ReadableMetadata> metadata() {
        if (values == IcebergValues.COLUMNS) {
            return COLUMNS_METADATA;
        }
        // the rebuilt record has the layout's headers, if it keeps them
        return Stream.of(ReadableMetadata.values())
                .filter(m -> m != ReadableMetadata.HEADERS || layout.headersColumn().isPresent())
                .toList();
    }

    /**
     * The source: history from the table, then the topic. Rows through the live topic's
     * deserializer ({@link IcebergValues#FORMAT}) or column by column ({@link
     * IcebergColumnsMapper}): each physical column the query reads, by name, converted to its type
     * ({@link IcebergColumnValue}) and put in its place in the produced row.
     */
    @Override
    public BackfillSource<RowData> build(Scan scan) {
        KafkaBackfillSourceBuilder<RowData> live = scan.live();
        Long chunkSize = scan.readOptions().backfillChunkSize();
        IcebergBackfillSourceBuilder<RowData> builder =
                IcebergBackfill.<RowData>sourceBuilder()
                        .setCatalog(catalogName, catalogProperties)
                        .setTable(table)
                        .setLayout(layout)
                        .setOrdered(ordered)
                        .setLive(live);
        if (chunkSize != null) {
            builder.setBackfillChunkSize(chunkSize);
        }
        if (snapshotTag != null) {
            builder.setSnapshotTag(snapshotTag.name(), snapshotTag.maxAge());
        }
        if (values == IcebergValues.COLUMNS) {
            List<String> names = DataType.getFieldNames(scan.physicalType());
            List<DataType> fieldTypes = DataType.getFieldDataTypes(scan.physicalType());
            int[] outputOf = scan.outputOf();
            int[] read =
                    IntStream.range(0, outputOf.length).filter(i -> outputOf[i] >= 0).toArray();
            String[] columns = IntStream.of(read).mapToObj(names::get).toArray(String[]::new);
            LogicalType[] types =
                    IntStream.of(read)
                            .mapToObj(i -> fieldTypes.get(i).getLogicalType())
                            .toArray(LogicalType[]::new);
            int[] targets = IntStream.of(read).map(i -> outputOf[i]).toArray();
            IcebergColumnValue[] converters = new IcebergColumnValue[types.length];
            boolean[] notNull = new boolean[types.length];
            for (int i = 0; i < types.length; i++) {
                converters[i] = IcebergColumnValue.of(types[i]);
                notNull[i] = !types[i].isNullable();
            }
            List<String> topics = live.topics();
            builder.setRecordMapper(
                    new IcebergColumnsMapper(
                            columns,
                            converters,
                            notNull,
                            targets,
                            scan.physicalArity(),
                            scan.metadata().toArray(new ReadableMetadata[0]),
                            layout,
                            topics.size() == 1 ? topics.get(0) : null));
        }
        return builder.build();
    }
}
