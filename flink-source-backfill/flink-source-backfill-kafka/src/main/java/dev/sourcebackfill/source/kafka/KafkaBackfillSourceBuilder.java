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

import dev.sourcebackfill.source.BackfillSource;
import dev.sourcebackfill.source.BackfillSourceBuilderBase;
import dev.sourcebackfill.source.spi.BackfillLog;

import org.apache.flink.annotation.Internal;
import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.flink.connector.kafka.source.enumerator.subscriber.KafkaSubscriber;
import org.apache.flink.connector.kafka.source.reader.deserializer.KafkaRecordDeserializationSchema;

import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.common.IsolationLevel;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;
import java.util.function.Function;
import java.util.regex.Pattern;

import static org.apache.flink.util.Preconditions.checkArgument;

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
public final class KafkaBackfillSourceBuilder<T>
        extends BackfillSourceBuilderBase<T, KafkaBackfillSourceBuilder<T>> {

    private String bootstrapServers;
    private List<String> topics;
    private Pattern topicPattern;
    private KafkaRecordDeserializationSchema<T> deserializer;

    /**
     * Whether the deserializer reads the records' values only ({@link #setValueOnlyDeserializer}).
     */
    private boolean valueOnly;

    private final Properties properties = new Properties();
    private String clientIdPrefix = "backfill-source";
    private String groupId;
    private OffsetsInitializer startingOffsets = OffsetsInitializer.earliest();
    private OffsetsInitializer stoppingOffsets;
    private boolean commitOffsetsOnCheckpoint;
    private Duration partitionDiscoveryInterval = DEFAULT_DISCOVERY_INTERVAL;

    KafkaBackfillSourceBuilder() {}

    @Override
    protected KafkaBackfillSourceBuilder<T> self() {
        return this;
    }

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
        this.valueOnly = false;
        return this;
    }

    public KafkaBackfillSourceBuilder<T> setValueOnlyDeserializer(
            DeserializationSchema<T> deserializer) {
        this.deserializer = KafkaRecordDeserializationSchema.valueOnly(deserializer);
        this.valueOnly = true;
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

    /**
     * The topics set with {@link #setTopics}; empty if the source subscribes to a pattern, or no
     * topic is set yet. For adapters that read the topics' history elsewhere.
     */
    @Internal
    public List<String> topics() {
        return topics == null ? List.of() : List.copyOf(topics);
    }

    /** Checks every option, naming the first that is wrong, then builds the source. */
    public BackfillSource<T> build() {
        return build(kafka -> kafka);
    }

    /**
     * Builds the source over the Kafka log as {@code history} changes it: a history source puts its
     * own backfill in front of the topics ({@link HistoryBeforeKafkaSourceBuilder}) and keeps these
     * partitions as the live reader. Checks every option first.
     */
    BackfillSource<T> build(Function<KafkaBackfillLog<T>, BackfillLog<T>> history) {
        sanityCheck();
        String effectiveGroupId =
                groupId != null ? groupId : properties.getProperty(ConsumerConfig.GROUP_ID_CONFIG);
        Properties all = new Properties();
        all.putAll(properties);
        all.setProperty(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        // Flink's Kafka source's subscribers: a topic list (each must exist) or a pattern
        KafkaSubscriber subscriber =
                topics != null
                        ? KafkaSubscriber.getTopicListSubscriber(topics)
                        : KafkaSubscriber.getTopicPatternSubscriber(topicPattern);
        KafkaBackfillLog<T> log =
                new KafkaBackfillLog<>(
                        new KafkaClientProperties(all, clientIdPrefix),
                        subscriber,
                        topics != null ? topics.toString() : "matching " + topicPattern.pattern(),
                        deserializer,
                        valueOnly,
                        startingOffsets,
                        stoppingOffsets,
                        effectiveGroupId,
                        commitOffsetsOnCheckpoint,
                        gapPolicy());
        boolean bounded = stoppingOffsets != null;
        // a bounded source discovers partitions once, at its first start
        return buildSource(
                history.apply(log),
                bounded ? Boundedness.BOUNDED : Boundedness.CONTINUOUS_UNBOUNDED,
                bounded ? Duration.ZERO : partitionDiscoveryInterval);
    }

    private void sanityCheck() {
        checkOption(
                bootstrapServers != null && !bootstrapServers.isBlank(),
                "bootstrap servers",
                "setBootstrapServers",
                "is not set");
        checkOption(
                (topics == null) != (topicPattern == null),
                "topics",
                "setTopics or setTopicPattern",
                "must be a topic list or a topic pattern, not "
                        + (topics == null ? "neither" : "both"));
        checkOption(
                topics == null
                        || (!topics.isEmpty()
                                && topics.stream().noneMatch(t -> t == null || t.isBlank())),
                "topics",
                "setTopics",
                "is empty or has an empty name: " + topics);
        checkOption(
                deserializer != null,
                "deserializer",
                "setDeserializer or setValueOnlyDeserializer",
                "is not set");
        checkOption(
                startingOffsets != null, "starting offsets", "setStartingOffsets", "is not set");
        checkOption(
                clientIdPrefix != null && !clientIdPrefix.isBlank(),
                "client id prefix",
                "setClientIdPrefix",
                "must not be empty");
        String effectiveGroupId =
                groupId != null ? groupId : properties.getProperty(ConsumerConfig.GROUP_ID_CONFIG);
        checkOption(
                !commitOffsetsOnCheckpoint
                        || (effectiveGroupId != null && !effectiveGroupId.isBlank()),
                "commit offsets on checkpoint",
                "setCommitOffsetsOnCheckpoint",
                "needs a consumer group id (setGroupId)");
        checkOption(
                !Boolean.parseBoolean(
                        properties.getProperty(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false")),
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG,
                "setProperty",
                "=true is refused: the source commits only completed checkpoints; use"
                        + " setCommitOffsetsOnCheckpoint(true)");
        checkOption(
                properties.getProperty(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG) == null,
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG,
                "setProperty",
                "is not supported: the source never jumps over missing offsets (set starting"
                        + " offsets with setStartingOffsets)");
        String isolation = properties.getProperty(ConsumerConfig.ISOLATION_LEVEL_CONFIG);
        checkOption(
                isolation == null || isIsolationLevel(isolation),
                ConsumerConfig.ISOLATION_LEVEL_CONFIG,
                "setProperty",
                "'" + isolation + "' is neither read_committed nor read_uncommitted");
        String apiTimeout =
                properties.getProperty(CommonClientConfigs.DEFAULT_API_TIMEOUT_MS_CONFIG);
        checkOption(
                apiTimeout == null || isPositiveLong(apiTimeout),
                CommonClientConfigs.DEFAULT_API_TIMEOUT_MS_CONFIG,
                "setProperty",
                "must be a positive number of milliseconds, was '" + apiTimeout + "'");
        checkOption(
                partitionDiscoveryInterval != null && !partitionDiscoveryInterval.isNegative(),
                "partition discovery interval",
                "setPartitionDiscoveryInterval",
                "must be zero or positive, was " + partitionDiscoveryInterval);
        checkSharedSettings();
    }

    private static boolean isPositiveLong(String value) {
        try {
            return Long.parseLong(value.trim()) > 0;
        } catch (NumberFormatException e) {
            return false;
        }
    }

    private static boolean isIsolationLevel(String value) {
        for (IsolationLevel level : IsolationLevel.values()) {
            if (level.name().equalsIgnoreCase(value)) {
                return true;
            }
        }
        return false;
    }

    @Override
    protected void checkOption(boolean valid, String option, String setter, String problem) {
        checkArgument(valid, "Kafka backfill source option '%s' (%s) %s", option, setter, problem);
    }
}
