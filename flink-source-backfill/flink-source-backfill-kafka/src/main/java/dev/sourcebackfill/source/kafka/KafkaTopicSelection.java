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

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;

/** The topics a source reads: a fixed list (each must exist) or a pattern. */
@Internal
final class KafkaTopicSelection implements Serializable {

    private static final long serialVersionUID = 1L;

    private final List<String> topics;
    private final Pattern pattern;

    private KafkaTopicSelection(List<String> topics, Pattern pattern) {
        this.topics = topics;
        this.pattern = pattern;
    }

    static KafkaTopicSelection topics(List<String> topics) {
        return new KafkaTopicSelection(List.copyOf(topics), null);
    }

    static KafkaTopicSelection pattern(Pattern pattern) {
        return new KafkaTopicSelection(null, pattern);
    }

    List<TopicPartition> partitions(Admin admin, String bootstrapServers, long timeoutMs) {
        Collection<String> names;
        if (pattern != null) {
            Set<String> all =
                    KafkaAdminCalls.await(
                            admin.listTopics().names(),
                            "the list of topics",
                            bootstrapServers,
                            timeoutMs);
            names = new TreeSet<>();
            for (String name : all) {
                if (pattern.matcher(name).matches()) {
                    names.add(name);
                }
            }
            if (names.isEmpty()) {
                return List.of();
            }
        } else {
            names = topics;
        }
        Map<String, TopicDescription> described;
        try {
            described =
                    KafkaAdminCalls.await(
                            admin.describeTopics(names).allTopicNames(),
                            "the partitions of topics " + names,
                            bootstrapServers,
                            timeoutMs);
        } catch (KafkaSourceException e) {
            if (e.getCause() instanceof UnknownTopicOrPartitionException) {
                throw new KafkaSourceException(
                        String.format(
                                "Topic(s) %s: at least one does not exist on the Kafka cluster at %s (%s)",
                                names, bootstrapServers, e.getCause().getMessage()),
                        e.getCause());
            }
            throw e;
        }
        List<TopicPartition> partitions = new ArrayList<>();
        for (TopicDescription topic : described.values()) {
            for (TopicPartitionInfo partition : topic.partitions()) {
                partitions.add(new TopicPartition(topic.name(), partition.partition()));
            }
        }
        return partitions;
    }

    @Override
    public String toString() {
        return pattern != null ? "topics matching " + pattern.pattern() : "topics " + topics;
    }
}
