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
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.connector.kafka.source.reader.deserializer.KafkaRecordDeserializationSchema;
import org.apache.flink.util.Collector;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Kafka records made values in the task thread by the job's schema. */
class KafkaRecordDeserializerTest {

    private final List<String> out = new ArrayList<>();

    private final Collector<String> collector =
            new Collector<>() {
                @Override
                public void collect(String value) {
                    out.add(value);
                }

                @Override
                public void close() {}
            };

    private static ConsumerRecord<byte[], byte[]> record(long offset, String value) {
        return new ConsumerRecord<>(
                "orders", 3, offset, null, value.getBytes(StandardCharsets.UTF_8));
    }

    /** One value per comma-separated part; rejects "poison". */
    private static final class Parts implements KafkaRecordDeserializationSchema<String> {
        @Override
        public void deserialize(ConsumerRecord<byte[], byte[]> record, Collector<String> values)
                throws IOException {
            String s = new String(record.value(), StandardCharsets.UTF_8);
            if (s.equals("poison")) {
                throw new IOException("not a record");
            }
            for (String part : s.split(",")) {
                if (!part.isEmpty()) {
                    values.collect(part);
                }
            }
        }

        @Override
        public TypeInformation<String> getProducedType() {
            return Types.STRING;
        }
    }

    @Test
    void aRecordMakesAsManyValuesAsTheSchemaGivesNoneIncluded() throws Exception {
        KafkaRecordDeserializer<String> values = new KafkaRecordDeserializer<>(new Parts());
        values.deserialize("orders-3", 0, record(0, "a,b"), collector);
        values.deserialize("orders-3", 1, record(1, ""), collector);
        values.deserialize("orders-3", 2, record(2, "c"), collector);
        assertThat(out).containsExactly("a", "b", "c");
    }

    @Test
    void aRecordTheSchemaRejectsFailsNamingTopicPartitionAndOffset() {
        KafkaRecordDeserializer<String> values = new KafkaRecordDeserializer<>(new Parts());
        assertThatThrownBy(() -> values.deserialize("orders-3", 7, record(7, "poison"), collector))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("offset 7 of topic orders partition 3")
                .hasRootCauseMessage("not a record");
    }

    @Test
    void aFailureDownstreamOfTheSchemaIsPassedOnAsItIs() {
        KafkaRecordDeserializer<String> values = new KafkaRecordDeserializer<>(new Parts());
        IllegalStateException downstream = new IllegalStateException("the map failed");
        Collector<String> failing =
                new Collector<>() {
                    @Override
                    public void collect(String value) {
                        throw downstream;
                    }

                    @Override
                    public void close() {}
                };
        assertThatThrownBy(() -> values.deserialize("orders-3", 0, record(0, "a"), failing))
                .isSameAs(downstream);
    }
}
