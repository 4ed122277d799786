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
import dev.sourcebackfill.source.spi.LogRecordDeserializer;

import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.annotation.VisibleForTesting;
import org.apache.flink.api.connector.source.SourceReaderContext;

import org.apache.kafka.clients.consumer.ConsumerRecord;

import java.io.Serializable;

/**
 * The live topics a history source is put in front of, as {@link HistoryBeforeKafkaSourceBuilder}
 * built them from the Kafka builder the user set: handed to the history log's constructor ({@link
 * HistoryBeforeKafkaLog#HistoryBeforeKafkaLog}), which reads the topics' live records through them.
 */
@PublicEvolving
public final class LiveTopics<T> {

    /** Makes the topics' own deserializer of a reader's Kafka records. */
    @FunctionalInterface
    interface RecordDeserializers<T> extends Serializable {
        LogRecordDeserializer<ConsumerRecord<byte[], byte[]>, T> create(SourceReaderContext context)
                throws Exception;
    }

    final BackfillLog<T> log;
    final RecordDeserializers<T> deserializers;

    /** Whether the topics' deserializer reads the records' values only (not keys, headers). */
    final boolean deserializerReadsValueOnly;

    LiveTopics(KafkaBackfillLog<T> log) {
        this(log, log::createHistoryDeserializer, log.deserializerReadsValueOnly());
    }

    private LiveTopics(
            BackfillLog<T> log,
            RecordDeserializers<T> deserializers,
            boolean deserializerReadsValueOnly) {
        this.log = log;
        this.deserializers = deserializers;
        this.deserializerReadsValueOnly = deserializerReadsValueOnly;
    }

    /**
     * A test's stand-in for the topics: a log of any kind as the live side, which has no Kafka
     * records to deserialize.
     */
    @VisibleForTesting
    public static <T> LiveTopics<T> standIn(BackfillLog<T> log) {
        return new LiveTopics<>(
                log,
                context -> {
                    throw new UnsupportedOperationException(
                            "The stand-in " + log + " for the live topics has no Kafka records");
                },
                false);
    }

    @Override
    public String toString() {
        return log.toString();
    }
}
