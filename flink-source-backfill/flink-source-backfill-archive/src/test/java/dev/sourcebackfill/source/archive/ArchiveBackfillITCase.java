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
import dev.sourcebackfill.source.OffsetGapPolicy;
import dev.sourcebackfill.source.control.BackfillControl;
import dev.sourcebackfill.source.control.ControlFile;
import dev.sourcebackfill.source.kafka.KafkaBackfill;
import dev.sourcebackfill.source.kafka.KafkaTestEnvironment;
import dev.sourcebackfill.source.testutils.BackfillTestJobs;
import dev.sourcebackfill.source.testutils.FailOnce;
import dev.sourcebackfill.source.testutils.HistoryBeforeKafkaJob;
import dev.sourcebackfill.source.testutils.Observations;
import dev.sourcebackfill.source.testutils.ObservedSource;
import dev.sourcebackfill.source.testutils.PartitionChecker;
import dev.sourcebackfill.source.testutils.RecordPosition;
import dev.sourcebackfill.source.testutils.RestartCounter;
import dev.sourcebackfill.source.testutils.Throttle;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.common.serialization.SimpleStringSchema;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.connector.base.source.hybrid.HybridSource;
import org.apache.flink.connector.file.src.FileSource;
import org.apache.flink.connector.file.src.reader.TextLineInputFormat;
import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.ExceptionUtils;

import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.zip.GZIPOutputStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * History from an archive on the local file system, live from a real Kafka broker in this JVM,
 * handed over partition by partition. Every run is checked per partition from the job's
 * checkpointed state: every offset of the topic exactly once, in order, the archived ones read from
 * the archive and the rest from the topic.
 */
class ArchiveBackfillITCase {

    private static final RestartCounter RESTARTS = new RestartCounter();

    /** Values "A|partition|offset" from the archive, "K|partition|offset" from the topic. */
    private static final HistoryBeforeKafkaJob JOB =
            new HistoryBeforeKafkaJob("archive-and-topic", RecordPosition.delimited("A"), true);

    @RegisterExtension static final MiniClusterExtension CLUSTER = RESTARTS.miniCluster();

    @RegisterExtension static final KafkaTestEnvironment KAFKA = new KafkaTestEnvironment();

    @TempDir Path archive;

    /**
     * Partition 0's archive overlaps the topic (the topic still has every offset), partition 1's
     * meets it exactly (retention deleted what the archive holds), partition 2 has no archive; a
     * failure during the archive read restarts the job once.
     */
    @Test
    void overlappingAndAdjacentArchivesAndAPartitionWithoutOne() throws Exception {
        String topic = "orders-" + UUID.randomUUID();
        KAFKA.createTopic(topic, 3);
        produce(topic, 3, 1_000);
        archiveFile(topic, 0, 0, 300, false);
        archiveFile(topic, 0, 300, 600, true); // gzip, as the sinks can write
        archiveFile(topic, 1, 0, 250, false);
        archiveFile(topic, 1, 250, 400, false);
        KAFKA.deleteRecordsBelow(topic, 1, 400);

        String run = UUID.randomUUID().toString();
        JobClient job = JOB.run(run, source(topic)).failingOnceAt("A|0|350").start();
        job.getJobExecutionResult().get(120, TimeUnit.SECONDS);

        PartitionChecker.assertNoViolations(run);
        assertThat(progress(run, 0)).isEqualTo("1000 records, last 999, 600 from the archive");
        assertThat(progress(run, 1)).isEqualTo("1000 records, last 999, 400 from the archive");
        assertThat(progress(run, 2)).isEqualTo("1000 records, last 999, 0 from the archive");
        assertThat(FailOnce.fired(run)).as("failure during the archive read fired").isNotEmpty();
        assertThat(RESTARTS.failoversOf(job, Duration.ofSeconds(30))).as("restarts").isEqualTo(1);
    }

    /**
     * A stop-with-savepoint while the archive is read at parallelism 2, a restore at 3, and a
     * failure at the first record the topic delivers after partition 0's handover.
     */
    @Test
    void savepointDuringTheArchiveReadRestoreAtAnotherParallelismAndAFailureAtTheHandover(
            @TempDir Path savepoints) throws Exception {
        String topic = "restore-" + UUID.randomUUID();
        KAFKA.createTopic(topic, 4);
        produce(topic, 4, 2_000);
        for (int p = 0; p < 3; p++) {
            for (long from = 0; from < 1_200; from += 400) {
                archiveFile(topic, p, from, from + 400, false);
            }
        }
        KAFKA.deleteRecordsBelow(topic, 1, 1_200);

        String run = UUID.randomUUID().toString();
        JobClient first = JOB.run(run, source(topic)).throttle(500).start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (PartitionChecker.total(run) < 1_000) {
            assertThat(System.nanoTime()).as("some of the archive read").isLessThan(deadline);
            Thread.sleep(20);
        }
        String savepoint =
                first.stopWithSavepoint(
                                false, savepoints.toUri().toString(), SavepointFormatType.CANONICAL)
                        .get(60, TimeUnit.SECONDS);
        assertThat(PartitionChecker.fromHistory(run))
                .as("stopped while the archive is read")
                .isLessThan(3_600);

        JobClient second =
                JOB.run(run, source(topic))
                        .failingOnceAt("K|0|1200")
                        .parallelism(3)
                        .fromSavepoint(savepoint)
                        .start();
        second.getJobExecutionResult().get(120, TimeUnit.SECONDS);

        PartitionChecker.assertNoViolations(run);
        for (int p = 0; p < 3; p++) {
            assertThat(progress(run, p))
                    .isEqualTo("2000 records, last 1999, 1200 from the archive");
        }
        assertThat(progress(run, 3)).isEqualTo("2000 records, last 1999, 0 from the archive");
        assertThat(FailOnce.fired(run)).as("failure at the handover fired").isNotEmpty();
        assertThat(RESTARTS.failoversOf(second, Duration.ofSeconds(30)))
                .as("restarts")
                .isEqualTo(1);
    }

    @Test
    void aGapBetweenTheArchiveAndTheTopicFailsNamingThePartitionAndBothOffsets() throws Exception {
        String topic = "gap-" + UUID.randomUUID();
        KAFKA.createTopic(topic, 1);
        produce(topic, 1, 800);
        archiveFile(topic, 0, 0, 300, false);
        KAFKA.deleteRecordsBelow(topic, 0, 500);

        String run = UUID.randomUUID().toString();
        JobClient job = JOB.run(run, source(topic)).start();
        assertThatThrownBy(() -> job.getJobExecutionResult().get(120, TimeUnit.SECONDS))
                .satisfies(
                        e -> {
                            Optional<Throwable> gap =
                                    ExceptionUtils.findThrowableWithMessage(e, "Offset gap");
                            assertThat(gap).isPresent();
                            assertThat(gap.get().getMessage())
                                    .contains("split " + topic + "-0")
                                    .contains("every offset below 300")
                                    .contains("earliest available offset is 500")
                                    .contains("records 300..499 are lost");
                        });
        assertThat(RESTARTS.restartsOf(job.getJobID())).as("restarts").isZero();
    }

    /**
     * Told to skip gaps: the same gap goes on at the topic's earliest offset, nothing else lost.
     */
    @Test
    void aGapThatTheSourceIsToldToSkipGoesOnAtTheTopicsEarliestOffset() throws Exception {
        String topic = "skip-" + UUID.randomUUID();
        KAFKA.createTopic(topic, 2);
        produce(topic, 2, 800);
        archiveFile(topic, 0, 0, 300, false);
        archiveFile(topic, 1, 0, 300, false);
        KAFKA.deleteRecordsBelow(topic, 0, 500);

        String run = UUID.randomUUID().toString();
        JobClient job = JOB.run(run, source(topic, OffsetGapPolicy.SKIP)).start();
        job.getJobExecutionResult().get(120, TimeUnit.SECONDS);

        assertThat(PartitionChecker.duplicates(run)).isEmpty();
        assertThat(PartitionChecker.outOfOrder(run))
                .containsExactly("partition 0: offset 500 after 299");
        assertThat(progress(run, 0)).isEqualTo("600 records, last 799, 300 from the archive");
        assertThat(progress(run, 1)).isEqualTo("800 records, last 799, 300 from the archive");
        assertThat(RESTARTS.restartsOf(job, Duration.ofSeconds(30))).as("restarts").isZero();
    }

    @Test
    void anArchivePartitionTheTopicDoesNotHaveFailsAtTheStartNamingIt() throws Exception {
        String topic = "missing-" + UUID.randomUUID();
        KAFKA.createTopic(topic, 1);
        produce(topic, 1, 10);
        archiveFile(topic, 0, 0, 5, false);
        archiveFile(topic, 3, 0, 5, false);

        JobClient job = JOB.run(UUID.randomUUID().toString(), source(topic)).start();
        assertThatThrownBy(() -> job.getJobExecutionResult().get(120, TimeUnit.SECONDS))
                .satisfies(
                        e ->
                                assertThat(
                                                ExceptionUtils.findThrowableWithMessage(
                                                        e, "partition " + topic + "-3"))
                                        .isPresent());
    }

    /**
     * The same archive and topic read by this source and by Flink's {@code HybridSource} (a {@code
     * FileSource} over the archive, then a {@code KafkaSource} from the first offset after each
     * partition's archive), where partition 0's archive is a hundred times larger than the others':
     * here the small partitions' live records arrive before partition 0's archive is read; under
     * HybridSource no live record arrives before every archive file was read.
     */
    @Test
    void smallPartitionsAreLiveBeforeABigArchiveIsReadWhereHybridSourceWaitsForEveryFile()
            throws Exception {
        String topic = "skew-" + UUID.randomUUID();
        int partitions = 4;
        Map<Integer, Long> archiveEnd = Map.of(0, 40_000L, 1, 400L, 2, 400L, 3, 400L);
        KAFKA.createTopic(topic, partitions);
        KAFKA.produce(
                partitions,
                0,
                archiveEnd.get(0) + 200,
                (p, o) ->
                        o < archiveEnd.get(p) + 200
                                ? new ProducerRecord<>(topic, p, "k", "K|" + p + "|" + o)
                                : null);
        for (int p = 0; p < partitions; p++) {
            for (long from = 0; from < archiveEnd.get(p); from += 4_000) {
                archiveFile(topic, p, from, Math.min(archiveEnd.get(p), from + 4_000), false);
            }
        }

        String ours = UUID.randomUUID().toString();
        runToEnd(ours, source(topic));
        Map<TopicPartition, Long> starts = new HashMap<>();
        archiveEnd.forEach((p, end) -> starts.put(new TopicPartition(topic, p), end));
        HybridSource<String> hybrid =
                HybridSource.builder(
                                FileSource.forRecordStreamFormat(
                                                new TextLineInputFormat(),
                                                new org.apache.flink.core.fs.Path(
                                                        archive.resolve(topic).toUri()))
                                        .build())
                        .addSource(
                                KafkaSource.<String>builder()
                                        .setBootstrapServers(KAFKA.bootstrapServers())
                                        .setTopics(topic)
                                        .setValueOnlyDeserializer(new SimpleStringSchema())
                                        .setStartingOffsets(OffsetsInitializer.offsets(starts))
                                        .setBounded(OffsetsInitializer.latest())
                                        .build())
                        .build();
        String theirs = UUID.randomUUID().toString();
        runToEnd(theirs, hybrid);

        for (String run : new String[] {ours, theirs}) {
            for (int p = 0; p < partitions; p++) {
                assertThat(Arrival.count(run, "A", p))
                        .as("%s: archive records of partition %d", run, p)
                        .isEqualTo(archiveEnd.get(p));
                assertThat(Arrival.count(run, "K", p)).as("live records of %d", p).isEqualTo(200);
            }
        }
        long oursBigArchiveDone = Arrival.last(ours, "A", 0);
        for (int p = 1; p < partitions; p++) {
            assertThat(Arrival.first(ours, "K", p))
                    .as("this source: partition %d is live before partition 0's archive is read", p)
                    .isLessThan(oursBigArchiveDone);
        }
        long theirsArchiveDone = 0;
        for (int p = 0; p < partitions; p++) {
            theirsArchiveDone = Math.max(theirsArchiveDone, Arrival.last(theirs, "A", p));
        }
        for (int p = 1; p < partitions; p++) {
            assertThat(Arrival.first(theirs, "K", p))
                    .as("HybridSource: partition %d is live only after every archive file", p)
                    .isGreaterThan(theirsArchiveDone);
        }
    }

    // ------------------------------------------------------------------ chunks of history

    /**
     * Chunks of runs of whole files (300 lines: three files of 100) over two readers, with a
     * failure while a chunk is read: every offset once, the archived ones from the archive, the
     * chunks read by both readers. Partition 2's archive holds no more than a chunk: not cut.
     */
    @Test
    void chunksOfFileRunsAreReadByBothReadersWithAFailureDuringAChunk() throws Exception {
        String topic = "chunks-" + UUID.randomUUID();
        KAFKA.createTopic(topic, 3);
        produce(topic, 3, 1_200);
        for (int p = 0; p < 2; p++) {
            for (long from = 0; from < 1_000; from += 100) {
                archiveFile(topic, p, from, from + 100, from == 500);
            }
        }
        archiveFile(topic, 2, 0, 250, false);
        KAFKA.deleteRecordsBelow(topic, 1, 1_000);

        String run = UUID.randomUUID().toString();
        String sourceRun = UUID.randomUUID().toString();
        BackfillSource<String> source =
                builder(topic, OffsetGapPolicy.FAIL).setBackfillChunkSize(300).build();
        JobClient job =
                JOB.run(run, new ObservedSource<>(source, sourceRun))
                        .failingOnceAt("A|0|450")
                        .unordered()
                        .start();
        job.getJobExecutionResult().get(120, TimeUnit.SECONDS);

        PartitionChecker.assertNoViolations(run);
        for (int p = 0; p < 2; p++) {
            assertThat(progress(run, p))
                    .isEqualTo("1200 records, last 1199, 1000 from the archive");
        }
        assertThat(progress(run, 2)).isEqualTo("1200 records, last 1199, 250 from the archive");
        assertThat(FailOnce.fired(run)).as("failure during a chunk fired").isNotEmpty();
        assertThat(RESTARTS.failoversOf(job, Duration.ofSeconds(30))).as("restarts").isEqualTo(1);
        Map<String, List<Integer>> adds = Observations.of(sourceRun).splitAdds;
        // files start at 0, 100, ..., 900: chunks [0, 300), [300, 600), [600, 900); the split
        // itself keeps the last file
        assertThat(adds.keySet())
                .contains(
                        topic + "-0#chunk-0",
                        topic + "-0#chunk-1",
                        topic + "-0#chunk-2",
                        topic + "-1#chunk-2")
                .doesNotContain(topic + "-0#chunk-3", topic + "-2#chunk-0");
        // partition 0's history is read by both readers: its chunks by the one that does not
        // hold the partition itself, its last file and live records by the other
        int own = adds.get(topic + "-0").get(0);
        assertThat(
                        adds.entrySet().stream()
                                .filter(e -> e.getKey().startsWith(topic + "-0#"))
                                .flatMap(e -> e.getValue().stream())
                                .distinct())
                .as("readers of partition 0's chunks")
                .containsExactly(1 - own);
    }

    /**
     * A chunked archive that ends below the topic's earliest offset: the gap is at the partition's
     * own handover, as without chunks; failed by default, skipped when told to.
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(OffsetGapPolicy.class)
    void aChunkedArchivesGapToTheTopicFailsOrIsSkippedAsThePolicySays(OffsetGapPolicy policy)
            throws Exception {
        String topic = "chunk-gap-" + UUID.randomUUID();
        KAFKA.createTopic(topic, 1);
        produce(topic, 1, 800);
        for (long from = 0; from < 300; from += 100) {
            archiveFile(topic, 0, from, from + 100, false);
        }
        KAFKA.deleteRecordsBelow(topic, 0, 500);

        String run = UUID.randomUUID().toString();
        BackfillSource<String> source = builder(topic, policy).setBackfillChunkSize(100).build();
        JobClient job = JOB.run(run, source).unordered().start();
        if (policy == OffsetGapPolicy.FAIL) {
            assertThatThrownBy(() -> job.getJobExecutionResult().get(120, TimeUnit.SECONDS))
                    .satisfies(
                            e ->
                                    assertThat(
                                                    ExceptionUtils.findThrowableWithMessage(
                                                            e, "records 300..499 are lost"))
                                            .isPresent());
            assertThat(RESTARTS.restartsOf(job.getJobID())).as("restarts").isZero();
            return;
        }
        job.getJobExecutionResult().get(120, TimeUnit.SECONDS);
        PartitionChecker.assertNoViolations(run);
        assertThat(progress(run, 0)).isEqualTo("600 records, last 799, 300 from the archive");
        assertThat(RESTARTS.restartsOf(job, Duration.ofSeconds(30))).as("restarts").isZero();
    }

    /**
     * A chunked archive (counted offsets) whose files do not continue each other (offsets 200..249
     * in no file, at the end of a chunk): the job fails naming both files, under either gap policy.
     * With offsets counted from each file's start, such a gap cannot be told from offsets counted
     * wrong (a transactional topic archived without its offsets), so it is never skipped; chunks
     * change nothing to that.
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(OffsetGapPolicy.class)
    void aGapBetweenTheFilesOfAChunkedArchiveFailsNamingBothFilesUnderEitherPolicy(
            OffsetGapPolicy policy) throws Exception {
        String topic = "file-gap-" + UUID.randomUUID();
        KAFKA.createTopic(topic, 1);
        produce(topic, 1, 600);
        archiveFile(topic, 0, 0, 100, false);
        archiveFile(topic, 0, 100, 200, false);
        archiveFile(topic, 0, 250, 350, false);
        archiveFile(topic, 0, 350, 450, false);
        String run = UUID.randomUUID().toString();
        BackfillSource<String> source = builder(topic, policy).setBackfillChunkSize(100).build();
        JobClient job = JOB.run(run, source).unordered().start();
        // the task fails with the gap; without restarts, Flink may report instead that the
        // enumerator's acknowledgement of the failed task's last report was lost (the task was
        // gone): the job fails either way, and the message is ArchiveReaderTest's
        // countedOffsetsFailNamingBothFilesWhenAFileDoesNotContinueTheOneBefore
        assertThatThrownBy(() -> job.getJobExecutionResult().get(120, TimeUnit.SECONDS))
                .satisfies(
                        e -> {
                            Optional<Throwable> gap =
                                    ExceptionUtils.findThrowableWithMessage(
                                            e, "do not continue each other");
                            Optional<Throwable> lostAcknowledgement =
                                    ExceptionUtils.findThrowableWithMessage(
                                            e, "ReportAcknowledged");
                            assertThat(gap.isPresent() || lostAcknowledgement.isPresent())
                                    .as(
                                            "the job's failure: %s",
                                            ExceptionUtils.stringifyException(e))
                                    .isTrue();
                            gap.ifPresent(
                                    g ->
                                            assertThat(g.getMessage())
                                                    .contains(
                                                            String.format(
                                                                    "%s+0+%010d.json", topic, 100))
                                                    .contains(
                                                            String.format(
                                                                    "%s+0+%010d.json", topic, 250))
                                                    .contains("ends before offset 200"));
                        });
        assertThat(RESTARTS.restartsOf(job.getJobID())).as("restarts").isZero();
    }

    /**
     * A savepoint taken while chunks are read at parallelism 2, restored at 3 with a failure at
     * partition 0's first record from the topic.
     */
    @Test
    void aSavepointMidChunksRestoredAtAnotherParallelismWithAFailureAtTheHandover(
            @TempDir Path savepoints) throws Exception {
        String topic = "chunk-restore-" + UUID.randomUUID();
        KAFKA.createTopic(topic, 2);
        produce(topic, 2, 2_000);
        for (int p = 0; p < 2; p++) {
            for (long from = 0; from < 1_200; from += 200) {
                archiveFile(topic, p, from, from + 200, false);
            }
        }
        String run = UUID.randomUUID().toString();
        JobClient first =
                JOB.run(run, builder(topic, OffsetGapPolicy.FAIL).setBackfillChunkSize(200).build())
                        .throttle(400)
                        .unordered()
                        .start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (PartitionChecker.total(run) < 600) {
            assertThat(System.nanoTime()).as("some of the archive read").isLessThan(deadline);
            Thread.sleep(20);
        }
        String savepoint =
                first.stopWithSavepoint(
                                false, savepoints.toUri().toString(), SavepointFormatType.CANONICAL)
                        .get(60, TimeUnit.SECONDS);
        assertThat(PartitionChecker.fromHistory(run)).as("stopped mid-chunks").isLessThan(2_400);
        assertThat(RESTARTS.failoversOf(first, Duration.ofSeconds(30))).isZero();

        JobClient second =
                JOB.run(run, builder(topic, OffsetGapPolicy.FAIL).setBackfillChunkSize(200).build())
                        .failingOnceAt("K|0|1200")
                        .parallelism(3)
                        .fromSavepoint(savepoint)
                        .unordered()
                        .start();
        second.getJobExecutionResult().get(120, TimeUnit.SECONDS);
        PartitionChecker.assertNoViolations(run);
        for (int p = 0; p < 2; p++) {
            assertThat(progress(run, p))
                    .isEqualTo("2000 records, last 1999, 1200 from the archive");
        }
        assertThat(FailOnce.fired(run)).as("failure at the handover fired").isNotEmpty();
        assertThat(RESTARTS.failoversOf(second, Duration.ofSeconds(30)))
                .as("restarts")
                .isEqualTo(1);
    }

    // ------------------------------------------------------------------ steering the backfill

    /**
     * A backfill paused through its control file from the start: no archive record is read across
     * several completed checkpoints while the partition without an archive is read live in full;
     * once resumed, every offset once, the archived ones from the archive.
     */
    @Test
    void aPausedBackfillReadsNoHistoryWhileLiveRecordsFlowAndResumesExactlyOnce(
            @TempDir Path controls) throws Exception {
        String topic = "paused-" + UUID.randomUUID();
        KAFKA.createTopic(topic, 3);
        produce(topic, 3, 1_000);
        archiveFile(topic, 0, 0, 600, false);
        archiveFile(topic, 1, 0, 400, false);
        KAFKA.deleteRecordsBelow(topic, 1, 400);
        ControlFile control = new ControlFile(controls.resolve("backfill.control").toString());
        control.write(BackfillControl.asBuilt().withPaused(true));

        String run = UUID.randomUUID().toString();
        String sourceRun = UUID.randomUUID().toString();
        JobClient job =
                JOB.run(run, new ObservedSource<>(controlled(topic, control), sourceRun)).start();
        Observations source = Observations.of(sourceRun);
        BackfillTestJobs.await(
                "partition 2 read live in full",
                Duration.ofSeconds(60),
                () -> progress(run, 2).equals("1000 records, last 999, 0 from the archive"));
        awaitMoreCheckpoints(source, 3);
        assertThat(PartitionChecker.fromHistory(run)).as("archive records while paused").isZero();
        assertThat(progress(run, 0)).as("a backfilling partition while paused").isEqualTo("null");

        control.write(BackfillControl.asBuilt());
        job.getJobExecutionResult().get(120, TimeUnit.SECONDS);

        PartitionChecker.assertNoViolations(run);
        assertThat(progress(run, 0)).isEqualTo("1000 records, last 999, 600 from the archive");
        assertThat(progress(run, 1)).isEqualTo("1000 records, last 999, 400 from the archive");
        assertThat(progress(run, 2)).isEqualTo("1000 records, last 999, 0 from the archive");
        assertThat(RESTARTS.failoversOf(job, Duration.ofSeconds(30))).as("restarts").isZero();
    }

    /**
     * A failure while paused (at a live record): the restarted readers read no history before the
     * enumerator's control came, and it is still "paused". Then a stop-with-savepoint while paused,
     * the control file deleted, and a restore at another parallelism: the pause is in the
     * enumerator's checkpoint and holds; a new file resumes it, and every offset comes once.
     */
    @Test
    void aFailoverAndARestoreAtAnotherParallelismWhilePausedKeepThePause(
            @TempDir Path controls, @TempDir Path savepoints) throws Exception {
        String topic = "paused-restore-" + UUID.randomUUID();
        KAFKA.createTopic(topic, 4);
        produce(topic, 4, 2_000);
        for (int p = 0; p < 3; p++) {
            for (long from = 0; from < 1_200; from += 400) {
                archiveFile(topic, p, from, from + 400, false);
            }
        }
        KAFKA.deleteRecordsBelow(topic, 1, 1_200);
        ControlFile control = new ControlFile(controls.resolve("backfill.control").toString());
        control.write(BackfillControl.asBuilt().withRate(200).withPaused(true));

        String run = UUID.randomUUID().toString();
        String firstRun = UUID.randomUUID().toString();
        JobClient first =
                JOB.run(run, new ObservedSource<>(controlled(topic, control), firstRun))
                        .failingOnceAt("K|3|500")
                        .start();
        BackfillTestJobs.await(
                "partition 3 read live in full after the failure",
                Duration.ofSeconds(60),
                () ->
                        FailOnce.fired(run).contains("K|3|500")
                                && progress(run, 3)
                                        .equals("2000 records, last 1999, 0 from the archive"));
        awaitMoreCheckpoints(Observations.of(firstRun), 3);
        assertThat(PartitionChecker.fromHistory(run))
                .as("archive records while paused, across a failover")
                .isZero();
        String savepoint =
                first.stopWithSavepoint(
                                false, savepoints.toUri().toString(), SavepointFormatType.CANONICAL)
                        .get(60, TimeUnit.SECONDS);
        assertThat(RESTARTS.failoversOf(first, Duration.ofSeconds(30)))
                .as("restarts of the first job")
                .isEqualTo(1);

        Files.delete(controls.resolve("backfill.control"));
        String secondRun = UUID.randomUUID().toString();
        JobClient second =
                JOB.run(run, new ObservedSource<>(controlled(topic, control), secondRun))
                        .parallelism(3)
                        .fromSavepoint(savepoint)
                        .start();
        awaitMoreCheckpoints(Observations.of(secondRun), 3);
        assertThat(PartitionChecker.fromHistory(run))
                .as("archive records after a restore from a savepoint taken while paused")
                .isZero();

        control.write(BackfillControl.asBuilt());
        second.getJobExecutionResult().get(120, TimeUnit.SECONDS);
        PartitionChecker.assertNoViolations(run);
        for (int p = 0; p < 3; p++) {
            assertThat(progress(run, p))
                    .isEqualTo("2000 records, last 1999, 1200 from the archive");
        }
        assertThat(progress(run, 3)).isEqualTo("2000 records, last 1999, 0 from the archive");
        assertThat(RESTARTS.failoversOf(second, Duration.ofSeconds(30)))
                .as("restarts of the restored job")
                .isZero();
    }

    private BackfillSource<String> controlled(String topic, ControlFile control) {
        return builder(topic, OffsetGapPolicy.FAIL)
                .setBackfillControlFile(control.path().toString())
                .setBackfillControlInterval(Duration.ofMillis(100))
                .build();
    }

    /** Waits until the readers were told of {@code more} completed checkpoints than now. */
    private static void awaitMoreCheckpoints(Observations source, int more)
            throws InterruptedException {
        int now = source.completedCheckpoints.size();
        BackfillTestJobs.await(
                more + " more completed checkpoints",
                Duration.ofSeconds(60),
                () -> source.completedCheckpoints.size() >= now + more);
    }

    // ------------------------------------------------------------------ helpers

    private BackfillSource<String> source(String topic) {
        return source(topic, OffsetGapPolicy.FAIL);
    }

    private BackfillSource<String> source(String topic, OffsetGapPolicy gapPolicy) {
        return builder(topic, gapPolicy).build();
    }

    private ArchiveBackfillSourceBuilder<String> builder(String topic, OffsetGapPolicy gapPolicy) {
        return ArchiveBackfill.<String>sourceBuilder()
                .setOffsetGapPolicy(gapPolicy)
                .setArchive(archive.toUri().toString())
                .setFormat(ArchiveFormat.lines(new SimpleStringSchema()))
                .setMaxRecordsPerPoll(50)
                .setLive(
                        KafkaBackfill.<String>sourceBuilder()
                                .setBootstrapServers(KAFKA.bootstrapServers())
                                .setTopics(topic)
                                .setValueOnlyDeserializer(new SimpleStringSchema())
                                .setStartingOffsets(OffsetsInitializer.earliest())
                                .setBounded(OffsetsInitializer.latest()));
    }

    /**
     * A partition's progress as the checker's state has it: "N records, last L, A from the
     * archive", or "null" if none came.
     */
    private static String progress(String run, int partition) {
        PartitionChecker.Progress progress = PartitionChecker.progress(run).get(partition);
        return progress == null
                ? "null"
                : progress.count()
                        + " records, last "
                        + PartitionChecker.lastOffsets(run).get(partition)
                        + ", "
                        + progress.fromHistory()
                        + " from the archive";
    }

    /** Values "K|partition|offset"; offsets are 0.. in produce order (no transactions). */
    private static void produce(String topic, int partitions, int perPartition) throws Exception {
        KAFKA.produce(
                partitions,
                0,
                perPartition,
                (p, o) -> new ProducerRecord<>(topic, p, "k", "K|" + p + "|" + o));
    }

    /** Runs a bounded job over the source to its end, recording the order records arrive in. */
    private static void runToEnd(String run, Source<String, ?, ?> source) throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        env.enableCheckpointing(200);
        Configuration conf = new Configuration();
        conf.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
        env.configure(conf);
        env.fromSource(source, WatermarkStrategy.noWatermarks(), "skewed", Types.STRING)
                .map(new Throttle<>(20_000))
                .map(new Arrival(run))
                .sinkTo(new DiscardingSink<>());
        env.execute("skewed " + run);
    }

    /**
     * Gives each record the next number of one counter of the run, and keeps per source ("A" or
     * "K") and partition the first and last number and the count.
     */
    static final class Arrival implements MapFunction<String, String> {
        static final Map<String, AtomicLong> SEQUENCE = new ConcurrentHashMap<>();

        /** run -> "A|p" or "K|p" -> what arrived of it. */
        static final Map<String, Map<String, Seen>> SEEN = new ConcurrentHashMap<>();

        private final String run;

        Arrival(String run) {
            this.run = run;
        }

        @Override
        public String map(String value) {
            String[] parts = value.split("\\|");
            long seq = SEQUENCE.computeIfAbsent(run, k -> new AtomicLong()).incrementAndGet();
            SEEN.computeIfAbsent(run, k -> new ConcurrentHashMap<>())
                    .compute(
                            parts[0] + "|" + parts[1],
                            (k, v) ->
                                    v == null
                                            ? new Seen(seq, seq, 1)
                                            : new Seen(v.first, seq, v.count + 1));
            return value;
        }

        /** The first and last arrival numbers and the count of one kind of one partition. */
        record Seen(long first, long last, long count) {}

        private static Seen of(String run, String kind, int p) {
            return SEEN.getOrDefault(run, Map.of()).getOrDefault(kind + "|" + p, new Seen(0, 0, 0));
        }

        static long first(String run, String kind, int p) {
            return of(run, kind, p).first();
        }

        static long last(String run, String kind, int p) {
            return of(run, kind, p).last();
        }

        static long count(String run, String kind, int p) {
            return of(run, kind, p).count();
        }
    }

    /** A file of the Kafka Connect layout holding "A|partition|offset" for [from, to). */
    private void archiveFile(String topic, int partition, long from, long to, boolean gzip)
            throws IOException {
        Path dir = archive.resolve(topic).resolve("partition=" + partition);
        Files.createDirectories(dir);
        StringBuilder lines = new StringBuilder();
        for (long o = from; o < to; o++) {
            lines.append("A|").append(partition).append('|').append(o).append('\n');
        }
        byte[] bytes = lines.toString().getBytes(StandardCharsets.UTF_8);
        Path file =
                dir.resolve(
                        String.format(
                                "%s+%d+%010d.json%s", topic, partition, from, gzip ? ".gz" : ""));
        if (gzip) {
            try (var out = new GZIPOutputStream(Files.newOutputStream(file))) {
                out.write(bytes);
            }
        } else {
            Files.write(file, bytes);
        }
    }
}
