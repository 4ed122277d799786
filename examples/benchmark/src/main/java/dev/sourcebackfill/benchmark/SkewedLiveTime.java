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
import dev.sourcebackfill.source.archive.ArchiveBackfillSourceBuilder;
import dev.sourcebackfill.source.archive.ArchiveFormat;
import dev.sourcebackfill.source.kafka.InProcessKafka;
import dev.sourcebackfill.source.kafka.KafkaBackfill;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.api.common.serialization.SimpleStringSchema;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.base.source.hybrid.HybridSource;
import org.apache.flink.connector.file.src.FileSource;
import org.apache.flink.connector.file.src.reader.TextLineInputFormat;
import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.util.FileUtils;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The time until partitions are live on skewed data: 4 partitions, partition 0's archive ten times
 * as large as each other's, every partition with live records in the topic after its archive (the
 * archived offsets deleted from the topic). This source against Flink's {@link HybridSource} (a
 * {@link FileSource} over the same files, then a {@link KafkaSource} from the first offset after
 * each partition's archive), same format, same job. A run's figures are the time from submitting
 * the job until the first live record of the last small partition, and of the last partition,
 * arrives.
 */
final class SkewedLiveTime implements AutoCloseable {

    private static final int PARTITIONS = 4;
    private static final int SKEW = 10;
    private static final int LINES_PER_FILE = 20_000;

    /** run -> partition -> when its first live record arrived (System.nanoTime). */
    private static final Map<String, Map<Integer, Long>> FIRST_LIVE = new ConcurrentHashMap<>();

    /** run -> partition -> when its last archived record arrived (System.nanoTime). */
    private static final Map<String, Map<Integer, Long>> LAST_ARCHIVED = new ConcurrentHashMap<>();

    /** Chunks the big partition's archive is cut into when chunks are on. */
    static final int CHUNKS = 8;

    private final BenchCluster cluster;
    private final BenchmarkSettings settings;
    private final InProcessKafka kafka;
    private final Path archive;
    private final String topic = "skewed-" + UUID.randomUUID();
    private final Map<Integer, Long> archiveEnd = new HashMap<>();
    private final long liveRecords;

    /**
     * What one run measured, in seconds from the job's submission: when the small partitions' first
     * live records arrived, when every partition's did, and when every partition had caught up (its
     * first live record and its last archived one arrived: with chunks, a partition goes live while
     * its history is still read).
     */
    record Times(
            double smallPartitionsLive, double everyPartitionLive, double everyPartitionCaughtUp) {}

    private SkewedLiveTime(
            BenchCluster cluster, BenchmarkSettings settings, InProcessKafka kafka, Path archive) {
        this.cluster = cluster;
        this.settings = settings;
        this.kafka = kafka;
        this.archive = archive;
        long small = settings.skewedRecords / (SKEW + PARTITIONS - 1);
        for (int p = 0; p < PARTITIONS; p++) {
            archiveEnd.put(p, p == 0 ? small * SKEW : small);
        }
        this.liveRecords = Math.max(100, small / 100);
    }

    static SkewedLiveTime start(BenchCluster cluster, BenchmarkSettings settings) throws Exception {
        InProcessKafka kafka = InProcessKafka.start();
        Path archive = Files.createTempDirectory("skewed-benchmark");
        SkewedLiveTime bench = new SkewedLiveTime(cluster, settings, kafka, archive);
        try {
            bench.write();
        } catch (Exception e) {
            bench.close();
            throw e;
        }
        return bench;
    }

    /** Archive lines "A|p|offset|padding"; topic values "K|p|offset" after the archive. */
    private void write() throws Exception {
        String padding = "x".repeat(90);
        for (int p = 0; p < PARTITIONS; p++) {
            int partition = p;
            ArchiveFiles.write(
                    archive,
                    topic,
                    p,
                    archiveEnd.get(p),
                    LINES_PER_FILE,
                    o -> "A|" + partition + "|" + o + "|" + padding);
        }
        kafka.createTopic(topic, PARTITIONS, Map.of());
        try (KafkaProducer<String, String> producer = kafka.bulkProducer()) {
            for (int p = 0; p < PARTITIONS; p++) {
                long end = archiveEnd.get(p);
                for (long o = 0; o < end + liveRecords; o++) {
                    producer.send(
                            new ProducerRecord<>(
                                    topic, p, null, o < end ? "" : "K|" + p + "|" + o));
                }
            }
            producer.flush();
        }
        kafka.deleteRecordsBelow(topic, archiveEnd);
    }

    long archivedRecords() {
        return archiveEnd.values().stream().mapToLong(Long::longValue).sum();
    }

    long bigArchive() {
        return archiveEnd.get(0);
    }

    Times oursRun() throws Exception {
        return run(oursBuilder().build(), "archive backfill source");
    }

    /** Ours with the big partition's archive cut into {@link #CHUNKS} runs of files. */
    Times oursChunkedRun() throws Exception {
        return run(
                oursBuilder().setBackfillChunkSize(chunkSize()).build(),
                "archive backfill source, chunks");
    }

    long chunkSize() {
        return Math.max(LINES_PER_FILE, bigArchive() / CHUNKS);
    }

    private ArchiveBackfillSourceBuilder<String> oursBuilder() {
        return ArchiveBackfill.<String>sourceBuilder()
                .setArchive(archive.toUri().toString())
                .setFormat(ArchiveFormat.of(new TextLineInputFormat()))
                .setLive(
                        KafkaBackfill.<String>sourceBuilder()
                                .setBootstrapServers(kafka.bootstrapServers())
                                .setTopics(topic)
                                .setValueOnlyDeserializer(new SimpleStringSchema())
                                .setBounded(OffsetsInitializer.latest()));
    }

    Times hybridRun() throws Exception {
        Map<TopicPartition, Long> starts = new HashMap<>();
        archiveEnd.forEach((p, end) -> starts.put(new TopicPartition(topic, p), end));
        return run(
                HybridSource.builder(
                                FileSource.forRecordStreamFormat(
                                                new TextLineInputFormat(),
                                                new org.apache.flink.core.fs.Path(
                                                        archive.resolve(topic).toUri()))
                                        .build())
                        .addSource(
                                KafkaSource.<String>builder()
                                        .setBootstrapServers(kafka.bootstrapServers())
                                        .setTopics(topic)
                                        .setValueOnlyDeserializer(new SimpleStringSchema())
                                        .setStartingOffsets(OffsetsInitializer.offsets(starts))
                                        .setBounded(OffsetsInitializer.latest())
                                        .build())
                        .build(),
                "HybridSource");
    }

    private Times run(Source<String, ?, ?> source, String name) throws Exception {
        try (RunProbe probe = RunProbe.open("skewed-" + name)) {
            Configuration conf = new Configuration();
            conf.set(
                    CheckpointingOptions.CHECKPOINTING_INTERVAL,
                    settings.throughputCheckpointInterval);
            StreamExecutionEnvironment env = cluster.env(conf);
            env.fromSource(source, WatermarkStrategy.noWatermarks(), name, Types.STRING)
                    .map(new FirstLive(probe.id()))
                    .sinkTo(new ProbeSink<>(probe.id()));
            long submitted = System.nanoTime();
            env.execute("benchmark: " + name);
            DatagenThroughput.check(
                    probe.totalRecords(),
                    archivedRecords() + PARTITIONS * liveRecords,
                    name + " skewed run");
            Map<Integer, Long> firstLive = FIRST_LIVE.remove(probe.id());
            Map<Integer, Long> lastArchived = LAST_ARCHIVED.remove(probe.id());
            if (firstLive == null || firstLive.size() != PARTITIONS) {
                throw new IllegalStateException(
                        name + ": live records arrived for partitions " + firstLive);
            }
            long small = 0;
            for (int p = 1; p < PARTITIONS; p++) {
                small = Math.max(small, firstLive.get(p) - submitted);
            }
            long every = Math.max(small, firstLive.get(0) - submitted);
            long caughtUp = every;
            for (long last : lastArchived.values()) {
                caughtUp = Math.max(caughtUp, last - submitted);
            }
            return new Times(small / 1e9, every / 1e9, caughtUp / 1e9);
        }
    }

    /**
     * Records, per partition of the run, when its first live record ("K|p|...") arrives, and when
     * its last archived one did (kept per subtask, published as the subtask closes).
     */
    static final class FirstLive extends RichMapFunction<String, String> {
        private static final long serialVersionUID = 1L;
        private final String runId;

        /** Per partition, when this subtask saw its latest archived record. */
        private transient long[] lastArchived;

        FirstLive(String runId) {
            this.runId = runId;
        }

        @Override
        public void open(OpenContext openContext) {
            lastArchived = new long[PARTITIONS];
        }

        @Override
        public String map(String value) {
            int partition = value.charAt(2) - '0';
            if (value.charAt(0) == 'K') {
                FIRST_LIVE
                        .computeIfAbsent(runId, k -> new ConcurrentHashMap<>())
                        .putIfAbsent(partition, System.nanoTime());
            } else {
                lastArchived[partition] = System.nanoTime();
            }
            return value;
        }

        @Override
        public void close() {
            Map<Integer, Long> last =
                    LAST_ARCHIVED.computeIfAbsent(runId, k -> new ConcurrentHashMap<>());
            for (int p = 0; p < PARTITIONS; p++) {
                if (lastArchived[p] != 0) {
                    last.merge(p, lastArchived[p], Math::max);
                }
            }
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
