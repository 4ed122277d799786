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

import dev.sourcebackfill.source.spi.OffsetCommitter;

import org.apache.flink.annotation.Internal;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.HashMap;
import java.util.Map;
import java.util.Properties;

/**
 * Commits a completed checkpoint's positions to the consumer group through the admin client:
 * asynchronous (the task thread never waits) and without joining the group, so several readers
 * commit their own partitions side by side.
 */
@Internal
final class KafkaOffsetCommitter implements OffsetCommitter {

    private static final Logger LOG = LoggerFactory.getLogger(KafkaOffsetCommitter.class);

    private final Properties adminProperties;
    private final String groupId;
    private Admin admin;

    KafkaOffsetCommitter(Properties adminProperties, String groupId) {
        this.adminProperties = adminProperties;
        this.groupId = groupId;
    }

    @Override
    public void commitOffsets(long checkpointId, Map<String, Long> nextOffsets) {
        if (admin == null) {
            admin = Admin.create(adminProperties);
        }
        Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
        nextOffsets.forEach(
                (split, offset) ->
                        offsets.put(KafkaSplitIds.parse(split), new OffsetAndMetadata(offset)));
        admin.alterConsumerGroupOffsets(groupId, offsets)
                .all()
                .whenComplete(
                        (ignored, error) -> {
                            if (error != null) {
                                LOG.warn(
                                        "Committing the offsets of checkpoint {} to group '{}' failed: {}",
                                        checkpointId,
                                        groupId,
                                        error.toString());
                            } else {
                                LOG.debug(
                                        "Committed offsets of checkpoint {} to group '{}': {}",
                                        checkpointId,
                                        groupId,
                                        offsets);
                            }
                        });
    }

    @Override
    public void close() {
        if (admin != null) {
            admin.close();
        }
    }
}
