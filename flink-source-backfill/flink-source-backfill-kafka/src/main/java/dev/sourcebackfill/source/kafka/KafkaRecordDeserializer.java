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

import dev.sourcebackfill.source.spi.LogRecordDeserializer;
import dev.sourcebackfill.source.spi.PassingCollector;

import org.apache.flink.annotation.Internal;
import org.apache.flink.connector.kafka.source.reader.deserializer.KafkaRecordDeserializationSchema;
import org.apache.flink.util.Collector;

import org.apache.kafka.clients.consumer.ConsumerRecord;

import java.io.IOException;

/**
 * Makes the values of a Kafka record with the job's {@link KafkaRecordDeserializationSchema}, in
 * the source's task thread: any number of values per record, as the schema's collector allows.
 */
@Internal
final class KafkaRecordDeserializer<T>
        implements LogRecordDeserializer<ConsumerRecord<byte[], byte[]>, T> {

    private final KafkaRecordDeserializationSchema<T> schema;

    /**
     * Hands the schema's values on as it makes them (a schema may reuse one object for them, as
     * with Flink's Kafka source), noting when a value is downstream: a failure there is the job's,
     * not the schema's, and is passed on as it is.
     */
    private final PassingCollector<T> passing = new PassingCollector<>();

    /**
     * @param schema an opened schema, used by this deserializer only
     */
    KafkaRecordDeserializer(KafkaRecordDeserializationSchema<T> schema) {
        this.schema = schema;
    }

    @Override
    public void deserialize(
            String splitId, long offset, ConsumerRecord<byte[], byte[]> record, Collector<T> out)
            throws IOException {
        try {
            schema.deserialize(record, passing.to(out));
        } catch (IOException | RuntimeException e) {
            if (passing.failedDownstream()) {
                throw e;
            }
            // named as Kafka users know it; the source adds the split
            throw new IOException(
                    String.format(
                            "The deserializer failed on the record at offset %d of topic %s partition %d: %s",
                            record.offset(), record.topic(), record.partition(), e),
                    e);
        }
    }
}
