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

import dev.sourcebackfill.source.archive.ArchiveBackfill;
import dev.sourcebackfill.source.archive.ArchiveFormat;
import dev.sourcebackfill.source.kafka.InProcessKafka;
import dev.sourcebackfill.source.kafka.KafkaBackfill;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.serialization.SimpleStringSchema;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.file.src.FileSource;
import org.apache.flink.connector.file.src.reader.TextLineInputFormat;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.util.FileUtils;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;

/**
 * Archive backfill throughput: the archive adapter against Flink's {@link FileSource}, both reading
 * the same files of the Kafka Connect layout (8 partitions, lines of 100 characters, files of
 * 50,000 lines) with the same format ({@link TextLineInputFormat}) into the same counting sink. The
 * topic behind the archive had the same offsets and retention has deleted them all, so every record
 * of our job comes from the archive and its handover happens at the end.
 */
final class ArchiveThroughput implements AutoCloseable {

    private static final int PARTITIONS = 8;
    private static final int LINES_PER_FILE = 50_000;

    private final BenchCluster cluster;
    private final BenchmarkSettings settings;
    private final InProcessKafka kafka;
    private final Path archive;
    private final String topic = "archive-" + UUID.randomUUID();

    private ArchiveThroughput(
            BenchCluster cluster, BenchmarkSettings settings, InProcessKafka kafka, Path archive) {
        this.cluster = cluster;
        this.settings = settings;
        this.kafka = kafka;
        this.archive = archive;
    }

    /**
     * Writes the archive and the topic's offsets ({@code archiveRecords} in all), then deletes them
     * from the topic.
     */
    static ArchiveThroughput start(BenchCluster cluster, BenchmarkSettings settings)
            throws Exception {
        // the broker's CPU time is not counted as the jobs' (JobCpu)
        return JobCpu.setUpUncounted(
                () -> {
                    InProcessKafka kafka = InProcessKafka.start();
                    Path archive = Files.createTempDirectory("archive-benchmark");
                    ArchiveThroughput bench =
                            new ArchiveThroughput(cluster, settings, kafka, archive);
                    try {
                        bench.write();
                    } catch (Exception e) {
                        bench.close();
                        throw e;
                    }
                    return bench;
                });
    }

    private void write() throws Exception {
        long perPartition = settings.archiveRecords / PARTITIONS;
        String padding = "x".repeat(90);
        for (int p = 0; p < PARTITIONS; p++) {
            ArchiveFiles.write(
                    archive,
                    topic,
                    p,
                    perPartition,
                    LINES_PER_FILE,
                    o -> String.format("%09d", o) + padding);
        }
        kafka.createTopic(topic, PARTITIONS, Map.of());
        try (KafkaProducer<String, String> producer = kafka.bulkProducer()) {
            for (int p = 0; p < PARTITIONS; p++) {
                for (long o = 0; o < perPartition; o++) {
                    producer.send(new ProducerRecord<>(topic, p, null, ""));
                }
            }
            producer.flush();
        }
        Map<Integer, Long> all = new HashMap<>();
        for (int p = 0; p < PARTITIONS; p++) {
            all.put(p, perPartition);
        }
        kafka.deleteRecordsBelow(topic, all);
    }

    long records() {
        return settings.archiveRecords / PARTITIONS * PARTITIONS;
    }

    Round oursRun() throws Exception {
        return run(
                ArchiveBackfill.<String>sourceBuilder()
                        .setArchive(archive.toUri().toString())
                        .setFormat(ArchiveFormat.of(new TextLineInputFormat()))
                        .setLive(
                                KafkaBackfill.<String>sourceBuilder()
                                        .setBootstrapServers(kafka.bootstrapServers())
                                        .setTopics(topic)
                                        .setValueOnlyDeserializer(new SimpleStringSchema())
                                        .setBounded(OffsetsInitializer.latest()))
                        .build(),
                "archive backfill source");
    }

    Round fileSourceRun() throws Exception {
        return run(
                FileSource.forRecordStreamFormat(
                                new TextLineInputFormat(),
                                new org.apache.flink.core.fs.Path(archive.toUri()))
                        .build(),
                "FileSource");
    }

    private Round run(Source<String, ?, ?> source, String name) throws Exception {
        try (RunProbe probe = RunProbe.open("archive-" + name)) {
            Configuration conf = new Configuration();
            conf.set(
                    CheckpointingOptions.CHECKPOINTING_INTERVAL,
                    settings.throughputCheckpointInterval);
            StreamExecutionEnvironment env = cluster.env(conf);
            env.fromSource(source, WatermarkStrategy.noWatermarks(), name, Types.STRING)
                    .sinkTo(new ProbeSink<>(probe.id()));
            JobCpu.Reading cpu = JobCpu.now();
            env.execute("benchmark: " + name);
            Round round = Round.of(probe.recordsPerSecond(), records(), cpu, records());
            DatagenThroughput.check(probe.totalRecords(), records(), name + " run");
            return round;
        }
    }

    @Override
    public void close() throws Exception {
        try {
            kafka.close();
        } finally {
            FileUtils.deleteDirectory(archive.toFile());
        }
    }
}
