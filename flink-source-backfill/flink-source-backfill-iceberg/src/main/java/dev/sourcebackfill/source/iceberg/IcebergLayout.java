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

import org.apache.flink.annotation.PublicEvolving;

import javax.annotation.Nullable;

import java.io.Serializable;
import java.util.Objects;
import java.util.Optional;

/**
 * Which columns of an Iceberg table written from a Kafka topic hold each row's Kafka partition,
 * offset and timestamp (and, where the writer keeps them, its topic, key, value bytes and headers).
 * Columns are named by their path, a nested field as {@code struct.field}.
 *
 * <p>Presets for the layouts of the writers that put a topic into a table:
 *
 * <ul>
 *   <li>{@link #redpanda()}: Redpanda Iceberg Topics, a struct {@code redpanda} with {@code
 *       partition}, {@code offset}, {@code timestamp}, {@code key} and {@code headers}; the record
 *       value in the binary column {@code value} (key-value mode).
 *   <li>{@link #kafkaConnect()}: the Apache Iceberg Kafka Connect sink with its {@code
 *       KafkaMetadataTransform}: {@code _kafka_metadata_topic}, {@code _kafka_metadata_partition},
 *       {@code _kafka_metadata_offset}, {@code _kafka_metadata_timestamp}; {@link
 *       #kafkaConnectNested()} for the transform's {@code nested=true} (a struct {@code
 *       _kafka_metadata}).
 *   <li>{@link #autoMq()}: AutoMQ Table Topic (append mode), a struct {@code _kafka_metadata} with
 *       {@code partition}, {@code offset}, {@code timestamp}; {@code _kafka_key}, {@code
 *       _kafka_header}.
 *   <li>{@link #aiven()}: Aiven's Iceberg topics, a struct {@code kafka} with {@code partition},
 *       {@code offset}, {@code timestamp}, {@code key_raw}, {@code value_raw}.
 * </ul>
 *
 * <p>Any other layout: {@link #of(String, String, String)} and the {@code with...} methods.
 */
@PublicEvolving
public final class IcebergLayout implements Serializable {

    private static final long serialVersionUID = 1L;

    private final String name;
    private final String partitionColumn;
    private final String offsetColumn;
    private final String timestampColumn;
    @Nullable private final String topicColumn;
    @Nullable private final String keyColumn;
    @Nullable private final String valueColumn;
    @Nullable private final String headersColumn;

    private IcebergLayout(
            String name,
            String partitionColumn,
            String offsetColumn,
            String timestampColumn,
            @Nullable String topicColumn,
            @Nullable String keyColumn,
            @Nullable String valueColumn,
            @Nullable String headersColumn) {
        this.name = name;
        this.partitionColumn = Objects.requireNonNull(partitionColumn, "partition column");
        this.offsetColumn = Objects.requireNonNull(offsetColumn, "offset column");
        this.timestampColumn = Objects.requireNonNull(timestampColumn, "timestamp column");
        this.topicColumn = topicColumn;
        this.keyColumn = keyColumn;
        this.valueColumn = valueColumn;
        this.headersColumn = headersColumn;
    }

    /** Redpanda Iceberg Topics (key-value mode). */
    public static IcebergLayout redpanda() {
        return new IcebergLayout(
                "redpanda",
                "redpanda.partition",
                "redpanda.offset",
                "redpanda.timestamp",
                null,
                "redpanda.key",
                "value",
                "redpanda.headers");
    }

    /** The Apache Iceberg Kafka Connect sink with {@code KafkaMetadataTransform} (flat columns). */
    public static IcebergLayout kafkaConnect() {
        return new IcebergLayout(
                "kafka-connect",
                "_kafka_metadata_partition",
                "_kafka_metadata_offset",
                "_kafka_metadata_timestamp",
                "_kafka_metadata_topic",
                null,
                null,
                null);
    }

    /** The Kafka Connect sink's {@code KafkaMetadataTransform} with {@code nested=true}. */
    public static IcebergLayout kafkaConnectNested() {
        return new IcebergLayout(
                "kafka-connect-nested",
                "_kafka_metadata.partition",
                "_kafka_metadata.offset",
                "_kafka_metadata.timestamp",
                "_kafka_metadata.topic",
                null,
                null,
                null);
    }

    /** AutoMQ Table Topic in append mode (upsert mode keeps no history). */
    public static IcebergLayout autoMq() {
        return new IcebergLayout(
                "automq",
                "_kafka_metadata.partition",
                "_kafka_metadata.offset",
                "_kafka_metadata.timestamp",
                null,
                "_kafka_key",
                null,
                "_kafka_header");
    }

    /** Aiven's Iceberg topics. */
    public static IcebergLayout aiven() {
        return new IcebergLayout(
                "aiven",
                "kafka.partition",
                "kafka.offset",
                "kafka.timestamp",
                null,
                "kafka.key_raw",
                "kafka.value_raw",
                null);
    }

    /** A layout of its own: the columns of each row's Kafka partition, offset and timestamp. */
    public static IcebergLayout of(
            String partitionColumn, String offsetColumn, String timestampColumn) {
        return new IcebergLayout(
                "custom", partitionColumn, offsetColumn, timestampColumn, null, null, null, null);
    }

    /** The column of each row's Kafka topic: rows of other topics than the source's are skipped. */
    public IcebergLayout withTopicColumn(String column) {
        return new IcebergLayout(
                name,
                partitionColumn,
                offsetColumn,
                timestampColumn,
                column,
                keyColumn,
                valueColumn,
                headersColumn);
    }

    /** The binary column of each record's key. */
    public IcebergLayout withKeyColumn(String column) {
        return new IcebergLayout(
                name,
                partitionColumn,
                offsetColumn,
                timestampColumn,
                topicColumn,
                column,
                valueColumn,
                headersColumn);
    }

    /** The binary column of each record's value as the topic had it. */
    public IcebergLayout withValueColumn(String column) {
        return new IcebergLayout(
                name,
                partitionColumn,
                offsetColumn,
                timestampColumn,
                topicColumn,
                keyColumn,
                column,
                headersColumn);
    }

    /** The column of each record's headers: a list of structs of {@code key} and {@code value}. */
    public IcebergLayout withHeadersColumn(String column) {
        return new IcebergLayout(
                name,
                partitionColumn,
                offsetColumn,
                timestampColumn,
                topicColumn,
                keyColumn,
                valueColumn,
                column);
    }

    public String partitionColumn() {
        return partitionColumn;
    }

    public String offsetColumn() {
        return offsetColumn;
    }

    public String timestampColumn() {
        return timestampColumn;
    }

    public Optional<String> topicColumn() {
        return Optional.ofNullable(topicColumn);
    }

    public Optional<String> keyColumn() {
        return Optional.ofNullable(keyColumn);
    }

    public Optional<String> valueColumn() {
        return Optional.ofNullable(valueColumn);
    }

    public Optional<String> headersColumn() {
        return Optional.ofNullable(headersColumn);
    }

    @Override
    public String toString() {
        return name
                + " layout (partition "
                + partitionColumn
                + ", offset "
                + offsetColumn
                + ", timestamp "
                + timestampColumn
                + (topicColumn != null ? ", topic " + topicColumn : "")
                + (valueColumn != null ? ", value " + valueColumn : "")
                + ')';
    }
}
