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

import org.apache.flink.annotation.Internal;

import org.apache.kafka.common.TopicPartition;

/**
 * A partition's split id is {@code topic-partition}, as in Flink's Kafka source. Public for the
 * adapters that put their own history in front of the topics (the Iceberg adapter names the
 * partitions its table's rows belong to).
 */
@Internal
public final class KafkaSplitIds {

    private KafkaSplitIds() {}

    public static String of(TopicPartition partition) {
        return partition.topic() + '-' + partition.partition();
    }

    public static TopicPartition parse(String splitId) {
        // topic names may contain '-': the partition number follows the last one
        int dash = splitId.lastIndexOf('-');
        if (dash <= 0 || dash == splitId.length() - 1) {
            throw new IllegalArgumentException(
                    "Not a Kafka split id (topic-partition): " + splitId);
        }
        try {
            return new TopicPartition(
                    splitId.substring(0, dash), Integer.parseInt(splitId.substring(dash + 1)));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(
                    "Not a Kafka split id (topic-partition): " + splitId, e);
        }
    }
}
