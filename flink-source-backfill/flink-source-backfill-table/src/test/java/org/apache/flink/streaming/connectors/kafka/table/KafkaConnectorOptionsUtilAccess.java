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
package org.apache.flink.streaming.connectors.kafka.table;

import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.flink.streaming.connectors.kafka.table.KafkaConnectorOptionsUtil.BoundedOptions;
import org.apache.flink.streaming.connectors.kafka.table.KafkaConnectorOptionsUtil.StartupOptions;
import org.apache.flink.table.types.DataType;

import org.apache.kafka.clients.consumer.OffsetResetStrategy;

import java.util.Locale;
import java.util.Optional;
import java.util.Properties;

/**
 * Test access to Flink's package-private {@link KafkaConnectorOptionsUtil}: what Flink's Kafka SQL
 * connector reads from the same options as the {@code kafka-backfill} connector (used by {@code
 * KafkaTableOptionsParityTest}). Startup and bounded modes become initializers as Flink's Kafka
 * table source turns them into its {@code KafkaSource}'s starting and stopping offsets.
 */
public final class KafkaConnectorOptionsUtilAccess {

    private KafkaConnectorOptionsUtilAccess() {}

    public static void validateTopic(ReadableConfig options) {
        KafkaConnectorOptionsUtil.validateTopic(options);
    }

    /** The source options checked, then the starting offsets. */
    public static OffsetsInitializer startingOffsets(
            ReadableConfig options, Properties properties) {
        KafkaConnectorOptionsUtil.validateTableSourceOptions(options);
        StartupOptions startup = KafkaConnectorOptionsUtil.getStartupOptions(options);
        switch (startup.startupMode) {
            case EARLIEST:
                return OffsetsInitializer.earliest();
            case LATEST:
                return OffsetsInitializer.latest();
            case GROUP_OFFSETS:
                // Flink's table source: properties.auto.offset.reset, none unless given
                return OffsetsInitializer.committedOffsets(
                        OffsetResetStrategy.valueOf(
                                properties
                                        .getProperty("auto.offset.reset", "none")
                                        .toUpperCase(Locale.ROOT)));
            case SPECIFIC_OFFSETS:
                return OffsetsInitializer.offsets(
                        SpecificOffsetKeys.asKafka(startup.specificOffsets));
            case TIMESTAMP:
                return OffsetsInitializer.timestamp(startup.startupTimestampMillis);
            default:
                throw new IllegalStateException("Startup mode " + startup.startupMode);
        }
    }

    /** The source options checked, then the stopping offsets; none if unbounded. */
    public static Optional<OffsetsInitializer> stoppingOffsets(ReadableConfig options) {
        KafkaConnectorOptionsUtil.validateTableSourceOptions(options);
        BoundedOptions bounded = KafkaConnectorOptionsUtil.getBoundedOptions(options);
        switch (bounded.boundedMode) {
            case UNBOUNDED:
                return Optional.empty();
            case LATEST:
                return Optional.of(OffsetsInitializer.latest());
            case GROUP_OFFSETS:
                return Optional.of(OffsetsInitializer.committedOffsets());
            case SPECIFIC_OFFSETS:
                return Optional.of(
                        OffsetsInitializer.offsets(
                                SpecificOffsetKeys.asKafka(bounded.specificOffsets)));
            case TIMESTAMP:
                return Optional.of(OffsetsInitializer.timestamp(bounded.boundedTimestampMillis));
            default:
                throw new IllegalStateException("Bounded mode " + bounded.boundedMode);
        }
    }

    public static int[] keyProjection(ReadableConfig options, DataType physicalType) {
        return KafkaConnectorOptionsUtil.createKeyFormatProjection(options, physicalType);
    }

    public static int[] valueProjection(ReadableConfig options, DataType physicalType) {
        return KafkaConnectorOptionsUtil.createValueFormatProjection(options, physicalType);
    }
}
