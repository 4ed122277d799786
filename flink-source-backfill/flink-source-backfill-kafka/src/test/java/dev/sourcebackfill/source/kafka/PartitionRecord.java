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

import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.connector.kafka.source.reader.deserializer.KafkaRecordDeserializationSchema;
import org.apache.flink.util.Collector;

import org.apache.kafka.clients.consumer.ConsumerRecord;

import java.nio.charset.StandardCharsets;

/** What the test jobs read: where a Kafka record was, and its value. */
public class PartitionRecord {
    public String topic;
    public int partition;
    public long offset;
    public String value;

    public PartitionRecord() {}

    public PartitionRecord(String topic, int partition, long offset, String value) {
        this.topic = topic;
        this.partition = partition;
        this.offset = offset;
        this.value = value;
    }

    public String partitionKey() {
        return topic + "-" + partition;
    }

    /** Sees the whole Kafka record, as users' deserializers do. */
    public static final class Deserializer
            implements KafkaRecordDeserializationSchema<PartitionRecord> {
        private static final long serialVersionUID = 1L;

        @Override
        public void deserialize(
                ConsumerRecord<byte[], byte[]> record, Collector<PartitionRecord> out) {
            String value =
                    record.value() == null
                            ? null
                            : new String(record.value(), StandardCharsets.UTF_8);
            if ("poison".equals(value)) {
                throw new IllegalArgumentException("cannot read a poison value");
            }
            out.collect(
                    new PartitionRecord(
                            record.topic(), record.partition(), record.offset(), value));
        }

        @Override
        public TypeInformation<PartitionRecord> getProducedType() {
            return TypeInformation.of(PartitionRecord.class);
        }
    }
}
