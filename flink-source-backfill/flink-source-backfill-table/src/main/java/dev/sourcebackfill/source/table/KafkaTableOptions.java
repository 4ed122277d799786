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
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.flink.streaming.connectors.kafka.table.KafkaConnectorOptions;
import org.apache.flink.streaming.connectors.kafka.table.KafkaConnectorOptions.ScanBoundedMode;
import org.apache.flink.streaming.connectors.kafka.table.KafkaConnectorOptions.ScanStartupMode;
import org.apache.flink.streaming.connectors.kafka.table.KafkaConnectorOptions.ValueFieldsStrategy;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.utils.LogicalTypeChecks;

import org.apache.kafka.clients.consumer.OffsetResetStrategy;
import org.apache.kafka.common.TopicPartition;

import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.stream.IntStream;

/**
 * Reads the options the {@code kafka-backfill} connector shares with Flink's Kafka SQL connector,
 * with that connector's meanings and checks; every problem is a {@link ValidationException} naming
 * the option.
 */
@Internal
final class KafkaTableOptions {

    static final String PROPERTIES_PREFIX = "properties.";

    /** Kafka's offset-reset setting, which chooses the fallback of {@code group-offsets}. */
    static final String AUTO_OFFSET_RESET = "auto.offset.reset";

    private KafkaTableOptions() {}

    /** Exactly one of {@code topic} and {@code topic-pattern}. */
    static void validateTopic(ReadableConfig options) {
        Optional<List<String>> topics = options.getOptional(KafkaConnectorOptions.TOPIC);
        Optional<String> pattern = options.getOptional(KafkaConnectorOptions.TOPIC_PATTERN);
        if (topics.isPresent() == pattern.isPresent()) {
            throw new ValidationException(
                    String.format(
                            "Option '%s' or '%s' must be set, and not both.",
                            KafkaConnectorOptions.TOPIC.key(),
                            KafkaConnectorOptions.TOPIC_PATTERN.key()));
        }
    }

    /**
     * {@code group-offsets}, as the start or the bound, needs {@code properties.group.id}; Flink's
     * Kafka connector checks it when the query is planned too.
     */
    static void validateGroupId(ReadableConfig options) {
        if (options.getOptional(KafkaConnectorOptions.PROPS_GROUP_ID).isPresent()) {
            return;
        }
        if (options.get(KafkaConnectorOptions.SCAN_STARTUP_MODE) == ScanStartupMode.GROUP_OFFSETS) {
            throw new ValidationException(
                    String.format(
                            "Option '%s' is required when '%s' is '%s' (the default).",
                            KafkaConnectorOptions.PROPS_GROUP_ID.key(),
                            KafkaConnectorOptions.SCAN_STARTUP_MODE.key(),
                            ScanStartupMode.GROUP_OFFSETS));
        }
        if (options.get(KafkaConnectorOptions.SCAN_BOUNDED_MODE) == ScanBoundedMode.GROUP_OFFSETS) {
            throw new ValidationException(
                    String.format(
                            "Option '%s' is required when '%s' is '%s'.",
                            KafkaConnectorOptions.PROPS_GROUP_ID.key(),
                            KafkaConnectorOptions.SCAN_BOUNDED_MODE.key(),
                            ScanBoundedMode.GROUP_OFFSETS));
        }
    }

    /** The Kafka client properties: every {@code properties.*} option without its prefix. */
    static Properties kafkaProperties(Map<String, String> tableOptions) {
        Properties properties = new Properties();
        tableOptions.forEach(
                (key, value) -> {
                    if (key.startsWith(PROPERTIES_PREFIX)) {
                        properties.setProperty(key.substring(PROPERTIES_PREFIX.length()), value);
                    }
                });
        return properties;
    }

    /** Where partitions start: {@code scan.startup.mode} and its companions. */
    static OffsetsInitializer startingOffsets(ReadableConfig options, Properties properties) {
        ScanStartupMode mode = options.get(KafkaConnectorOptions.SCAN_STARTUP_MODE);
        switch (mode) {
            case EARLIEST_OFFSET:
                return OffsetsInitializer.earliest();
            case LATEST_OFFSET:
                return OffsetsInitializer.latest();
            case GROUP_OFFSETS:
                return OffsetsInitializer.committedOffsets(resetStrategy(properties));
            case TIMESTAMP:
                return OffsetsInitializer.timestamp(
                        required(
                                options,
                                KafkaConnectorOptions.SCAN_STARTUP_TIMESTAMP_MILLIS,
                                mode));
            case SPECIFIC_OFFSETS:
                return OffsetsInitializer.offsets(
                        specificOffsets(
                                options,
                                KafkaConnectorOptions.SCAN_STARTUP_SPECIFIC_OFFSETS,
                                mode));
            default:
                throw new ValidationException("Unknown scan.startup.mode " + mode);
        }
    }

    /** Where partitions stop, if they do: {@code scan.bounded.mode} and its companions. */
    static Optional<OffsetsInitializer> stoppingOffsets(ReadableConfig options) {
        ScanBoundedMode mode = options.get(KafkaConnectorOptions.SCAN_BOUNDED_MODE);
        switch (mode) {
            case UNBOUNDED:
                return Optional.empty();
            case LATEST_OFFSET:
                return Optional.of(OffsetsInitializer.latest());
            case GROUP_OFFSETS:
                return Optional.of(OffsetsInitializer.committedOffsets());
            case TIMESTAMP:
                return Optional.of(
                        OffsetsInitializer.timestamp(
                                required(
                                        options,
                                        KafkaConnectorOptions.SCAN_BOUNDED_TIMESTAMP_MILLIS,
                                        mode)));
            case SPECIFIC_OFFSETS:
                return Optional.of(
                        OffsetsInitializer.offsets(
                                specificOffsets(
                                        options,
                                        KafkaConnectorOptions.SCAN_BOUNDED_SPECIFIC_OFFSETS,
                                        mode)));
            default:
                throw new ValidationException("Unknown scan.bounded.mode " + mode);
        }
    }

    private static <V> V required(ReadableConfig options, ConfigOption<V> option, Object mode) {
        return options.getOptional(option)
                .orElseThrow(
                        () ->
                                new ValidationException(
                                        String.format(
                                                "Option '%s' is required when the mode is '%s'.",
                                                option.key(), mode)));
    }

    /**
     * {@code partition:0,offset:42;partition:1,offset:300} of the single topic in {@code topic}.
     */
    private static Map<TopicPartition, Long> specificOffsets(
            ReadableConfig options, ConfigOption<String> option, Object mode) {
        String value = required(options, option, mode);
        List<String> topics = options.getOptional(KafkaConnectorOptions.TOPIC).orElse(List.of());
        if (topics.size() != 1) {
            throw new ValidationException(
                    String.format(
                            "Option '%s' needs exactly one topic in '%s', was %s.",
                            option.key(), KafkaConnectorOptions.TOPIC.key(), topics));
        }
        // as Flink's Kafka connector reads it: no pair empty, no space around a part
        String[] pairs = value.split(";");
        if (pairs.length == 0) {
            throw invalidOffsets(option, value);
        }
        Map<TopicPartition, Long> offsets = new HashMap<>();
        for (String pair : pairs) {
            String[] parts = pair.split(",");
            if (parts.length != 2
                    || !parts[0].startsWith("partition:")
                    || !parts[1].startsWith("offset:")) {
                throw invalidOffsets(option, value);
            }
            try {
                int partition = Integer.parseInt(parts[0].substring(10));
                long offset = Long.parseLong(parts[1].substring(7));
                offsets.put(new TopicPartition(topics.get(0), partition), offset);
            } catch (NumberFormatException e) {
                throw invalidOffsets(option, value);
            }
        }
        return offsets;
    }

    private static ValidationException invalidOffsets(ConfigOption<String> option, String value) {
        return new ValidationException(
                String.format(
                        "Option '%s' is '%s'; it must look like"
                                + " 'partition:0,offset:42;partition:1,offset:300'.",
                        option.key(), value));
    }

    /** {@code properties.auto.offset.reset} for {@code group-offsets}: none unless given. */
    private static OffsetResetStrategy resetStrategy(Properties properties) {
        String value = properties.getProperty(AUTO_OFFSET_RESET, "none");
        try {
            return OffsetResetStrategy.valueOf(value.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new ValidationException(
                    String.format(
                            "Option '%s%s' is '%s'; it must be earliest, latest or none.",
                            PROPERTIES_PREFIX, AUTO_OFFSET_RESET, value));
        }
    }

    /**
     * Where the key format's fields go in the physical row: {@code key.fields}, in order; empty
     * without a key format.
     */
    static int[] keyProjection(ReadableConfig options, DataType physicalType) {
        Optional<String> keyFormat = options.getOptional(KafkaConnectorOptions.KEY_FORMAT);
        List<String> keyFields = options.get(KafkaConnectorOptions.KEY_FIELDS);
        if (keyFormat.isEmpty()) {
            // as Flink's Kafka connector: key.fields given at all (even empty) needs a key format
            if (options.getOptional(KafkaConnectorOptions.KEY_FIELDS).isPresent()) {
                throw new ValidationException(
                        String.format(
                                "Option '%s' needs a key format in '%s'.",
                                KafkaConnectorOptions.KEY_FIELDS.key(),
                                KafkaConnectorOptions.KEY_FORMAT.key()));
            }
            return new int[0];
        }
        if (keyFields.isEmpty()) {
            throw new ValidationException(
                    String.format(
                            "Option '%s' is set: '%s' must name the key's columns.",
                            KafkaConnectorOptions.KEY_FORMAT.key(),
                            KafkaConnectorOptions.KEY_FIELDS.key()));
        }
        LogicalType row = physicalType.getLogicalType();
        List<String> columns = LogicalTypeChecks.getFieldNames(row);
        String prefix = options.getOptional(KafkaConnectorOptions.KEY_FIELDS_PREFIX).orElse("");
        return keyFields.stream()
                .mapToInt(
                        field -> {
                            int index = columns.indexOf(field);
                            if (index < 0) {
                                throw new ValidationException(
                                        String.format(
                                                "Option '%s' names '%s', which is not a physical column of the table (%s).",
                                                KafkaConnectorOptions.KEY_FIELDS.key(),
                                                field,
                                                columns));
                            }
                            if (!field.startsWith(prefix)) {
                                throw new ValidationException(
                                        String.format(
                                                "Option '%s' names '%s', which does not start with '%s' ('%s').",
                                                KafkaConnectorOptions.KEY_FIELDS.key(),
                                                field,
                                                prefix,
                                                KafkaConnectorOptions.KEY_FIELDS_PREFIX.key()));
                            }
                            return index;
                        })
                .toArray();
    }

    /** Where the value format's fields go: every column, or every one but the key's. */
    static int[] valueProjection(ReadableConfig options, DataType physicalType, int[] keys) {
        int arity = LogicalTypeChecks.getFieldCount(physicalType.getLogicalType());
        ValueFieldsStrategy strategy = options.get(KafkaConnectorOptions.VALUE_FIELDS_INCLUDE);
        if (strategy == ValueFieldsStrategy.ALL) {
            // an empty prefix is no prefix
            if (!options.getOptional(KafkaConnectorOptions.KEY_FIELDS_PREFIX)
                    .orElse("")
                    .isEmpty()) {
                throw new ValidationException(
                        String.format(
                                "Option '%s' needs '%s' = '%s'.",
                                KafkaConnectorOptions.KEY_FIELDS_PREFIX.key(),
                                KafkaConnectorOptions.VALUE_FIELDS_INCLUDE.key(),
                                ValueFieldsStrategy.EXCEPT_KEY));
            }
            return IntStream.range(0, arity).toArray();
        }
        return IntStream.range(0, arity)
                .filter(i -> IntStream.of(keys).noneMatch(k -> k == i))
                .toArray();
    }
}
