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
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.flink.connector.kafka.source.split.KafkaPartitionSplit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.clients.consumer.OffsetResetStrategy;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.TopicPartition;

import java.util.Collection;
import java.util.HashMap;
import java.util.Map;

/**
 * Answers Flink's {@link OffsetsInitializer}s from the admin client and turns the markers some of
 * them return (earliest, latest, committed) into real offsets, so that every split starts with a
 * real Kafka offset.
 */
@Internal
final class KafkaOffsetsResolver implements OffsetsInitializer.PartitionOffsetsRetriever {

    private final Admin admin;
    private final IsolationLevel isolationLevel;
    private final String groupId;
    private final String bootstrapServers;
    private final long timeoutMs;

    KafkaOffsetsResolver(
            Admin admin,
            IsolationLevel isolationLevel,
            String groupId,
            String bootstrapServers,
            long timeoutMs) {
        this.admin = admin;
        this.isolationLevel = isolationLevel;
        this.groupId = groupId;
        this.bootstrapServers = bootstrapServers;
        this.timeoutMs = timeoutMs;
    }

    /** The initializer's offsets, each a real offset. */
    Map<TopicPartition, Long> resolve(
            OffsetsInitializer initializer, Collection<TopicPartition> partitions, String what) {
        Map<TopicPartition, Long> raw = initializer.getPartitionOffsets(partitions, this);
        Map<TopicPartition, Long> resolved = new HashMap<>();
        Map<TopicPartition, Long> beginning = null;
        Map<TopicPartition, Long> end = null;
        Map<TopicPartition, Long> committed = null;
        for (TopicPartition tp : partitions) {
            Long offset = raw.get(tp);
            if (offset == null) {
                throw new IllegalStateException(
                        String.format("No %s offset for partition %s", what, tp));
            }
            if (offset == KafkaPartitionSplit.COMMITTED_OFFSET) {
                committed = committed != null ? committed : committedOffsets(partitions);
                offset = committed.get(tp);
                if (offset == null) {
                    OffsetResetStrategy reset = initializer.getAutoOffsetResetStrategy();
                    if (reset == OffsetResetStrategy.EARLIEST) {
                        offset = KafkaPartitionSplit.EARLIEST_OFFSET;
                    } else if (reset == OffsetResetStrategy.LATEST) {
                        offset = KafkaPartitionSplit.LATEST_OFFSET;
                    } else {
                        throw new IllegalStateException(
                                String.format(
                                        "Partition %s has no committed offset for group '%s' to take as its %s offset",
                                        tp, groupId, what));
                    }
                }
            }
            if (offset == KafkaPartitionSplit.EARLIEST_OFFSET) {
                beginning = beginning != null ? beginning : beginningOffsets(partitions);
                offset = beginning.get(tp);
            } else if (offset == KafkaPartitionSplit.LATEST_OFFSET) {
                end = end != null ? end : endOffsets(partitions);
                offset = end.get(tp);
            }
            if (offset < 0) {
                throw new IllegalStateException(
                        String.format(
                                "The %s offset %d of partition %s is not an offset",
                                what, offset, tp));
            }
            resolved.put(tp, offset);
        }
        return resolved;
    }

    @Override
    public Map<TopicPartition, Long> committedOffsets(Collection<TopicPartition> partitions) {
        if (groupId == null) {
            throw new IllegalStateException("Committed offsets need a group id (setGroupId)");
        }
        Map<TopicPartition, OffsetAndMetadata> committed =
                await(
                        admin.listConsumerGroupOffsets(groupId).partitionsToOffsetAndMetadata(),
                        "the committed offsets of group '" + groupId + "'");
        Map<TopicPartition, Long> offsets = new HashMap<>();
        for (TopicPartition tp : partitions) {
            OffsetAndMetadata o = committed.get(tp);
            if (o != null) {
                offsets.put(tp, o.offset());
            }
        }
        return offsets;
    }

    @Override
    public Map<TopicPartition, Long> endOffsets(Collection<TopicPartition> partitions) {
        return list(partitions, OffsetSpec.latest(), "end offsets");
    }

    @Override
    public Map<TopicPartition, Long> beginningOffsets(Collection<TopicPartition> partitions) {
        return list(partitions, OffsetSpec.earliest(), "beginning offsets");
    }

    @Override
    public Map<TopicPartition, OffsetAndTimestamp> offsetsForTimes(
            Map<TopicPartition, Long> timestampsToSearch) {
        Map<TopicPartition, OffsetSpec> specs = new HashMap<>();
        timestampsToSearch.forEach((tp, ts) -> specs.put(tp, OffsetSpec.forTimestamp(ts)));
        Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> infos =
                await(
                        admin.listOffsets(specs, new ListOffsetsOptions(isolationLevel)).all(),
                        "offsets for timestamps of " + timestampsToSearch.keySet());
        Map<TopicPartition, OffsetAndTimestamp> result = new HashMap<>();
        infos.forEach(
                (tp, info) -> {
                    // no record at or after the timestamp: Kafka answers -1
                    if (info.offset() >= 0) {
                        result.put(tp, new OffsetAndTimestamp(info.offset(), info.timestamp()));
                    }
                });
        return result;
    }

    private Map<TopicPartition, Long> list(
            Collection<TopicPartition> partitions, OffsetSpec spec, String what) {
        Map<TopicPartition, OffsetSpec> specs = new HashMap<>();
        partitions.forEach(tp -> specs.put(tp, spec));
        Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> infos =
                await(
                        admin.listOffsets(specs, new ListOffsetsOptions(isolationLevel)).all(),
                        what + " of " + partitions);
        Map<TopicPartition, Long> offsets = new HashMap<>();
        infos.forEach((tp, info) -> offsets.put(tp, info.offset()));
        return offsets;
    }

    <V> V await(KafkaFuture<V> future, String what) {
        return KafkaAdminCalls.await(future, what, bootstrapServers, timeoutMs);
    }
}
