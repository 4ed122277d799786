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
package dev.sourcebackfill.benchmark;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerInterceptor;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * The properties each Kafka consumer of a run was made with, to compare two sources' consumers key
 * by key: a consumer interceptor ({@link #INTERCEPTOR}, given to both sources as {@code
 * interceptor.classes}) is configured by the consumer with every property the source gave it (its
 * originals; what it does not set is Kafka's default on both sides alike). It passes the records
 * through untouched. The harness sets it only in warm-up runs, which are not measured.
 */
final class ConsumerSettings {

    /** The property that makes a consumer report its properties here. */
    static final String INTERCEPTOR = ConsumerConfig.INTERCEPTOR_CLASSES_CONFIG;

    /**
     * Keys that may differ between two sources' consumers at equal settings: they name a consumer
     * or its group, or concern committing offsets and a missing starting offset (the runs start at
     * offsets they have), none how records are fetched.
     */
    static final Set<String> IDENTITY_KEYS =
            Set.of(
                    ConsumerConfig.CLIENT_ID_CONFIG,
                    "client.id.prefix",
                    ConsumerConfig.GROUP_ID_CONFIG,
                    ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG,
                    ConsumerConfig.AUTO_OFFSET_RESET_CONFIG,
                    "partition.discovery.interval.ms",
                    "commit.offsets.on.checkpoint",
                    "register.consumer.metrics");

    private static final ConcurrentLinkedQueue<Map<String, String>> SEEN =
            new ConcurrentLinkedQueue<>();

    private ConsumerSettings() {}

    /** Forgets the consumers seen so far: call right before a run. */
    static void clear() {
        SEEN.clear();
    }

    /** The properties of every consumer made since {@link #clear()}. */
    static List<Map<String, String>> seen() {
        return new ArrayList<>(SEEN);
    }

    /**
     * Compares every consumer of {@code ours} with every consumer of {@code theirs} key by key.
     *
     * @return the keys that differ (all among {@link #IDENTITY_KEYS}), with both sides' values
     * @throws IllegalStateException if a run made no consumer, or a key outside {@link
     *     #IDENTITY_KEYS} differs
     */
    static String compare(
            String oursName,
            List<Map<String, String>> ours,
            String theirsName,
            List<Map<String, String>> theirs) {
        if (ours.isEmpty() || theirs.isEmpty()) {
            throw new IllegalStateException(
                    "No Kafka consumer was seen: "
                            + ours.size()
                            + " of "
                            + oursName
                            + ", "
                            + theirs.size()
                            + " of "
                            + theirsName);
        }
        Map<String, String> differing = new TreeMap<>();
        List<String> unequal = new ArrayList<>();
        for (Map<String, String> a : ours) {
            for (Map<String, String> b : theirs) {
                Set<String> keys = new TreeSet<>(a.keySet());
                keys.addAll(b.keySet());
                for (String key : keys) {
                    if (!Objects.equals(a.get(key), b.get(key))) {
                        String both =
                                oursName
                                        + " "
                                        + shown(a.get(key))
                                        + ", "
                                        + theirsName
                                        + " "
                                        + shown(b.get(key));
                        if (IDENTITY_KEYS.contains(key)) {
                            differing.putIfAbsent(key, both);
                        } else {
                            unequal.add(key + ": " + both);
                        }
                    }
                }
            }
        }
        if (!unequal.isEmpty()) {
            throw new IllegalStateException(
                    "The consumers of "
                            + oursName
                            + " and "
                            + theirsName
                            + " are not at equal settings: "
                            + new TreeSet<>(unequal)
                            + "\n"
                            + oursName
                            + ": "
                            + ours
                            + "\n"
                            + theirsName
                            + ": "
                            + theirs);
        }
        return differing.toString();
    }

    private static String shown(String value) {
        return value == null ? "(not set)" : value;
    }

    /** Notes a consumer's properties; passes its records through. */
    public static final class Probe implements ConsumerInterceptor<byte[], byte[]> {

        @Override
        public void configure(Map<String, ?> configs) {
            Map<String, String> properties = new TreeMap<>();
            configs.forEach(
                    (key, value) ->
                            properties.put(
                                    key,
                                    value instanceof Class
                                            ? ((Class<?>) value).getName()
                                            : String.valueOf(value)));
            SEEN.add(properties);
        }

        @Override
        public ConsumerRecords<byte[], byte[]> onConsume(ConsumerRecords<byte[], byte[]> records) {
            return records;
        }

        @Override
        public void onCommit(Map<TopicPartition, OffsetAndMetadata> offsets) {}

        @Override
        public void close() {}
    }
}
