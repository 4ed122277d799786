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
import dev.sourcebackfill.source.kafka.KafkaBackfillSourceBuilder;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.serialization.SimpleStringSchema;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.connector.kafka.source.KafkaSourceBuilder;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * The Kafka adapter ({@link KafkaBackfill}) against Flink's {@link KafkaSource} on topics of a
 * broker in this JVM, with the same value deserializer and the same counting sink.
 *
 * <ul>
 *   <li>History: both from the earliest offsets to the end offsets at start. All of our job's
 *       records are backfill (its live reader takes over at the end offsets, where both jobs stop).
 *       {@code KafkaSource} runs twice: with our backfill consumer's settings ({@link
 *       #OUR_BACKFILL_CONSUMER_SETTINGS}: equal settings) and with its defaults. Besides the rate,
 *       each run gives the time from submitting the job until its last record, when every partition
 *       has caught up (where ours hands over to its live consumer).
 *   <li>Live: a second topic, empty when our job first ran on it; that job stopped with a savepoint
 *       once every split was FINISHED and the readers in forward mode, and the records were written
 *       after. Each of our runs resumes from that savepoint, so its live consumer reads every
 *       record; {@code KafkaSource} reads the same records from the earliest offsets, with its
 *       defaults, which our live consumer keeps too. Both are cancelled once every record arrived.
 * </ul>
 */
final class KafkaThroughput implements AutoCloseable {

    private static final int PARTITIONS = 8;

    /**
     * What our backfill consumer reads with unless the user's properties set it: a copy of {@code
     * KafkaClientProperties.BACKFILL_CONSUMER_DEFAULTS} in flink-source-backfill-kafka, which is
     * package-private there; keep the two alike. {@code KafkaSource} at equal settings is given
     * these properties.
     */
    static final Map<String, String> OUR_BACKFILL_CONSUMER_SETTINGS =
            Map.of(
                    ConsumerConfig.MAX_POLL_RECORDS_CONFIG,
                    "2000",
                    ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG,
                    String.valueOf(4 << 20),
                    ConsumerConfig.RECEIVE_BUFFER_CONFIG,
                    String.valueOf(1 << 20),
                    ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG,
                    "100");

    private final BenchCluster cluster;
    private final BenchmarkSettings settings;
    private final InProcessKafka kafka;
    private final String topic = "benchmark-" + UUID.randomUUID();
    private final String liveTopic = "benchmark-live-" + UUID.randomUUID();
    private final String onePartitionTopic = "benchmark-one-" + UUID.randomUUID();

    /**
     * The records of the one-partition topic: as many as the 8-partition topic's, so that a round
     * lasts 5 s or more (half as many lasted 3.8-4.8 s).
     */
    private final long onePartitionRecords;

    /** Chunks of history the one partition is cut into when chunks are on. */
    static final int ONE_PARTITION_CHUNKS = 8;

    /**
     * The records of the live topic: a multiple of 2,048, so that each of the 2 readers (4
     * partitions each) ends on a count the probe publishes (every 1,024th record).
     */
    private final long liveRecords;

    /** Our job on the live topic, stopped with every split FINISHED before it had any record. */
    private String liveSavepoint;

    private KafkaThroughput(
            BenchCluster cluster, BenchmarkSettings settings, InProcessKafka kafka) {
        this.cluster = cluster;
        this.settings = settings;
        this.kafka = kafka;
        this.liveRecords = Math.max(2048, settings.kafkaRecords / 2048 * 2048);
        this.onePartitionRecords = settings.kafkaRecords;
    }

    /**
     * Starts a broker and writes the topic: {@code kafkaRecords} values of 100 characters. The
     * broker's CPU time is not counted as the jobs' ({@link JobCpu}).
     */
    static KafkaThroughput start(BenchCluster cluster, BenchmarkSettings settings)
            throws Exception {
        return JobCpu.setUpUncounted(
                () -> {
                    InProcessKafka kafka = InProcessKafka.start();
                    KafkaThroughput bench = new KafkaThroughput(cluster, settings, kafka);
                    try {
                        bench.produce();
                    } catch (Exception e) {
                        kafka.close();
                        throw e;
                    }
                    return bench;
                });
    }

    /** Starts a broker without writing the 8-partition topic (for the one-partition rows alone). */
    static KafkaThroughput startWithoutTopics(BenchCluster cluster, BenchmarkSettings settings)
            throws Exception {
        return JobCpu.setUpUncounted(
                () -> new KafkaThroughput(cluster, settings, InProcessKafka.start()));
    }

    private void produce() throws Exception {
        kafka.createTopic(topic, PARTITIONS, Map.of());
        produce(topic, settings.kafkaRecords);
    }

    private void produce(String topic, long records) throws Exception {
        produce(topic, records, PARTITIONS);
    }

    private void produce(String topic, long records, int partitions) throws Exception {
        String padding = "x".repeat(90);
        try (KafkaProducer<String, String> producer = kafka.bulkProducer()) {
            for (long i = 0; i < records; i++) {
                producer.send(
                        new ProducerRecord<>(
                                topic,
                                (int) (i % partitions),
                                null,
                                String.format("%09d", i) + padding));
            }
            producer.flush();
        }
    }

    /** Writes the one-partition topic (the broker's work not counted as the jobs'). */
    void prepareOnePartition() throws Exception {
        JobCpu.setUpUncounted(
                () -> {
                    kafka.createTopic(onePartitionTopic, 1, Map.of());
                    produce(onePartitionTopic, onePartitionRecords, 1);
                    return null;
                });
    }

    long onePartitionRecords() {
        return onePartitionRecords;
    }

    long onePartitionChunkSize() {
        return (onePartitionRecords + ONE_PARTITION_CHUNKS - 1) / ONE_PARTITION_CHUNKS;
    }

    /** Ours over the one-partition topic, its history in chunks or not. */
    HistoryRun oursOnePartitionRun(boolean chunks) throws Exception {
        KafkaBackfillSourceBuilder<String> source =
                KafkaBackfill.<String>sourceBuilder()
                        .setBootstrapServers(kafka.bootstrapServers())
                        .setTopics(onePartitionTopic)
                        .setValueOnlyDeserializer(new SimpleStringSchema())
                        .setStartingOffsets(OffsetsInitializer.earliest())
                        .setBounded(OffsetsInitializer.latest());
        if (chunks) {
            source.setBackfillChunkSize(onePartitionChunkSize());
        }
        return run(
                source.build(),
                chunks ? "KafkaBackfill source, chunks" : "KafkaBackfill source, one partition",
                onePartitionRecords);
    }

    /** {@code KafkaSource} at our settings over the one-partition topic: one reader reads it. */
    HistoryRun kafkaSourceOnePartitionRun() throws Exception {
        KafkaSourceBuilder<String> source =
                KafkaSource.<String>builder()
                        .setBootstrapServers(kafka.bootstrapServers())
                        .setTopics(onePartitionTopic)
                        .setValueOnlyDeserializer(new SimpleStringSchema())
                        .setStartingOffsets(OffsetsInitializer.earliest())
                        .setBounded(OffsetsInitializer.latest());
        OUR_BACKFILL_CONSUMER_SETTINGS.forEach(source::setProperty);
        return run(
                source.build(), "KafkaSource at our settings, one partition", onePartitionRecords);
    }

    /** One run over the history: its rate and CPU time, and the time until caught up. */
    static final class HistoryRun {
        final Round round;
        final double secondsUntilCaughtUp;

        HistoryRun(Round round, double secondsUntilCaughtUp) {
            this.round = round;
            this.secondsUntilCaughtUp = secondsUntilCaughtUp;
        }

        /** Adds the time until caught up to {@code times}; the rate is the run's figure. */
        Round noteCaughtUp(Samples times) {
            times.add(secondsUntilCaughtUp);
            return round;
        }
    }

    HistoryRun oursRun() throws Exception {
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

    /**
     * {@code KafkaSource} over the history.
     *
     * @param atOurSettings whether its consumers read with {@link #OUR_BACKFILL_CONSUMER_SETTINGS}
     *     (else with its, and Kafka's, defaults)
     */
    HistoryRun kafkaSourceRun(boolean atOurSettings) throws Exception {
        KafkaSourceBuilder<String> source =
                KafkaSource.<String>builder()
                        .setBootstrapServers(kafka.bootstrapServers())
                        .setTopics(topic)
                        .setValueOnlyDeserializer(new SimpleStringSchema())
                        .setStartingOffsets(OffsetsInitializer.earliest())
                        .setBounded(OffsetsInitializer.latest());
        if (atOurSettings) {
            OUR_BACKFILL_CONSUMER_SETTINGS.forEach(source::setProperty);
        }
        return run(source.build(), atOurSettings ? "KafkaSource at our settings" : "KafkaSource");
    }

    private HistoryRun run(Source<String, ?, ?> source, String name) throws Exception {
        return run(source, name, settings.kafkaRecords);
    }

    private HistoryRun run(Source<String, ?, ?> source, String name, long records)
            throws Exception {
        try (RunProbe probe = RunProbe.open("kafka-" + name)) {
            StreamExecutionEnvironment env = cluster.env(jobConf());
            env.fromSource(source, WatermarkStrategy.noWatermarks(), name)
                    .sinkTo(new ProbeSink<>(probe.id()));
            JobCpu.Reading cpu = JobCpu.now();
            long submitted = System.nanoTime();
            try (AutoCloseable fetchMetrics = FetchMetricsProbe.open(name)) {
                env.execute("benchmark: " + name);
            }
            Round round = Round.of(probe.recordsPerSecond(), records, cpu, records);
            DatagenThroughput.check(probe.totalRecords(), records, name + " run");
            if (System.getenv("BENCHMARK_TIMELINE") != null) {
                System.out.println("[timeline] " + name + ": " + probe.timeline(submitted));
            }
            return new HistoryRun(round, (probe.lastRecordNanos() - submitted) / 1e9);
        }
    }

    private Configuration jobConf() {
        Configuration conf = new Configuration();
        conf.set(
                CheckpointingOptions.CHECKPOINTING_INTERVAL, settings.throughputCheckpointInterval);
        return conf;
    }

    // ------------------------------------------------------------------ live

    /**
     * Runs our job on the empty live topic until every reader is in forward mode, stops it with a
     * savepoint, then writes the live topic's records.
     */
    void prepareLive(Path savepoints) throws Exception {
        kafka.createTopic(liveTopic, PARTITIONS, Map.of());
        try (RunProbe probe = RunProbe.open("kafka-live-set-up")) {
            StreamExecutionEnvironment env = cluster.env(jobConf());
            addLiveJob(env, probe);
            JobClient job = env.executeAsync("benchmark: Kafka live set-up");
            BenchCluster.await(
                    job,
                    () -> probe.allInForwardMode(cluster.parallelism),
                    Duration.ofMinutes(2),
                    "forward mode on the empty live topic");
            liveSavepoint =
                    job.stopWithSavepoint(
                                    false,
                                    savepoints.toUri().toString(),
                                    SavepointFormatType.CANONICAL)
                            .get(2, TimeUnit.MINUTES);
            job.getJobExecutionResult().get(1, TimeUnit.MINUTES);
        }
        produce(liveTopic, liveRecords);
    }

    /** Our job resumed from the savepoint: every record comes from its live consumer. */
    Round oursLiveRun() throws Exception {
        Configuration conf = jobConf();
        conf.set(StateRecoveryOptions.SAVEPOINT_PATH, liveSavepoint);
        try (RunProbe probe = RunProbe.open("kafka-live-ours")) {
            StreamExecutionEnvironment env = cluster.env(conf);
            addLiveJob(env, probe);
            return liveRun(env, probe, "KafkaBackfill source, live");
        }
    }

    /**
     * {@code KafkaSource} over the same records of the live topic, from its earliest offsets, with
     * its defaults: those of our live consumer too, which keeps Kafka's defaults ({@code
     * KafkaClientProperties#consumer} gives the bulk-read settings to the backfill consumer alone).
     */
    Round kafkaSourceLiveRun() throws Exception {
        try (RunProbe probe = RunProbe.open("kafka-live-KafkaSource")) {
            StreamExecutionEnvironment env = cluster.env(jobConf());
            env.fromSource(
                            KafkaSource.<String>builder()
                                    .setBootstrapServers(kafka.bootstrapServers())
                                    .setTopics(liveTopic)
                                    .setValueOnlyDeserializer(new SimpleStringSchema())
                                    .setStartingOffsets(OffsetsInitializer.earliest())
                                    .build(),
                            WatermarkStrategy.noWatermarks(),
                            "KafkaSource, live")
                    .sinkTo(new ProbeSink<>(probe.id()));
            return liveRun(env, probe, "KafkaSource, live");
        }
    }

    private void addLiveJob(StreamExecutionEnvironment env, RunProbe probe) {
        env.fromSource(
                        KafkaBackfill.<String>sourceBuilder()
                                .setBootstrapServers(kafka.bootstrapServers())
                                .setTopics(liveTopic)
                                .setValueOnlyDeserializer(new SimpleStringSchema())
                                .setStartingOffsets(OffsetsInitializer.earliest())
                                .setListener(new ProbeListener(probe.id()))
                                .build(),
                        WatermarkStrategy.noWatermarks(),
                        "KafkaBackfill source, live")
                .uid("kafka-backfill-source")
                .sinkTo(new ProbeSink<>(probe.id()));
    }

    /**
     * Runs an unbounded job until every live record arrived, then cancels it: its rate, and its CPU
     * time per record until it was gone.
     */
    private Round liveRun(StreamExecutionEnvironment env, RunProbe probe, String name)
            throws Exception {
        JobCpu.Reading cpu = JobCpu.now();
        JobClient job = env.executeAsync("benchmark: " + name);
        BenchCluster.await(
                job,
                () -> probe.publishedRecords() >= liveRecords,
                Duration.ofMinutes(5),
                "every live record in the " + name + " run");
        BenchCluster.cancel(job);
        Round round = Round.of(probe.recordsPerSecond(), liveRecords, cpu, liveRecords);
        DatagenThroughput.check(probe.totalRecords(), liveRecords, name + " run");
        return round;
    }

    @Override
    public void close() throws Exception {
        kafka.close();
    }
}
