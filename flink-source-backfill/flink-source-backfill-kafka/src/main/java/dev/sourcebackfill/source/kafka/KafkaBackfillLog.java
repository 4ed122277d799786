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

import dev.sourcebackfill.source.OffsetGapPolicy;
import dev.sourcebackfill.source.spi.BackfillLog;
import dev.sourcebackfill.source.spi.LogReading;
import dev.sourcebackfill.source.spi.LogSplitDiscoverer;
import dev.sourcebackfill.source.spi.OffsetCommitter;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.flink.connector.kafka.source.enumerator.subscriber.KafkaSubscriber;
import org.apache.flink.connector.kafka.source.reader.deserializer.KafkaRecordDeserializationSchema;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.util.InstantiationUtil;
import org.apache.flink.util.UserCodeClassLoader;

import org.apache.kafka.clients.consumer.ConsumerRecord;

import java.util.Optional;

/** Kafka partitions as a {@link BackfillLog}: a backfill consumer and the job's live consumer. */
@Internal
final class KafkaBackfillLog<T> implements BackfillLog<T> {

    private static final long serialVersionUID = 1L;

    private final KafkaClientProperties properties;
    private final KafkaSubscriber subscriber;

    /** The topics, for messages: {@code [a, b]} or {@code matching <pattern>}. */
    private final String topics;

    private final KafkaRecordDeserializationSchema<T> deserializer;

    /** Whether the deserializer reads the records' values only (not keys, headers). */
    private final boolean deserializerReadsValueOnly;

    private final OffsetsInitializer startingOffsets;
    private final OffsetsInitializer stoppingOffsets;
    private final String groupId;
    private final boolean commitOffsetsOnCheckpoint;
    private final OffsetGapPolicy gapPolicy;

    /**
     * The live consumer's name where users see it: in its client id ({@code
     * <prefix>-upstream-<subtask>}) and its deserializer's metric group. Kept as releases before
     * named it, since Kafka quotas, broker monitoring and dashboards key on it.
     */
    static final String LIVE_CONSUMER_NAME = "upstream";

    KafkaBackfillLog(
            KafkaClientProperties properties,
            KafkaSubscriber subscriber,
            String topics,
            KafkaRecordDeserializationSchema<T> deserializer,
            boolean deserializerReadsValueOnly,
            OffsetsInitializer startingOffsets,
            OffsetsInitializer stoppingOffsets,
            String groupId,
            boolean commitOffsetsOnCheckpoint,
            OffsetGapPolicy gapPolicy) {
        this.properties = properties;
        this.subscriber = subscriber;
        this.topics = topics;
        this.deserializer = deserializer;
        this.deserializerReadsValueOnly = deserializerReadsValueOnly;
        this.startingOffsets = startingOffsets;
        this.stoppingOffsets = stoppingOffsets;
        this.groupId = groupId;
        this.commitOffsetsOnCheckpoint = commitOffsetsOnCheckpoint;
        this.gapPolicy = gapPolicy;
    }

    /** Whether the topics' deserializer reads the records' values only (not keys, headers). */
    boolean deserializerReadsValueOnly() {
        return deserializerReadsValueOnly;
    }

    @Override
    public LogSplitDiscoverer createSplitDiscoverer() {
        return new KafkaPartitionDiscoverer(
                properties,
                subscriber,
                topics,
                startingOffsets,
                stoppingOffsets,
                groupId,
                gapPolicy);
    }

    @Override
    public LogReading<ConsumerRecord<byte[], byte[]>, T> backfillReading() {
        return LogReading.of(
                context -> createReader("backfill", context),
                context -> createDeserializer("backfill", context));
    }

    @Override
    public LogReading<ConsumerRecord<byte[], byte[]>, T> liveReading() {
        return LogReading.of(
                context -> createReader("live", context),
                context -> createDeserializer("live", context));
    }

    /**
     * @param role "backfill" or "live", as the reader's log lines say it; the live consumer keeps
     *     its earlier name where users see it ({@link #LIVE_CONSUMER_NAME})
     */
    private KafkaPartitionReader createReader(String role, SourceReaderContext context) {
        MetricGroup consumerMetrics =
                properties.registerConsumerMetrics()
                        ? context.metricGroup()
                                .addGroup(KafkaPartitionReader.READER_METRIC_GROUP)
                                .addGroup(
                                        role.equals("live")
                                                ? KafkaPartitionReader.LIVE_CONSUMER_METRIC_GROUP
                                                : KafkaPartitionReader
                                                        .BACKFILL_CONSUMER_METRIC_GROUP)
                        : null;
        return new KafkaPartitionReader(
                role,
                properties.consumer(clientName(role), context.getIndexOfSubtask()),
                consumerMetrics);
    }

    /**
     * The deserializer of one reader's records: its own opened copy of the schema (a schema may
     * keep state or metrics), with its metrics under the consumer's name.
     */
    private KafkaRecordDeserializer<T> createDeserializer(String role, SourceReaderContext context)
            throws Exception {
        String clientName = clientName(role);
        KafkaRecordDeserializationSchema<T> copy =
                InstantiationUtil.clone(
                        deserializer, context.getUserCodeClassLoader().asClassLoader());
        copy.open(
                new DeserializationSchema.InitializationContext() {
                    @Override
                    public MetricGroup getMetricGroup() {
                        return context.metricGroup().addGroup("deserializer").addGroup(clientName);
                    }

                    @Override
                    public UserCodeClassLoader getUserCodeClassLoader() {
                        return context.getUserCodeClassLoader();
                    }
                });
        return new KafkaRecordDeserializer<>(copy);
    }

    /**
     * The deserializer of a history source's records that the topics' schema makes the values of
     * ({@link HistoryBeforeKafkaLog#createTopicDeserializer}): the backfill's, which reads no Kafka
     * record when a history source is in front of the topics.
     */
    KafkaRecordDeserializer<T> createHistoryDeserializer(SourceReaderContext context)
            throws Exception {
        return createDeserializer("backfill", context);
    }

    private static String clientName(String role) {
        return role.equals("live") ? LIVE_CONSUMER_NAME : role;
    }

    @Override
    public Optional<OffsetCommitter> createOffsetCommitter(SourceReaderContext context) {
        if (!commitOffsetsOnCheckpoint) {
            return Optional.empty();
        }
        return Optional.of(
                new KafkaOffsetCommitter(
                        properties.admin("committer-" + context.getIndexOfSubtask()), groupId));
    }

    @Override
    public boolean isLiveSeekable() {
        return true;
    }

    /**
     * A partition's history can be read in chunks: the backfill consumer seeks a partition to any
     * offset, again after it let go of it, and a chunk ends once the consumer's position passed its
     * end (transaction markers and compacted offsets hold no record).
     */
    @Override
    public boolean supportsHistoryChunks() {
        return true;
    }

    @Override
    public boolean hasStoppingOffsets() {
        return stoppingOffsets != null;
    }

    @Override
    public TypeInformation<T> getProducedType() {
        return deserializer.getProducedType();
    }

    @Override
    public String toString() {
        return "KafkaBackfillLog{topics " + topics + ", " + properties + '}';
    }
}
