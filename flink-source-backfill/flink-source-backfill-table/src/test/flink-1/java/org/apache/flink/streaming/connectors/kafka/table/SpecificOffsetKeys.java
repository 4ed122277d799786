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
package org.apache.flink.streaming.connectors.kafka.table;

import org.apache.flink.streaming.connectors.kafka.internals.KafkaTopicPartition;

import org.apache.kafka.common.TopicPartition;

import java.util.HashMap;
import java.util.Map;

/**
 * Flink 1.x: Flink's Kafka table options (connector 3.x) parse specific offsets keyed by the
 * connector's own {@link KafkaTopicPartition}.
 */
final class SpecificOffsetKeys {

    private SpecificOffsetKeys() {}

    static Map<TopicPartition, Long> asKafka(Map<KafkaTopicPartition, Long> parsed) {
        Map<TopicPartition, Long> offsets = new HashMap<>();
        parsed.forEach(
                (partition, offset) ->
                        offsets.put(
                                new TopicPartition(partition.getTopic(), partition.getPartition()),
                                offset));
        return offsets;
    }
}
