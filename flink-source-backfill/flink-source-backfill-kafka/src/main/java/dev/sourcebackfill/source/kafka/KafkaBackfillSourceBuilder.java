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
package dev.sourcebackfill.source.kafka;

import dev.sourcebackfill.source.BackfillListener;
import dev.sourcebackfill.source.BackfillSource;
import dev.sourcebackfill.source.BackfillSourceBuilder;

import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.flink.connector.kafka.source.reader.deserializer.KafkaRecordDeserializationSchema;

import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.common.IsolationLevel;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Properties;
import java.util.regex.Pattern;

/**
 * Builds a {@link BackfillSource} over Kafka, in the style of {@code KafkaSource.builder()}. Every
 * option is checked in {@link #build()}; an error names the option.
 *
 * <pre>{@code
 * BackfillSource<String> source = KafkaBackfill.<String>sourceBuilder()
 *         .setBootstrapServers("broker:9092")
 *         .setTopics("orders")
 *         .setValueOnlyDeserializer(new SimpleStringSchema())
 *         .setStartingOffsets(OffsetsInitializer.earliest())
 *         .build();
 * }</pre>
 */
@PublicEvolving
public final class KafkaBackfillSourceBuilder<T> {

    private String bootstrapServers;
    private List<String> topics;
    private Pattern topicPattern;
    private KafkaRecordDeserializationSchema<T> deserializer;
    private final Properties properties = new Properties();
    private String clientIdPrefix = "backfill-source";
    private String groupId;
    private OffsetsInitializer startingOffsets = OffsetsInitializer.earliest();
    private OffsetsInitializer stoppingOffsets;
    private boolean commitOffsetsOnCheckpoint;
    private Duration partitionDiscoveryInterval = Duration.ofSeconds(30);
    private Duration pollTimeout;
    private BackfillListener listener;

    KafkaBackfillSourceBuilder() {}

    public KafkaBackfillSourceBuilder<T> setBootstrapServers(String bootstrapServers) {
        this.bootstrapServers = bootstrapServers;
        return this;
    }

    /** Reads these topics; each must exist when the job starts. */
    public KafkaBackfillSourceBuilder<T> setTopics(String... topics) {
        return setTopics(Arrays.asList(topics));
    }

    public KafkaBackfillSourceBuilder<T> setTopics(List<String> topics) {
        this.topics = topics == null ? null : List.copyOf(topics);
        return this;
    }

    /** Reads every topic whose whole name matches; topics created later are found by discovery. */
    public KafkaBackfillSourceBuilder<T> setTopicPattern(Pattern topicPattern) {
        this.topicPattern = topicPattern;
        return this;
    }

    /**
     * A deserializer that sees the whole record (key, value, headers, timestamp, partition,
     * offset).
     */
    public KafkaBackfillSourceBuilder<T> setDeserializer(
            KafkaRecordDeserializationSchema<T> deserializer) {
        this.deserializer = deserializer;
        return this;
    }

    public KafkaBackfillSourceBuilder<T> setValueOnlyDeserializer(
            DeserializationSchema<T> deserializer) {
        this.deserializer = KafkaRecordDeserializationSchema.valueOnly(deserializer);
        return this;
    }

    /**
     * Passed to both consumers and the admin clients: security (SASL, TLS), timeouts, isolation
     * level.
     */
    public KafkaBackfillSourceBuilder<T> setProperty(String key, String value) {
        properties.setProperty(key, value);
        return this;
    }

    public KafkaBackfillSourceBuilder<T> setProperties(Properties properties) {
        this.properties.putAll(properties);
        return this;
    }

    public KafkaBackfillSourceBuilder<T> setClientIdPrefix(String clientIdPrefix) {
        this.clientIdPrefix = clientIdPrefix;
        return this;
    }

    /** The consumer group offsets are committed to, and committed starting offsets read from. */
    public KafkaBackfillSourceBuilder<T> setGroupId(String groupId) {
        this.groupId = groupId;
        return this;
    }

    /** Where each partition's backfill starts; earliest by default. */
    public KafkaBackfillSourceBuilder<T> setStartingOffsets(OffsetsInitializer startingOffsets) {
        this.startingOffsets = startingOffsets;
        return this;
    }

    /**
     * Makes the source bounded: each partition ends at these offsets ({@code latest()}: the end
     * offsets when the job started). No partitions are discovered later, as with Flink's bounded
     * {@code KafkaSource}: the partition discovery interval is ignored, and a job restored from a
     * checkpoint or savepoint reads the partitions and stopping offsets of its first start.
     */
    public KafkaBackfillSourceBuilder<T> setBounded(OffsetsInitializer stoppingOffsets) {
        this.stoppingOffsets = stoppingOffsets;
        return this;
    }

    public KafkaBackfillSourceBuilder<T> setUnbounded() {
        this.stoppingOffsets = null;
        return this;
    }

    /**
     * Commits each completed checkpoint's offsets to the group (needs a group id); off by default.
     */
    public KafkaBackfillSourceBuilder<T> setCommitOffsetsOnCheckpoint(boolean commit) {
        this.commitOffsetsOnCheckpoint = commit;
        return this;
    }

    public KafkaBackfillSourceBuilder<T> setPartitionDiscoveryInterval(Duration interval) {
        this.partitionDiscoveryInterval = interval;
        return this;
    }

    /** How long a consumer poll waits when nothing is available (see BackfillSourceBuilder). */
    public KafkaBackfillSourceBuilder<T> setPollTimeout(Duration pollTimeout) {
        this.pollTimeout = pollTimeout;
        return this;
    }

    public KafkaBackfillSourceBuilder<T> setListener(BackfillListener listener) {
        this.listener = listener;
        return this;
    }

    public BackfillSource<T> build() {
        if (bootstrapServers == null || bootstrapServers.isBlank()) {
            throw new IllegalArgumentException("bootstrap servers: not set (setBootstrapServers)");
        }
        if ((topics == null) == (topicPattern == null)) {
            throw new IllegalArgumentException(
                    "topics: set either a topic list (setTopics) or a topic pattern (setTopicPattern), not "
                            + (topics == null ? "neither" : "both"));
        }
        if (topics != null
                && (topics.isEmpty() || topics.stream().anyMatch(t -> t == null || t.isBlank()))) {
            throw new IllegalArgumentException(
                    "topics: the list is empty or has an empty name: " + topics);
        }
        Objects.requireNonNull(
                deserializer,
                "deserializer: not set (setDeserializer or setValueOnlyDeserializer)");
        Objects.requireNonNull(startingOffsets, "starting offsets");
        if (clientIdPrefix == null || clientIdPrefix.isBlank()) {
            throw new IllegalArgumentException("client id prefix: must not be empty");
        }
        if (commitOffsetsOnCheckpoint && (groupId == null || groupId.isBlank())) {
            throw new IllegalArgumentException(
                    "commit offsets on checkpoint: needs a consumer group id (setGroupId)");
        }
        if (groupId == null && properties.getProperty(ConsumerConfig.GROUP_ID_CONFIG) != null) {
            groupId = properties.getProperty(ConsumerConfig.GROUP_ID_CONFIG);
        }
        String autoCommit = properties.getProperty(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG);
        if (autoCommit != null && Boolean.parseBoolean(autoCommit)) {
            throw new IllegalArgumentException(
                    "enable.auto.commit=true: the source commits only completed checkpoints; use setCommitOffsetsOnCheckpoint(true)");
        }
        if (properties.getProperty(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG) != null) {
            throw new IllegalArgumentException(
                    "auto.offset.reset: not supported; the source never jumps over missing offsets (set starting offsets with setStartingOffsets)");
        }
        String isolation = properties.getProperty(ConsumerConfig.ISOLATION_LEVEL_CONFIG);
        if (isolation != null) {
            try {
                IsolationLevel.valueOf(isolation.toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(
                        "isolation.level: '"
                                + isolation
                                + "' is neither read_committed nor read_uncommitted");
            }
        }
        Properties all = new Properties();
        all.putAll(properties);
        all.setProperty(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        KafkaTopicSelection selection =
                topics != null
                        ? KafkaTopicSelection.topics(topics)
                        : KafkaTopicSelection.pattern(topicPattern);
        KafkaBackfillLog<T> log =
                new KafkaBackfillLog<>(
                        new KafkaClientProperties(all, clientIdPrefix),
                        selection,
                        deserializer,
                        startingOffsets,
                        stoppingOffsets,
                        groupId,
                        commitOffsetsOnCheckpoint);
        // a bounded source discovers partitions once, at its first start: no periodic discovery
        BackfillSourceBuilder<T> builder =
                BackfillSource.<T>builder()
                        .setLog(log)
                        .setSplitDiscoveryInterval(
                                stoppingOffsets != null
                                        ? Duration.ZERO
                                        : partitionDiscoveryInterval);
        if (stoppingOffsets != null) {
            builder.setBounded();
        } else {
            builder.setUnbounded();
        }
        if (pollTimeout != null) {
            builder.setPollTimeout(pollTimeout);
        }
        if (listener != null) {
            builder.setListener(listener);
        }
        return builder.build();
    }
}
