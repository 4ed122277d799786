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

import dev.sourcebackfill.source.kafka.InProcessKafka;
import dev.sourcebackfill.source.kafka.KafkaBackfill;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.serialization.SimpleStringSchema;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;

import java.util.Map;
import java.util.UUID;

/**
 * the Kafka adapter ({@link KafkaBackfill}) against Flink's {@link KafkaSource}, both from the
 * earliest offsets to the end offsets at start, on one topic of a broker in this JVM, with the same
 * value deserializer and the same counting sink. All of our job's records are backfill (its
 * upstream takes over at the end offsets, where both jobs stop).
 */
final class KafkaThroughput implements AutoCloseable {

    private static final int PARTITIONS = 8;

    private final BenchCluster cluster;
    private final BenchmarkSettings settings;
    private final InProcessKafka kafka;
    private final String topic = "benchmark-" + UUID.randomUUID();

    private KafkaThroughput(
            BenchCluster cluster, BenchmarkSettings settings, InProcessKafka kafka) {
        this.cluster = cluster;
        this.settings = settings;
        this.kafka = kafka;
    }

    /** Starts a broker and writes the topic: {@code kafkaRecords} values of 100 characters. */
    static KafkaThroughput start(BenchCluster cluster, BenchmarkSettings settings)
            throws Exception {
        InProcessKafka kafka = InProcessKafka.start();
        KafkaThroughput bench = new KafkaThroughput(cluster, settings, kafka);
        try {
            bench.produce();
        } catch (Exception e) {
            kafka.close();
            throw e;
        }
        return bench;
    }

    private void produce() throws Exception {
        kafka.createTopic(topic, PARTITIONS, Map.of());
        String padding = "x".repeat(90);
        try (KafkaProducer<String, String> producer = kafka.bulkProducer()) {
            for (long i = 0; i < settings.kafkaRecords; i++) {
                producer.send(
                        new ProducerRecord<>(
                                topic,
                                (int) (i % PARTITIONS),
                                null,
                                String.format("%09d", i) + padding));
            }
            producer.flush();
        }
    }

    double oursRun() throws Exception {
        return run(
                KafkaBackfill.<String>sourceBuilder()
                        .setBootstrapServers(kafka.bootstrapServers())
                        .setTopics(topic)
                        .setValueOnlyDeserializer(new SimpleStringSchema())
                        .setStartingOffsets(OffsetsInitializer.earliest())
                        .setBounded(OffsetsInitializer.latest())
                        .build(),
                "KafkaBackfill source");
    }

    double kafkaSourceRun() throws Exception {
        return run(
                KafkaSource.<String>builder()
                        .setBootstrapServers(kafka.bootstrapServers())
                        .setTopics(topic)
                        .setValueOnlyDeserializer(new SimpleStringSchema())
                        .setStartingOffsets(OffsetsInitializer.earliest())
                        .setBounded(OffsetsInitializer.latest())
                        .build(),
                "KafkaSource");
    }

    private double run(Source<String, ?, ?> source, String name) throws Exception {
        try (RunProbe probe = RunProbe.open("kafka-" + name)) {
            Configuration conf = new Configuration();
            conf.set(
                    CheckpointingOptions.CHECKPOINTING_INTERVAL,
                    settings.throughputCheckpointInterval);
            StreamExecutionEnvironment env = cluster.env(conf);
            env.fromSource(source, WatermarkStrategy.noWatermarks(), name)
                    .sinkTo(new ProbeSink<>(probe.id()));
            env.execute("benchmark: " + name);
            DatagenThroughput.check(probe.totalRecords(), settings.kafkaRecords, name + " run");
            return probe.recordsPerSecond();
        }
    }

    @Override
    public void close() throws Exception {
        kafka.close();
    }
}
