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

import dev.sourcebackfill.source.spi.BackfillLog;
import dev.sourcebackfill.source.spi.LogReading;
import dev.sourcebackfill.source.spi.LogRecordDeserializer;
import dev.sourcebackfill.source.spi.LogSplitDiscoverer;
import dev.sourcebackfill.source.spi.OffsetCommitter;

import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.source.SourceReaderContext;

import org.apache.kafka.clients.consumer.ConsumerRecord;

import java.util.Optional;

/**
 * A log whose history comes from another store (an archive of files, a lake table) and whose live
 * records come from Kafka topics: the topics' partitions are the splits, their live reader is the
 * Kafka adapter's, and what the store holds of a partition is its backfill. An adapter for such a
 * store extends this class with its backfill reading and its split discoverer (a {@link
 * HistoryBeforeKafkaDiscoverer}) and is built by a {@link HistoryBeforeKafkaSourceBuilder}; the
 * live side is the topics' own and is not overridden.
 *
 * <p>Offsets are the topics' own: the store must keep each record's partition and offset, so that a
 * partition's history ends where the topic takes over without a gap or a duplicate.
 */
@PublicEvolving
public abstract class HistoryBeforeKafkaLog<T> implements BackfillLog<T> {

    private static final long serialVersionUID = 1L;

    private final BackfillLog<T> topics;
    private final LiveTopics.RecordDeserializers<T> topicDeserializers;
    private final boolean topicDeserializerReadsValueOnly;

    protected HistoryBeforeKafkaLog(LiveTopics<T> topics) {
        this.topics = topics.log;
        this.topicDeserializers = topics.deserializers;
        this.topicDeserializerReadsValueOnly = topics.deserializerReadsValueOnly;
    }

    /**
     * Whether the live topics' deserializer reads the records' values only (the Kafka builder's
     * {@code setValueOnlyDeserializer}): a history store need not read keys and headers for it.
     */
    protected final boolean topicDeserializerReadsValueOnly() {
        return topicDeserializerReadsValueOnly;
    }

    /** The split discoverer of the live topics, for the history's discoverer to wrap. */
    protected final LogSplitDiscoverer createTopicDiscoverer() throws Exception {
        return topics.createSplitDiscoverer();
    }

    /**
     * The live topics' own deserializer (the user's Kafka schema), opened for the history's reader
     * in its own metric group: for a store that keeps each record as the topic had it, whose values
     * the topic's schema makes.
     */
    protected final LogRecordDeserializer<ConsumerRecord<byte[], byte[]>, T>
            createTopicDeserializer(SourceReaderContext context) throws Exception {
        return topicDeserializers.create(context);
    }

    @Override
    public final LogReading<?, T> liveReading() {
        return topics.liveReading();
    }

    @Override
    public final boolean isLiveSeekable() {
        return topics.isLiveSeekable();
    }

    /** The topics' committer (Kafka's consumer group offsets), if the Kafka builder asks for it. */
    @Override
    public Optional<OffsetCommitter> createOffsetCommitter(SourceReaderContext context)
            throws Exception {
        return topics.createOffsetCommitter(context);
    }

    @Override
    public final boolean hasStoppingOffsets() {
        return topics.hasStoppingOffsets();
    }

    @Override
    public final TypeInformation<T> getProducedType() {
        return topics.getProducedType();
    }

    /** The live topics, for {@link #toString()}. */
    protected final String describeTopics() {
        return topics.toString();
    }
}
