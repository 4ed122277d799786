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

import dev.sourcebackfill.source.OffsetGapException;
import dev.sourcebackfill.source.spi.LogRecordCollector;

import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import javax.annotation.Nullable;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The Kafka log reader pauses partitions for watermark alignment with the consumer's own pause: a
 * paused partition delivers nothing, keeps its position, and goes on exactly where it stood; a
 * partition waiting beyond its end stays paused while alignment holds it, whichever ends first.
 */
class KafkaPartitionReaderITCase {

    @RegisterExtension static final KafkaTestEnvironment KAFKA = new KafkaTestEnvironment();

    private static KafkaPartitionReader reader() {
        return reader(new Properties(), null);
    }

    private static KafkaPartitionReader reader(
            Properties extra, @Nullable MetricGroup consumerMetrics) {
        Properties props = new Properties();
        props.putAll(extra);
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, KAFKA.bootstrapServers());
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "none"); // as the source sets it
        return new KafkaPartitionReader("backfill", props, consumerMetrics);
    }

    /** Records [from, from + count) of one partition: value "<partition>-<i>". */
    private static void produce(String topic, int partition, int from, int count) throws Exception {
        KAFKA.produce(
                1,
                from,
                from + count,
                (ignored, i) -> new ProducerRecord<>(topic, partition, "k", partition + "-" + i));
    }

    /** Polls until {@code expected} records came, or 30 s passed; returns "split@offset". */
    private static List<String> pollFor(KafkaPartitionReader reader, int expected)
            throws Exception {
        List<String> out = new ArrayList<>();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (out.size() < expected && System.nanoTime() < deadline) {
            reader.poll(
                    Duration.ofMillis(50),
                    (splitId, offset, timestamp, value) -> out.add(splitId + "@" + offset));
        }
        return out;
    }

    /** Polls for a while and returns everything delivered (to show what is not). */
    private static List<String> pollQuietly(KafkaPartitionReader reader) throws Exception {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            reader.poll(
                    Duration.ofMillis(50),
                    (splitId, offset, timestamp, value) -> out.add(splitId + "@" + offset));
        }
        return out;
    }

    @Test
    void aPausedPartitionDeliversNothingAndResumesAtItsPosition() throws Exception {
        String topic = "pause-" + System.nanoTime();
        KAFKA.createTopic(topic, 2);
        produce(topic, 0, 0, 5);
        produce(topic, 1, 0, 5);
        String p0 = KafkaSplitIds.of(new org.apache.kafka.common.TopicPartition(topic, 0));
        String p1 = KafkaSplitIds.of(new org.apache.kafka.common.TopicPartition(topic, 1));
        try (KafkaPartitionReader reader = reader()) {
            reader.addSplit(p0, 2);
            reader.addSplit(p1, 0);
            reader.pauseOrResumeSplits(List.of(p0), List.of());
            assertThat(pollFor(reader, 5))
                    .containsExactly(p1 + "@0", p1 + "@1", p1 + "@2", p1 + "@3", p1 + "@4");
            assertThat(pollQuietly(reader)).isEmpty();
            assertThat(reader.position(p0)).isEqualTo(2);

            reader.pauseOrResumeSplits(List.of(), List.of(p0));
            assertThat(pollFor(reader, 3)).containsExactly(p0 + "@2", p0 + "@3", p0 + "@4");
        }
    }

    @Test
    void aPartitionWaitingBeyondItsEndStaysPausedWhileAlignmentHoldsIt() throws Exception {
        String topic = "pause-wait-" + System.nanoTime();
        KAFKA.createTopic(topic, 1);
        produce(topic, 0, 0, 2);
        String p0 = KafkaSplitIds.of(new org.apache.kafka.common.TopicPartition(topic, 0));
        try (KafkaPartitionReader reader = reader()) {
            // offset 4 is beyond the end (2): the reader waits there
            reader.addSplit(p0, 4);
            assertThat(pollQuietly(reader)).isEmpty();
            reader.pauseOrResumeSplits(List.of(p0), List.of());
            produce(topic, 0, 2, 4); // the end reaches 6: no longer waiting, still paused
            assertThat(pollQuietly(reader)).isEmpty();

            reader.pauseOrResumeSplits(List.of(), List.of(p0));
            assertThat(pollFor(reader, 2)).containsExactly(p0 + "@4", p0 + "@5");
        }
    }

    /**
     * Retention deleted offsets the reader must read (a consumer sought below the log's start, or
     * overtaken by retention: the broker answers out of range either way): the reader tells the
     * collector, and goes on at the log's start when the collector lets it.
     */
    @Test
    void deletedOffsetsAreReportedAndTheReaderGoesOnAtTheLogsStartWhenAllowed() throws Exception {
        String topic = "deleted-" + System.nanoTime();
        KAFKA.createTopic(topic, 1);
        produce(topic, 0, 0, 20);
        KAFKA.deleteRecordsBelow(topic, 0, 15);
        String p0 = KafkaSplitIds.of(new org.apache.kafka.common.TopicPartition(topic, 0));
        List<String> out = new ArrayList<>();
        LogRecordCollector<ConsumerRecord<byte[], byte[]>> skipping =
                new LogRecordCollector<>() {
                    @Override
                    public void collect(
                            String splitId,
                            long offset,
                            long timestamp,
                            ConsumerRecord<byte[], byte[]> v) {
                        out.add(splitId + "@" + offset);
                    }

                    @Override
                    public void offsetsDeleted(String splitId, long from, long to) {
                        out.add(splitId + " deleted " + from + ".." + (to - 1));
                    }
                };
        try (KafkaPartitionReader reader = reader()) {
            reader.addSplit(p0, 5);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (out.size() < 6 && System.nanoTime() < deadline) {
                reader.poll(Duration.ofMillis(50), skipping);
            }
            assertThat(out)
                    .containsExactly(
                            p0 + " deleted 5..14",
                            p0 + "@15",
                            p0 + "@16",
                            p0 + "@17",
                            p0 + "@18",
                            p0 + "@19");
        }
        try (KafkaPartitionReader reader = reader()) {
            reader.addSplit(p0, 5);
            // a collector that does not handle deleted offsets fails, naming them
            assertThatThrownBy(
                            () -> {
                                for (int i = 0; i < 600; i++) {
                                    reader.poll(Duration.ofMillis(50), (id, o, t, v) -> {});
                                }
                            })
                    .isInstanceOf(OffsetGapException.class)
                    .hasMessageContaining("split " + p0)
                    .hasMessageContaining("read from offset 5")
                    .hasMessageContaining("starts at 15");
        }
    }

    @Test
    void pendingRecordsAreTheConsumersLagAndItsMetricsAreRegisteredUntilItCloses()
            throws Exception {
        String topic = "lag-" + System.nanoTime();
        KAFKA.createTopic(topic, 1);
        produce(topic, 0, 0, 10);
        String p0 = KafkaSplitIds.of(new org.apache.kafka.common.TopicPartition(topic, 0));
        Map<String, Gauge<?>> gauges = new HashMap<>();
        MetricGroup group =
                new UnregisteredMetricsGroup() {
                    @Override
                    public <T, G extends Gauge<T>> G gauge(String name, G gauge) {
                        gauges.put(name, gauge);
                        return gauge;
                    }
                };
        Properties fewPerPoll = new Properties();
        fewPerPoll.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "3");
        try (KafkaPartitionReader reader = reader(fewPerPoll, group)) {
            assertThat(gauges).containsKeys("records-consumed-total", "fetch-rate");
            reader.addSplit(p0, 0);
            assertThat(pollFor(reader, 3)).hasSize(3);
            assertThat(reader.pendingRecords()).hasValue(7);
            assertThat(pollFor(reader, 7)).hasSize(7);
            assertThat(reader.pendingRecords()).hasValue(0);
            assertThat((Double) gauges.get("records-consumed-total").getValue()).isEqualTo(10.0);
        }
    }
}
