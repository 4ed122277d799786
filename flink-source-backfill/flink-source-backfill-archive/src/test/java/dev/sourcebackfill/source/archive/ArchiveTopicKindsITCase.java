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
package dev.sourcebackfill.source.archive;

import dev.sourcebackfill.source.BackfillSource;
import dev.sourcebackfill.source.kafka.FailOnce;
import dev.sourcebackfill.source.kafka.KafkaBackfill;
import dev.sourcebackfill.source.kafka.KafkaBackfillSourceBuilder;
import dev.sourcebackfill.source.kafka.KafkaExactlyOnceChecker;
import dev.sourcebackfill.source.kafka.KafkaTestEnvironment;
import dev.sourcebackfill.source.kafka.PartitionDigest;
import dev.sourcebackfill.source.kafka.PartitionRecord;
import dev.sourcebackfill.source.testutils.RestartCounter;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.common.serialization.AbstractDeserializationSchema;
import org.apache.flink.api.common.serialization.BulkWriter;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.fs.FSDataOutputStream;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.formats.parquet.avro.AvroParquetReaders;
import org.apache.flink.formats.parquet.avro.AvroParquetWriters;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.test.junit5.MiniClusterExtension;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.LongPredicate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The archive handed over to topics whose offsets have holes (transactions with aborted ones and
 * commit markers, compaction), and an archive of Parquet files. Every run is checked per partition
 * against the archive and the topic themselves: the records in the job's checkpointed state (count,
 * last offset and a checksum of offsets and values, each offset above the one before) equal the
 * archived records followed by the topic's records after the last archived offset, as a plain
 * consumer reads them. Archived values differ from the topic's ({@code archived:} in front), so a
 * record taken from the wrong side of the handover changes the checksum.
 */
class ArchiveTopicKindsITCase {

    private static final RestartCounter RESTARTS = new RestartCounter();

    @RegisterExtension static final MiniClusterExtension CLUSTER = RESTARTS.miniCluster();

    @RegisterExtension static final KafkaTestEnvironment KAFKA = new KafkaTestEnvironment();

    @TempDir Path archive;

    /**
     * A transactional topic read {@code read_committed}: the archive holds the committed records
     * with their offsets (aborted records and commit markers leave holes), partition 0's archive
     * overlaps the topic, partition 1's meets it at a commit marker (retention deleted what the
     * archive holds), partition 2's archive holds every record the topic has and no live record
     * follows. Live transactions, some aborted, arrive before and while the job runs; a failure at
     * the first live record of partition 0.
     */
    @Test
    void aTransactionalTopicWithAbortedTransactionsAndCommitMarkersAtTheHandover()
            throws Exception {
        String topic = "tx-" + UUID.randomUUID();
        KAFKA.createTopic(topic, 3);
        transactions(topic, 0, 9, 3);
        Map<Integer, List<PartitionRecord>> archived = archiveOf(topic, true, o -> true);
        writeLines(topic, archived, 25);
        long end1 = last(archived, 1) + 1; // a commit marker
        KAFKA.deleteRecordsBelow(topic, 1, end1);
        transactions(topic, 9, 13, 2); // live records before the start

        String run = UUID.randomUUID().toString();
        long firstLive0 = last(archived, 0) + 1;
        JobClient job =
                start(
                        linesSource(topic, true, false),
                        FailOnce.atOffset(run, topic + "-0", firstLive0),
                        run);
        KafkaExactlyOnceChecker.awaitCount(
                run, topic + "-0", archived.get(0).size() + 1, Duration.ofSeconds(120));
        transactions(topic, 13, 18, 2); // live records while the job runs

        Map<String, PartitionDigest> expected = expected(topic, archived, true);
        assertThat(expected.get(topic + "-2").count()).isEqualTo(archived.get(2).size());
        KafkaExactlyOnceChecker.awaitDigests(run, expected, Duration.ofSeconds(120));
        job.cancel().get(30, TimeUnit.SECONDS);
        assertThat(KafkaExactlyOnceChecker.violations(run)).isEmpty();
        assertThat(FailOnce.firedAtOffset(run, topic + "-0", firstLive0))
                .as("failure at partition 0's first live record")
                .isTrue();
        assertThat(RESTARTS.restartsOf(job, Duration.ofSeconds(30))).as("restarts").isEqualTo(1);
    }

    /**
     * A compacted topic: the archive holds offsets below 400 as the sink wrote them, before
     * compaction; the topic's records after the archive were compacted into holes (a handover into
     * a hole); a bounded job with a failure at the first live record of partition 0.
     */
    @Test
    void aCompactedTopicWithHolesAfterTheArchive() throws Exception {
        String topic = "compacted-" + UUID.randomUUID();
        KAFKA.createTopic(topic, 2, KafkaTestEnvironment.compactedQuickly());
        // unique keys below 400, then seven keys updated over and over
        KAFKA.produceOneByOne(
                2,
                0,
                600,
                (p, o) ->
                        new ProducerRecord<>(
                                topic, p, o < 400 ? "h" + o : "d" + (o % 7), "v" + p + "-" + o));
        Map<Integer, List<PartitionRecord>> archived = archiveOf(topic, false, o -> o < 400);
        writeLines(topic, archived, 100);
        awaitStableCompaction(topic, 400, 150);

        String run = UUID.randomUUID().toString();
        long firstLive0 = last(archived, 0) + 1;
        JobClient job =
                start(
                        linesSource(topic, false, true),
                        FailOnce.atOffset(run, topic + "-0", firstLive0),
                        run);
        job.getJobExecutionResult().get(120, TimeUnit.SECONDS);

        Map<String, PartitionDigest> expected = expected(topic, archived, false);
        for (int p = 0; p < 2; p++) {
            assertThat(expected.get(topic + "-" + p).count() - archived.get(p).size())
                    .as("partition %d's records after the archive have compaction holes", p)
                    .isLessThan(200);
        }
        assertThat(KafkaExactlyOnceChecker.digests(run)).isEqualTo(expected);
        assertThat(KafkaExactlyOnceChecker.violations(run)).isEmpty();
        assertThat(FailOnce.firedAtOffset(run, topic + "-0", firstLive0)).isTrue();
        assertThat(RESTARTS.restartsOf(job, Duration.ofSeconds(30))).as("restarts").isEqualTo(1);
    }

    /**
     * Parquet files, as the Kafka Connect sinks write them (no offset field: offsets counted from
     * each file's start), read through Flink's {@code AvroParquetReaders}; partition 1's archive
     * meets the topic; a failure during the archive read.
     */
    @Test
    void aParquetArchiveReadThroughFlinksParquetFormat() throws Exception {
        String topic = "parquet-" + UUID.randomUUID();
        KAFKA.createTopic(topic, 2);
        KAFKA.produce(
                2, 0, 1_000, (p, o) -> new ProducerRecord<>(topic, p, "k", "v" + p + "-" + o));
        Map<Integer, List<PartitionRecord>> archived = archiveOf(topic, false, o -> o < 600);
        BulkWriter.Factory<PartitionRecord> parquet =
                AvroParquetWriters.forReflectRecord(PartitionRecord.class);
        for (Map.Entry<Integer, List<PartitionRecord>> partition : archived.entrySet()) {
            List<PartitionRecord> records = partition.getValue();
            for (int from = 0; from < records.size(); from += 250) {
                List<PartitionRecord> chunk =
                        records.subList(from, Math.min(records.size(), from + 250));
                org.apache.flink.core.fs.Path file =
                        new org.apache.flink.core.fs.Path(
                                archiveFile(topic, partition.getKey(), chunk, "parquet").toUri());
                try (FSDataOutputStream out =
                        file.getFileSystem().create(file, FileSystem.WriteMode.NO_OVERWRITE)) {
                    BulkWriter<PartitionRecord> writer = parquet.create(out);
                    for (PartitionRecord r : chunk) {
                        writer.addElement(r);
                    }
                    writer.finish();
                }
            }
        }
        KAFKA.deleteRecordsBelow(topic, 1, 600);

        String run = UUID.randomUUID().toString();
        BackfillSource<PartitionRecord> source =
                ArchiveBackfill.<PartitionRecord>sourceBuilder()
                        .setArchive(archive.toUri().toString())
                        .setFormat(
                                ArchiveFormat.of(
                                        AvroParquetReaders.forReflectRecord(PartitionRecord.class)))
                        .setMaxRecordsPerPoll(50)
                        .setLive(live(topic, false).setBounded(OffsetsInitializer.latest()))
                        .build();
        JobClient job = start(source, new FailOnce(run, 300), run);
        job.getJobExecutionResult().get(120, TimeUnit.SECONDS);

        assertThat(KafkaExactlyOnceChecker.digests(run))
                .isEqualTo(expected(topic, archived, false));
        assertThat(KafkaExactlyOnceChecker.violations(run)).isEmpty();
        assertThat(FailOnce.fired(run, 300)).as("failure during the archive read").isTrue();
        assertThat(RESTARTS.restartsOf(job, Duration.ofSeconds(30))).as("restarts").isEqualTo(1);
    }

    // ------------------------------------------------------------------ helpers

    private KafkaBackfillSourceBuilder<PartitionRecord> live(String topic, boolean readCommitted) {
        return KafkaBackfill.<PartitionRecord>sourceBuilder()
                .setBootstrapServers(KAFKA.bootstrapServers())
                .setTopics(topic)
                .setDeserializer(new PartitionRecord.Deserializer())
                .setProperty(
                        ConsumerConfig.ISOLATION_LEVEL_CONFIG,
                        readCommitted ? "read_committed" : "read_uncommitted")
                .setPollTimeout(Duration.ofMillis(20))
                .setStartingOffsets(OffsetsInitializer.earliest());
    }

    /** Lines "topic|partition|offset|value", the offset read from the record. */
    private BackfillSource<PartitionRecord> linesSource(
            String topic, boolean readCommitted, boolean bounded) {
        KafkaBackfillSourceBuilder<PartitionRecord> live = live(topic, readCommitted);
        if (bounded) {
            live.setBounded(OffsetsInitializer.latest());
        }
        return ArchiveBackfill.<PartitionRecord>sourceBuilder()
                .setArchive(archive.toUri().toString())
                .setFormat(ArchiveFormat.lines(new ArchiveLine()))
                .setRecordOffset(r -> r.offset)
                .setMaxRecordsPerPoll(50)
                .setLive(live)
                .build();
    }

    /** Reads an archive line "topic|partition|offset|value". */
    static final class ArchiveLine extends AbstractDeserializationSchema<PartitionRecord> {
        private static final long serialVersionUID = 1L;

        @Override
        public PartitionRecord deserialize(byte[] message) {
            String[] f = new String(message, StandardCharsets.UTF_8).split("\\|", 4);
            return new PartitionRecord(f[0], Integer.parseInt(f[1]), Long.parseLong(f[2]), f[3]);
        }
    }

    /**
     * Starts the source, the failure, and the checker keyed by partition; a restart strategy only
     * because a failure is injected (each test counts the restarts afterwards).
     */
    private static JobClient start(
            BackfillSource<PartitionRecord> source,
            MapFunction<PartitionRecord, PartitionRecord> failure,
            String run)
            throws Exception {
        Configuration conf = new Configuration();
        conf.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
        conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 3);
        conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofMillis(200));
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(2);
        env.enableCheckpointing(200);
        env.fromSource(source, WatermarkStrategy.noWatermarks(), "archive-and-topic")
                .map(failure)
                .keyBy(PartitionRecord::partitionKey)
                .process(new KafkaExactlyOnceChecker(run))
                .sinkTo(new DiscardingSink<>());
        return env.executeAsync("archive topic kinds " + run);
    }

    /**
     * Transactions numbered [from, to), each with records for every partition, every third (round %
     * 3 == 1) aborted; values "r-round-i".
     */
    private static void transactions(String topic, int from, int to, int partitions) {
        KAFKA.produceTransactions(
                "tx-" + topic,
                from,
                to,
                round -> {
                    List<ProducerRecord<String, String>> records = new ArrayList<>();
                    for (int i = 0; i < 40; i++) {
                        records.add(
                                new ProducerRecord<>(
                                        topic, i % partitions, "k", "r-" + round + "-" + i));
                    }
                    return records;
                },
                round -> round % 3 == 1);
    }

    /** What a sink archived: the topic's records (as a consumer reads them) whose offsets match. */
    private static Map<Integer, List<PartitionRecord>> archiveOf(
            String topic, boolean readCommitted, LongPredicate offsets) {
        Map<Integer, List<PartitionRecord>> archived = new TreeMap<>();
        for (PartitionRecord r : read(topic, readCommitted)) {
            if (offsets.test(r.offset)) {
                archived.computeIfAbsent(r.partition, k -> new ArrayList<>())
                        .add(
                                new PartitionRecord(
                                        r.topic, r.partition, r.offset, "archived:" + r.value));
            }
        }
        return archived;
    }

    private static long last(Map<Integer, List<PartitionRecord>> archived, int partition) {
        List<PartitionRecord> records = archived.get(partition);
        return records.get(records.size() - 1).offset;
    }

    /** Line files of {@code perFile} records, named by their first record's offset. */
    private void writeLines(String topic, Map<Integer, List<PartitionRecord>> archived, int perFile)
            throws IOException {
        for (Map.Entry<Integer, List<PartitionRecord>> partition : archived.entrySet()) {
            List<PartitionRecord> records = partition.getValue();
            for (int from = 0; from < records.size(); from += perFile) {
                List<PartitionRecord> chunk =
                        records.subList(from, Math.min(records.size(), from + perFile));
                StringBuilder lines = new StringBuilder();
                for (PartitionRecord r : chunk) {
                    lines.append(r.topic)
                            .append('|')
                            .append(r.partition)
                            .append('|')
                            .append(r.offset)
                            .append('|')
                            .append(r.value)
                            .append('\n');
                }
                Files.writeString(
                        archiveFile(topic, partition.getKey(), chunk, "json"), lines.toString());
            }
        }
    }

    /** The Kafka Connect path of the file holding {@code chunk}. */
    private Path archiveFile(
            String topic, int partition, List<PartitionRecord> chunk, String extension)
            throws IOException {
        Path dir = archive.resolve(topic).resolve("partition=" + partition);
        Files.createDirectories(dir);
        return dir.resolve(
                String.format("%s+%d+%010d.%s", topic, partition, chunk.get(0).offset, extension));
    }

    /** Per partition: the archived records, then the topic's records after the last archived. */
    private static Map<String, PartitionDigest> expected(
            String topic, Map<Integer, List<PartitionRecord>> archived, boolean readCommitted) {
        Map<String, PartitionDigest> expected = new TreeMap<>();
        Map<Integer, Long> archiveEnd = new TreeMap<>();
        archived.forEach(
                (p, records) -> {
                    PartitionDigest d = PartitionDigest.empty();
                    for (PartitionRecord r : records) {
                        d = d.plus(r.offset, r.value);
                    }
                    expected.put(topic + "-" + p, d);
                    archiveEnd.put(p, last(archived, p));
                });
        for (PartitionRecord r : read(topic, readCommitted)) {
            if (r.offset > archiveEnd.getOrDefault(r.partition, -1L)) {
                expected.merge(
                        r.partitionKey(),
                        PartitionDigest.empty().plus(r.offset, r.value),
                        (a, b) -> a.plus(r.offset, r.value));
            }
        }
        return expected;
    }

    /** Every record of the topic, in offset order per partition, as a plain consumer reads it. */
    private static List<PartitionRecord> read(String topic, boolean readCommitted) {
        return KAFKA.readAll(topic, readCommitted).stream()
                .map(r -> new PartitionRecord(r.topic(), r.partition(), r.offset(), r.value()))
                .toList();
    }

    /**
     * Waits until compaction left fewer than {@code atMost} records at or above {@code from} and
     * two reads a second apart see the same records (no cleaning under way).
     */
    private static void awaitStableCompaction(String topic, long from, int atMost)
            throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        Function<List<PartitionRecord>, List<String>> above =
                records ->
                        records.stream()
                                .filter(r -> r.offset >= from)
                                .map(r -> r.partitionKey() + "@" + r.offset)
                                .toList();
        List<String> before = above.apply(read(topic, false));
        while (true) {
            assertThat(System.nanoTime()).as("compaction of %s", topic).isLessThan(deadline);
            Thread.sleep(1_000);
            List<String> now = above.apply(read(topic, false));
            if (now.size() < atMost && now.equals(before)) {
                return;
            }
            before = now;
        }
    }
}
