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
import dev.sourcebackfill.source.OffsetGapPolicy;
import dev.sourcebackfill.source.RecordOrigin;
import dev.sourcebackfill.source.kafka.KafkaBackfill;
import dev.sourcebackfill.source.kafka.KafkaBackfillSourceBuilder;

import org.apache.flink.annotation.Internal;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.connector.kafka.source.KafkaSourceOptions;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.flink.connector.kafka.source.reader.deserializer.KafkaRecordDeserializationSchema;
import org.apache.flink.streaming.connectors.kafka.table.KafkaConnectorOptions;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.factories.FactoryUtil;

import javax.annotation.Nullable;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.regex.Pattern;

/**
 * What a {@code kafka-backfill} table reads and how, resolved from its options once, when the table
 * is planned: the Kafka builder is made from it when the job is built.
 */
@Internal
record KafkaReadOptions(
        @Nullable List<String> topics,
        @Nullable Pattern topicPattern,
        Properties properties,
        OffsetsInitializer startingOffsets,
        Optional<OffsetsInitializer> stoppingOffsets,
        Duration partitionDiscoveryInterval,
        boolean commitOffsetsOnCheckpoint,
        OffsetGapPolicy gapPolicy,
        Duration pollTimeout,
        @Nullable Double backfillRecordsPerSecond,
        @Nullable Long backfillChunkSize,
        @Nullable String backfillControlFile,
        Duration backfillControlInterval,
        @Nullable Integer parallelism) {

    private static final String BOOTSTRAP_SERVERS = "bootstrap.servers";

    /**
     * Resolves the options: the Kafka properties lose the settings the connector itself stands for
     * ({@code auto.offset.reset}, {@code commit.offsets.on.checkpoint}, as Flink's Kafka connector
     * reads them).
     */
    static KafkaReadOptions of(ReadableConfig options, Properties tableProperties) {
        Properties properties = new Properties();
        properties.putAll(tableProperties);
        OffsetsInitializer starting = KafkaTableOptions.startingOffsets(options, properties);
        properties.remove(KafkaTableOptions.AUTO_OFFSET_RESET);
        // Flink's Kafka source option: whether a source with a group commits its offsets
        String commit =
                (String) properties.remove(KafkaSourceOptions.COMMIT_OFFSETS_ON_CHECKPOINT.key());
        if (commit != null
                && !commit.equalsIgnoreCase("true")
                && !commit.equalsIgnoreCase("false")) {
            throw new ValidationException(
                    String.format(
                            "Option '%s%s' is '%s'; it must be true or false.",
                            KafkaTableOptions.PROPERTIES_PREFIX,
                            KafkaSourceOptions.COMMIT_OFFSETS_ON_CHECKPOINT.key(),
                            commit));
        }
        Double backfillRate =
                options.getOptional(KafkaBackfillConnectorOptions.BACKFILL_RECORDS_PER_SECOND)
                        .orElse(null);
        if (backfillRate != null && !(backfillRate > 0 && !backfillRate.isInfinite())) {
            throw new ValidationException(
                    String.format(
                            "Option '%s' is %s; it must be a positive, finite number of records"
                                    + " per second.",
                            KafkaBackfillConnectorOptions.BACKFILL_RECORDS_PER_SECOND.key(),
                            backfillRate));
        }
        Long chunkSize =
                options.getOptional(KafkaBackfillConnectorOptions.BACKFILL_CHUNK_SIZE).orElse(null);
        if (chunkSize != null && chunkSize <= 0) {
            throw new ValidationException(
                    String.format(
                            "Option '%s' is %d; it must be a positive number of records.",
                            KafkaBackfillConnectorOptions.BACKFILL_CHUNK_SIZE.key(), chunkSize));
        }
        String controlFile =
                options.getOptional(KafkaBackfillConnectorOptions.BACKFILL_CONTROL_FILE)
                        .orElse(null);
        if (controlFile != null && controlFile.isBlank()) {
            throw new ValidationException(
                    String.format(
                            "Option '%s' is empty; it must be the path of the control file.",
                            KafkaBackfillConnectorOptions.BACKFILL_CONTROL_FILE.key()));
        }
        Duration controlInterval =
                options.get(KafkaBackfillConnectorOptions.BACKFILL_CONTROL_INTERVAL);
        if (controlInterval.toMillis() < 1) {
            throw new ValidationException(
                    String.format(
                            "Option '%s' is %s; it must be at least 1 ms.",
                            KafkaBackfillConnectorOptions.BACKFILL_CONTROL_INTERVAL.key(),
                            controlInterval));
        }
        boolean hasGroup = options.getOptional(KafkaConnectorOptions.PROPS_GROUP_ID).isPresent();
        return new KafkaReadOptions(
                options.getOptional(KafkaConnectorOptions.TOPIC).orElse(null),
                options.getOptional(KafkaConnectorOptions.TOPIC_PATTERN)
                        .map(Pattern::compile)
                        .orElse(null),
                properties,
                starting,
                KafkaTableOptions.stoppingOffsets(options),
                options.get(KafkaConnectorOptions.SCAN_TOPIC_PARTITION_DISCOVERY),
                // as Flink's Kafka source: a consumer group commits unless told not to
                hasGroup
                        && (commit == null
                                ? KafkaSourceOptions.COMMIT_OFFSETS_ON_CHECKPOINT.defaultValue()
                                : Boolean.parseBoolean(commit)),
                options.get(KafkaBackfillConnectorOptions.OFFSET_GAP_POLICY),
                options.get(KafkaBackfillConnectorOptions.POLL_TIMEOUT),
                backfillRate,
                chunkSize,
                controlFile,
                controlInterval,
                options.getOptional(FactoryUtil.SOURCE_PARALLELISM).orElse(null));
    }

    boolean bounded() {
        return stoppingOffsets.isPresent();
    }

    /**
     * The source, reading records through {@code deserializer}, marking them with {@code origin}.
     */
    BackfillSource<RowData> build(
            KafkaRecordDeserializationSchema<RowData> deserializer,
            RecordOrigin.Marker<RowData> origin) {
        return kafkaBuilder(deserializer, origin).build();
    }

    /** The Kafka builder of {@link #build}, for another backfill in front of the topic. */
    KafkaBackfillSourceBuilder<RowData> kafkaBuilder(
            KafkaRecordDeserializationSchema<RowData> deserializer,
            RecordOrigin.Marker<RowData> origin) {
        KafkaBackfillSourceBuilder<RowData> builder =
                KafkaBackfill.<RowData>sourceBuilder()
                        .setRecordOriginMarker(origin)
                        .setBootstrapServers(properties.getProperty(BOOTSTRAP_SERVERS))
                        .setProperties(properties)
                        .setDeserializer(deserializer)
                        .setStartingOffsets(startingOffsets)
                        .setCommitOffsetsOnCheckpoint(commitOffsetsOnCheckpoint)
                        .setOffsetGapPolicy(gapPolicy)
                        .setPollTimeout(pollTimeout);
        if (backfillRecordsPerSecond != null) {
            builder.setBackfillRecordsPerSecond(backfillRecordsPerSecond);
        }
        if (backfillChunkSize != null) {
            builder.setBackfillChunkSize(backfillChunkSize);
        }
        if (backfillControlFile != null) {
            builder.setBackfillControlFile(backfillControlFile)
                    .setBackfillControlInterval(backfillControlInterval);
        }
        if (topics != null) {
            builder.setTopics(topics);
        } else {
            builder.setTopicPattern(topicPattern);
        }
        if (stoppingOffsets.isPresent()) {
            builder.setBounded(stoppingOffsets.get());
        } else {
            builder.setPartitionDiscoveryInterval(partitionDiscoveryInterval);
        }
        return builder;
    }
}
