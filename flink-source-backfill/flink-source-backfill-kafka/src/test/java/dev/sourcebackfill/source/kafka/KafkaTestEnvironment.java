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

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;
import java.util.function.IntPredicate;

/**
 * The Kafka of a test class: an {@link InProcessKafka} broker started before the class's tests and
 * stopped after them, and what the tests do with it: create topics, write records, read a topic
 * back and digest it.
 *
 * <pre>{@code
 * @RegisterExtension
 * static final KafkaTestEnvironment KAFKA = new KafkaTestEnvironment();
 * }</pre>
 *
 * <p>The MiniCluster stays a separate extension, from {@code RestartCounter#miniCluster}.
 */
public final class KafkaTestEnvironment implements BeforeAllCallback, AfterAllCallback {

    /** How long a write or an admin call may take before the test fails. */
    private static final long TIMEOUT_SECONDS = 30;

    private InProcessKafka broker;

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        broker = InProcessKafka.start();
    }

    @Override
    public void afterAll(ExtensionContext context) throws Exception {
        if (broker != null) {
            broker.close();
            broker = null;
        }
    }

    /** The broker itself, for what this class does not offer. */
    public InProcessKafka broker() {
        if (broker == null) {
            throw new IllegalStateException("The broker runs only while the test class runs");
        }
        return broker;
    }

    public String bootstrapServers() {
        return broker().bootstrapServers();
    }

    /** The listener that takes SASL/PLAIN ({@link InProcessKafka#SASL_USER}) only. */
    public String saslBootstrapServers() {
        return broker().saslBootstrapServers();
    }

    public Admin admin() {
        return broker().admin();
    }

    // ------------------------------------------------------------------ topics

    /** Settings that make the broker compact a topic within seconds (the records' keys decide). */
    public static Map<String, String> compactedQuickly() {
        return Map.of(
                "cleanup.policy", "compact",
                "segment.ms", "100",
                "min.cleanable.dirty.ratio", "0.01",
                "delete.retention.ms", "100");
    }

    /** Creates the topic and waits until every partition has a leader. */
    public void createTopic(String topic, int partitions) throws Exception {
        createTopic(topic, partitions, Map.of());
    }

    /** Creates the topic with these topic settings and waits until every partition has a leader. */
    public void createTopic(String topic, int partitions, Map<String, String> configs)
            throws Exception {
        broker().createTopic(topic, partitions, configs);
    }

    public void addPartitions(String topic, int totalPartitions) throws Exception {
        broker().addPartitions(topic, totalPartitions);
    }

    /** Deletes the partition's records below the offset, as retention would. */
    public void deleteRecordsBelow(String topic, int partition, long offset) throws Exception {
        broker().deleteRecordsBelow(topic, partition, offset);
    }

    /** Commits the group's offset of one partition, as a consumer that read up to it would. */
    public void commitOffset(String group, String topic, int partition, long offset)
            throws Exception {
        admin().alterConsumerGroupOffsets(
                        group,
                        Map.of(new TopicPartition(topic, partition), new OffsetAndMetadata(offset)))
                .all()
                .get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
    }

    /** The group's committed offsets of the topic's partitions; none if they cannot be read. */
    public Map<TopicPartition, Long> committedOffsets(String group, String topic) {
        try {
            Map<TopicPartition, Long> offsets = new HashMap<>();
            admin().listConsumerGroupOffsets(group)
                    .partitionsToOffsetAndMetadata()
                    .get(10, TimeUnit.SECONDS)
                    .forEach(
                            (tp, o) -> {
                                if (tp.topic().equals(topic) && o != null) {
                                    offsets.put(tp, o.offset());
                                }
                            });
            return offsets;
        } catch (Exception e) {
            return Map.of();
        }
    }

    // ------------------------------------------------------------------ writing

    /** The record to write for one partition and one number; {@code null} for none. */
    @FunctionalInterface
    public interface RecordOf {
        ProducerRecord<String, String> record(int partition, long i);
    }

    /**
     * Writes, for every number i in [from, to) and, for each, every partition 0..partitions-1, the
     * record {@code records} makes of them (so each partition gets its records in the order of i),
     * and waits until the broker acknowledged all of them; a failed write fails the test.
     */
    public void produce(int partitions, long from, long to, RecordOf records) throws Exception {
        List<ProducerRecord<String, String>> all = new ArrayList<>();
        for (long i = from; i < to; i++) {
            for (int p = 0; p < partitions; p++) {
                ProducerRecord<String, String> record = records.record(p, i);
                if (record != null) {
                    all.add(record);
                }
            }
        }
        produce(all);
    }

    /** Writes the records in order and waits until the broker acknowledged all of them. */
    public void produce(List<ProducerRecord<String, String>> records) throws Exception {
        try (KafkaProducer<String, String> producer = broker().producer(null)) {
            List<Future<?>> sends = new ArrayList<>();
            for (ProducerRecord<String, String> record : records) {
                sends.add(producer.send(record));
            }
            for (Future<?> send : sends) {
                send.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
            }
        }
    }

    /**
     * As {@link #produce(int, long, long, RecordOf)}, but each record is acknowledged before the
     * next is sent: one record per request, so that the broker's time-based settings (a segment
     * rolled every 100 ms for compaction) see the records spread over time.
     */
    public void produceOneByOne(int partitions, long from, long to, RecordOf records)
            throws Exception {
        try (KafkaProducer<String, String> producer = broker().producer(null)) {
            for (long i = from; i < to; i++) {
                for (int p = 0; p < partitions; p++) {
                    ProducerRecord<String, String> record = records.record(p, i);
                    if (record != null) {
                        producer.send(record).get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
                    }
                }
            }
        }
    }

    /**
     * Writes transactions numbered [from, to) with one transactional producer of id {@code
     * transactionalId}: transaction {@code t} holds the records {@code records.apply(t)}, and is
     * aborted if {@code aborted.test(t)}, committed otherwise.
     */
    public void produceTransactions(
            String transactionalId,
            int from,
            int to,
            IntFunction<List<ProducerRecord<String, String>>> records,
            IntPredicate aborted) {
        Set<String> topics = new HashSet<>();
        try (KafkaProducer<String, String> producer = broker().producer(transactionalId)) {
            producer.initTransactions();
            for (int t = from; t < to; t++) {
                producer.beginTransaction();
                for (ProducerRecord<String, String> record : records.apply(t)) {
                    topics.add(record.topic());
                    producer.send(record);
                }
                if (aborted.test(t)) {
                    producer.abortTransaction();
                } else {
                    producer.commitTransaction();
                }
            }
        }
        awaitTransactionMarkers(topics);
    }

    /**
     * Waits until a read_committed consumer sees every committed record of the topics: a commit
     * returns before its markers are in the partitions, so the last stable offset may still lag.
     */
    private void awaitTransactionMarkers(Set<String> topics) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        try {
            Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
            for (TopicDescription description :
                    admin().describeTopics(topics)
                            .allTopicNames()
                            .get(30, TimeUnit.SECONDS)
                            .values()) {
                description
                        .partitions()
                        .forEach(
                                p ->
                                        latest.put(
                                                new TopicPartition(
                                                        description.name(), p.partition()),
                                                OffsetSpec.latest()));
            }
            while (true) {
                Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> committed =
                        admin().listOffsets(
                                        latest,
                                        new ListOffsetsOptions(IsolationLevel.READ_COMMITTED))
                                .all()
                                .get(30, TimeUnit.SECONDS);
                Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> all =
                        admin().listOffsets(latest).all().get(30, TimeUnit.SECONDS);
                boolean stable =
                        latest.keySet().stream()
                                .allMatch(tp -> committed.get(tp).offset() == all.get(tp).offset());
                if (stable) {
                    return;
                }
                if (System.nanoTime() > deadline) {
                    throw new AssertionError(
                            "The last stable offsets of " + topics + " did not reach their ends");
                }
                Thread.sleep(20);
            }
        } catch (Exception e) {
            throw new IllegalStateException("Waiting for the transaction markers failed", e);
        }
    }

    // ------------------------------------------------------------------ reading back

    /**
     * Every record the topic holds now, in offset order per partition, as a plain consumer with the
     * given isolation level reads it from the earliest offsets to the end offsets.
     */
    public List<ConsumerRecord<String, String>> readAll(String topic, boolean readCommitted) {
        return broker().readAll(topic, readCommitted);
    }

    /** Per partition ("topic-partition"), the digest of what {@link #readAll} reads now. */
    public Map<String, PartitionDigest> digests(String topic, boolean readCommitted) {
        return PartitionDigest.of(readAll(topic, readCommitted));
    }

    /**
     * The digest of the records at offsets [from, to) of one partition, as a plain consumer
     * (read_uncommitted) reads them.
     */
    public PartitionDigest digestOf(String topic, int partition, long from, long to) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        PartitionDigest digest = PartitionDigest.empty();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(p)) {
            TopicPartition tp = new TopicPartition(topic, partition);
            consumer.assign(List.of(tp));
            consumer.seek(tp, from);
            while (consumer.position(tp) < to) {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
                    if (r.offset() < to) {
                        digest = digest.plus(r.offset(), r.value());
                    }
                }
            }
        }
        return digest;
    }

    /** The records of each of the first {@code partitions} partitions below {@code stop}. */
    public Map<String, PartitionDigest> digestsBelow(String topic, int partitions, long stop) {
        Map<String, PartitionDigest> digests = new HashMap<>();
        for (int p = 0; p < partitions; p++) {
            digests.put(topic + "-" + p, digestOf(topic, p, 0, stop));
        }
        return digests;
    }

    /** How many records the digests count together. */
    public static long total(Map<String, PartitionDigest> digests) {
        return digests.values().stream().mapToLong(PartitionDigest::count).sum();
    }
}
