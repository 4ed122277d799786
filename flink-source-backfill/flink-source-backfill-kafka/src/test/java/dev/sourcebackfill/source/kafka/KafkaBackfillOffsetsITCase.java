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

import dev.sourcebackfill.source.BackfillSource;
import dev.sourcebackfill.source.OffsetGapPolicy;
import dev.sourcebackfill.source.kafka.KafkaBackfillJobs.Run;
import dev.sourcebackfill.source.testutils.BackfillTestJobs;
import dev.sourcebackfill.source.testutils.Observations;
import dev.sourcebackfill.source.testutils.RestartCounter;

import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.ExceptionUtils;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.OffsetResetStrategy;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static dev.sourcebackfill.source.kafka.KafkaBackfillJobs.assertSound;
import static dev.sourcebackfill.source.kafka.KafkaBackfillJobs.awaitDigests;
import static dev.sourcebackfill.source.kafka.KafkaBackfillJobs.awaitWhileRunning;
import static dev.sourcebackfill.source.kafka.KafkaTestEnvironment.total;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The Kafka adapter against a real broker started in this JVM. Every run is checked against the log
 * itself: per partition, the records the job's checkpointed state saw (count, last offset, checksum
 * of offsets and values, strictly increasing offsets) equal what a plain consumer reads from the
 * topic afterwards with the same isolation level; and every job restarted exactly as often as the
 * failures injected into it make it restart.
 *
 * <p>Where the reads start and stop and what the topic holds: starting offsets (a timestamp,
 * committed offsets, beyond a partition's end, below the log's start under each reset strategy and
 * gap policy), stopping offsets, transactions under {@code read_committed}, a compacted topic with
 * holes; SASL settings; and jobs that fail naming what is wrong (an unknown topic, an unreachable
 * cluster, a rejected record, a start offset deleted by retention). Failures, restores, chunks and
 * partitions added are {@link KafkaBackfillFailoverITCase}'s.
 */
class KafkaBackfillOffsetsITCase {

    /** Counts every job's restarts: each test checks them against the failures it injected. */
    private static final RestartCounter RESTARTS = new RestartCounter();

    @RegisterExtension static final MiniClusterExtension MINI_CLUSTER = RESTARTS.miniCluster();

    @RegisterExtension static final KafkaTestEnvironment KAFKA = new KafkaTestEnvironment();

    /** Starts this class's jobs; cancels those still running after a test. */
    @RegisterExtension static final KafkaBackfillJobs JOBS = new KafkaBackfillJobs(KAFKA, RESTARTS);

    @Test
    void readCommittedSkipsAbortedTransactionsAndEndsOnAPartitionWhoseLastOffsetIsAMarker()
            throws Exception {
        String topic = "tx-" + UUID.randomUUID();
        KAFKA.createTopic(topic, 2);
        KAFKA.produceTransactions(
                "tx-" + topic,
                0,
                20,
                round -> {
                    boolean abort = round % 3 == 1;
                    List<ProducerRecord<String, String>> records = new ArrayList<>();
                    for (int i = 0; i < 50; i++) {
                        int seq = round * 50 + i;
                        records.add(
                                new ProducerRecord<>(
                                        topic,
                                        i % 2,
                                        "k" + i,
                                        (abort ? "aborted-" : "committed-") + seq));
                    }
                    return records;
                },
                round -> round % 3 == 1);
        // the last offset of each partition is now a commit marker: no record at end - 1
        Run run = new Run();
        BackfillSource<PartitionRecord> source =
                JOBS.builder(topic)
                        .setProperty(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed")
                        .setBounded(OffsetsInitializer.latest())
                        .build();
        JobClient job = JOBS.start(run, source, 2, List.of());
        job.getJobExecutionResult().get(120, TimeUnit.SECONDS);

        Map<String, PartitionDigest> truth = KAFKA.digests(topic, true);
        // 7 of the 20 transactions (rounds 1, 4, ..., 19) were aborted
        assertThat(total(truth)).isEqualTo(13 * 50L);
        assertThat(KafkaExactlyOnceChecker.digests(run.checker)).isEqualTo(truth);
        assertSound(run);
        JOBS.assertRestarts(run);
    }

    @Test
    void aCompactedTopicWithHolesIsHandedOverOnThePosition() throws Exception {
        String topic = "compacted-" + UUID.randomUUID();
        KAFKA.createTopic(topic, 2, KafkaTestEnvironment.compactedQuickly());
        // few keys, many updates: compaction leaves holes all over the history
        KAFKA.produceOneByOne(
                1,
                0,
                3_000,
                (ignored, i) ->
                        new ProducerRecord<>(topic, (int) i % 2, "key-" + (i % 10), "v" + i));
        BackfillTestJobs.await(
                "compaction",
                Duration.ofSeconds(60),
                () -> total(KAFKA.digests(topic, false)) < 2_000);
        Run run = new Run();
        JobClient job = JOBS.start(run, JOBS.builder(topic).build(), 2, List.of());
        KAFKA.produceOneByOne(
                1,
                3_000,
                3_400,
                (ignored, i) ->
                        new ProducerRecord<>(topic, (int) i % 2, "key-" + (i % 10), "v" + i));
        BackfillTestJobs.await(
                "forward mode",
                Duration.ofSeconds(60),
                () -> Observations.of(run.source).anyForwardMode());
        // compaction may go on while the job runs, so compare what the job saw with what the
        // log held for those offsets: strictly increasing, and at the end exactly what remains
        // beyond the last compacted point is not stable; check order and the live tail instead
        BackfillTestJobs.await(
                "live tail read",
                Duration.ofSeconds(60),
                () ->
                        KafkaExactlyOnceChecker.digests(run.checker).values().stream()
                                .allMatch(d -> d.lastOffset >= 1_699));
        job.cancel().get(30, TimeUnit.SECONDS);
        assertSound(run);
        JOBS.assertRestarts(run);
    }

    @Test
    void backfillStartsAtATimestampAndABoundedJobStopsAtGivenOffsets() throws Exception {
        String topic = "ranges-" + UUID.randomUUID();
        // the records carry old timestamps: without retention.ms=-1 the broker's time retention
        // deletes them while the job starts
        KAFKA.createTopic(topic, 2, Map.of("retention.ms", "-1"));
        long base = 1_700_000_000_000L;
        // record i has timestamp base + i seconds, in both partitions
        KAFKA.produceOneByOne(
                2,
                0,
                200,
                (p, i) ->
                        new ProducerRecord<>(topic, p, base + i * 1_000L, "k", "v" + p + "-" + i));
        TopicPartition p0 = new TopicPartition(topic, 0);
        TopicPartition p1 = new TopicPartition(topic, 1);
        Run run = new Run();
        BackfillSource<PartitionRecord> source =
                JOBS.builder(topic)
                        .setStartingOffsets(OffsetsInitializer.timestamp(base + 50_000L))
                        .setBounded(OffsetsInitializer.offsets(Map.of(p0, 120L, p1, 200L)))
                        .build();
        JOBS.start(run, source, 2, List.of()).getJobExecutionResult().get(120, TimeUnit.SECONDS);
        Map<String, PartitionDigest> expected = new HashMap<>();
        expected.put(topic + "-0", KAFKA.digestOf(topic, 0, 50, 120));
        expected.put(topic + "-1", KAFKA.digestOf(topic, 1, 50, 200));
        assertThat(KafkaExactlyOnceChecker.digests(run.checker)).isEqualTo(expected);
        assertSound(run);
        JOBS.assertRestarts(run);
    }

    @Test
    void aSecondJobStartsWhereTheFirstCommittedItsOffsets() throws Exception {
        String topic = "resume-" + UUID.randomUUID();
        String group = "resume-group-" + topic;
        KAFKA.createTopic(topic, 2);
        JOBS.produce(topic, 2, 0, 400);
        Run first = new Run();
        JobClient job =
                JOBS.start(
                        first,
                        JOBS.builder(topic)
                                .setGroupId(group)
                                .setCommitOffsetsOnCheckpoint(true)
                                .build(),
                        2,
                        List.of());
        awaitDigests(first, KAFKA.digests(topic, false), job);
        BackfillTestJobs.await(
                "offsets committed",
                Duration.ofSeconds(30),
                () ->
                        KAFKA.committedOffsets(group, topic)
                                .equals(
                                        Map.of(
                                                new TopicPartition(topic, 0),
                                                400L,
                                                new TopicPartition(topic, 1),
                                                400L)));
        job.cancel().get(30, TimeUnit.SECONDS);

        JOBS.produce(topic, 2, 400, 100);
        Run second = new Run();
        BackfillSource<PartitionRecord> resumed =
                JOBS.builder(topic)
                        .setGroupId(group)
                        .setStartingOffsets(OffsetsInitializer.committedOffsets())
                        .setBounded(OffsetsInitializer.latest())
                        .build();
        JOBS.start(second, resumed, 2, List.of())
                .getJobExecutionResult()
                .get(120, TimeUnit.SECONDS);
        assertThat(KafkaExactlyOnceChecker.digests(second.checker))
                .isEqualTo(
                        Map.of(
                                topic + "-0",
                                KAFKA.digestOf(topic, 0, 400, 500),
                                topic + "-1",
                                KAFKA.digestOf(topic, 1, 400, 500)));
        JOBS.assertRestarts(first, second);
    }

    @Test
    void anUnreachableClusterFailsTheJobNamingTheServers() throws Exception {
        String servers;
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            servers = "127.0.0.1:" + socket.getLocalPort();
        }
        Run run = new Run();
        BackfillSource<PartitionRecord> source =
                JOBS.builder("orders")
                        .setBootstrapServers(servers)
                        .setProperty("request.timeout.ms", "1000")
                        .setProperty("default.api.timeout.ms", "2000")
                        .build();
        JobClient job = JOBS.start(run, source, 1, List.of());
        assertThatThrownBy(() -> job.getJobExecutionResult().get(120, TimeUnit.SECONDS))
                .satisfies(
                        e ->
                                assertThat(ExceptionUtils.stringifyException(e))
                                        .contains("Kafka at " + servers + " did not answer")
                                        .contains("[orders]"));
        JOBS.assertRestarts(run);
    }

    @Test
    void anUnknownTopicFailsTheJobNamingTheTopic() throws Exception {
        String topic = "missing-" + UUID.randomUUID();
        Run run = new Run();
        JobClient job = JOBS.start(run, JOBS.builder(topic).build(), 1, List.of());
        assertThatThrownBy(() -> job.getJobExecutionResult().get(120, TimeUnit.SECONDS))
                .satisfies(
                        e ->
                                assertThat(ExceptionUtils.stringifyException(e))
                                        .contains(topic)
                                        .contains("does not exist"));
        JOBS.assertRestarts(run);
    }

    @Test
    void aRecordTheDeserializerRejectsFailsTheJobNamingTopicPartitionAndOffset() throws Exception {
        String topic = "poison-" + UUID.randomUUID();
        KAFKA.createTopic(topic, 1);
        KAFKA.produce(
                1,
                0,
                10,
                (p, i) -> new ProducerRecord<>(topic, p, "k", i == 7 ? "poison" : "v" + i));
        Run run = new Run();
        JobClient job =
                JOBS.start(
                        run,
                        JOBS.builder(topic).setBounded(OffsetsInitializer.latest()).build(),
                        1,
                        List.of());
        assertThatThrownBy(() -> job.getJobExecutionResult().get(120, TimeUnit.SECONDS))
                .satisfies(
                        e ->
                                assertThat(ExceptionUtils.stringifyException(e))
                                        .contains("offset 7 of topic " + topic + " partition 0"));
        JOBS.assertRestarts(run);
    }

    @Test
    void aStartOffsetDeletedByRetentionFailsNamingPartitionAndOffsets() throws Exception {
        String topic = "retention-" + UUID.randomUUID();
        KAFKA.createTopic(topic, 1);
        JOBS.produce(topic, 1, 0, 100);
        TopicPartition tp = new TopicPartition(topic, 0);
        KAFKA.deleteRecordsBelow(topic, 0, 50);
        Run run = new Run();
        BackfillSource<PartitionRecord> source =
                JOBS.builder(topic)
                        // no reset strategy: the gap fails the job (the default gap policy)
                        .setStartingOffsets(
                                OffsetsInitializer.offsets(
                                        Map.of(tp, 10L), OffsetResetStrategy.NONE))
                        .build();
        JobClient job = JOBS.start(run, source, 1, List.of());
        assertThatThrownBy(() -> job.getJobExecutionResult().get(120, TimeUnit.SECONDS))
                .satisfies(
                        e ->
                                assertThat(ExceptionUtils.stringifyException(e))
                                        .contains("Partition " + topic + "-0")
                                        .contains("offset 10")
                                        .contains("starts at 50"));
        JOBS.assertRestarts(run);
    }

    @Test
    void saslSettingsReachBothConsumersAndNoSecretIsEverLoggedOrInAnError() throws Exception {
        String topic = "secure-" + UUID.randomUUID();
        KAFKA.createTopic(topic, 2);
        JOBS.produce(topic, 2, 0, 300);
        String wrongPassword = "wrong-pw-0c41b2aa-never-log-me";
        String keystorePassword = "ks-pw-93d1e7b0-never-log-me";
        String failure;
        Run run = new Run();
        Run refusedRun = new Run();
        try (LogCapture logs = new LogCapture()) {
            // right credentials: the whole topic is read through the SASL listener
            JobClient job =
                    JOBS.start(
                            run,
                            saslBuilder(topic, InProcessKafka.SASL_PASSWORD, keystorePassword)
                                    .build(),
                            2,
                            List.of());
            job.getJobExecutionResult().get(120, TimeUnit.SECONDS);
            // wrong credentials: the job fails, saying so without the password
            JobClient refused =
                    JOBS.start(
                            refusedRun,
                            saslBuilder(topic, wrongPassword, keystorePassword).build(),
                            1,
                            List.of());
            try {
                refused.getJobExecutionResult().get(120, TimeUnit.SECONDS);
                failure = null;
            } catch (Exception e) {
                failure = ExceptionUtils.stringifyException(e);
            }
            String captured = logs.all();
            // the capture saw our lines and Kafka's config dumps, so its silence means something
            assertThat(captured)
                    .contains("Kafka partition " + topic + "-0: backfill offsets")
                    .contains("sasl.jaas.config");
            assertThat(captured)
                    .doesNotContain(InProcessKafka.SASL_PASSWORD)
                    .doesNotContain(wrongPassword)
                    .doesNotContain(keystorePassword);
        }
        assertThat(KafkaExactlyOnceChecker.digests(run.checker))
                .isEqualTo(KAFKA.digests(topic, false));
        assertThat(failure)
                .as("the job with a wrong password failed")
                .isNotNull()
                .containsIgnoringCase("authentication");
        assertThat(failure).doesNotContain(wrongPassword).doesNotContain(keystorePassword);
        JOBS.assertRestarts(run, refusedRun);
    }

    @Test
    void aStartOffsetBeyondThePartitionsEndIsReadOnceThePartitionReachesIt() throws Exception {
        String topic = "ahead-" + UUID.randomUUID();
        KAFKA.createTopic(topic, 2);
        JOBS.produce(topic, 2, 0, 100);
        TopicPartition p0 = new TopicPartition(topic, 0);
        TopicPartition p1 = new TopicPartition(topic, 1);
        Run run = new Run();
        try (LogCapture logs = new LogCapture()) {
            // partition 0 ends at 100 and starts at 150; partition 1 is backfilled from 40
            BackfillSource<PartitionRecord> source =
                    JOBS.builder(topic)
                            .setStartingOffsets(
                                    OffsetsInitializer.offsets(Map.of(p0, 150L, p1, 40L)))
                            .build();
            JobClient job = JOBS.start(run, source, 2, List.of());
            String waiting =
                    "Partition "
                            + topic
                            + "-0: the live consumer waits until the partition reaches offset 150";
            awaitWhileRunning(
                    "partition 1 backfilled and partition 0 waiting",
                    job,
                    () ->
                            logs.all().contains(waiting)
                                    && KafkaExactlyOnceChecker.digests(run.checker)
                                                    .getOrDefault(
                                                            topic + "-1", PartitionDigest.empty())
                                                    .count
                                            == 60);
            // the end moves to 130: still nothing of partition 0
            JOBS.produce(topic, 2, 100, 30);
            awaitWhileRunning(
                    "partition 1 read up to 129",
                    job,
                    () ->
                            KafkaExactlyOnceChecker.digests(run.checker)
                                            .getOrDefault(topic + "-1", PartitionDigest.empty())
                                            .lastOffset
                                    == 129);
            assertThat(KafkaExactlyOnceChecker.digests(run.checker))
                    .doesNotContainKey(topic + "-0");
            // the end moves to 200: partition 0 is read from 150 on
            JOBS.produce(topic, 2, 130, 70);
            Map<String, PartitionDigest> expected = new HashMap<>();
            expected.put(topic + "-0", KAFKA.digestOf(topic, 0, 150, 200));
            expected.put(topic + "-1", KAFKA.digestOf(topic, 1, 40, 200));
            awaitDigests(run, expected, job);
            job.cancel().get(30, TimeUnit.SECONDS);
            assertSound(run);
            JOBS.assertRestarts(run);
            // one line per decision and partition: nothing to backfill, then the wait
            assertThat(
                            linesContaining(
                                    logs,
                                    "Kafka partition "
                                            + topic
                                            + "-0: start offset 150 is beyond its end offset 100"))
                    .isEqualTo(1);
            assertThat(linesContaining(logs, waiting)).isEqualTo(1);
            assertThat(linesContaining(logs, "Kafka partition " + topic + "-1: start offset"))
                    .isZero();
            assertThat(linesContaining(logs, "Partition " + topic + "-1: the live consumer waits"))
                    .isZero();
        }
    }

    /**
     * A one-partition topic of offsets 0..99 whose log starts at 50 now, and the group's committed
     * offset 10 below that.
     */
    private static TopicPartition committedBelowTheLogsStart(String topic, String group)
            throws Exception {
        KAFKA.createTopic(topic, 1);
        JOBS.produce(topic, 1, 0, 100);
        KAFKA.commitOffset(group, topic, 0, 10L);
        KAFKA.deleteRecordsBelow(topic, 0, 50);
        return new TopicPartition(topic, 0);
    }

    /**
     * A starting offset below the log's start follows the starting offsets' reset strategy, as
     * Flink's Kafka source does: {@code OffsetsInitializer.offsets(map)} resets to the earliest
     * offset, and so does a committed offset with {@code committedOffsets(EARLIEST)}.
     */
    @Test
    void aStartBelowTheLogsStartFollowsTheStartingOffsetsResetStrategy() throws Exception {
        String topic = "reset-" + UUID.randomUUID();
        String group = "reset-group-" + topic;
        TopicPartition tp = committedBelowTheLogsStart(topic, group);
        Map<String, PartitionDigest> fromTheLogsStart =
                Map.of(topic + "-0", KAFKA.digestOf(topic, 0, 50, 100));

        Run specific = new Run();
        JOBS.start(
                        specific,
                        JOBS.builder(topic)
                                .setStartingOffsets(OffsetsInitializer.offsets(Map.of(tp, 10L)))
                                .setBounded(OffsetsInitializer.latest())
                                .build(),
                        1,
                        List.of())
                .getJobExecutionResult()
                .get(120, TimeUnit.SECONDS);
        assertThat(KafkaExactlyOnceChecker.digests(specific.checker)).isEqualTo(fromTheLogsStart);

        Run committed = new Run();
        JOBS.start(
                        committed,
                        JOBS.builder(topic)
                                .setGroupId(group)
                                .setStartingOffsets(
                                        OffsetsInitializer.committedOffsets(
                                                OffsetResetStrategy.EARLIEST))
                                .setBounded(OffsetsInitializer.latest())
                                .build(),
                        1,
                        List.of())
                .getJobExecutionResult()
                .get(120, TimeUnit.SECONDS);
        assertThat(KafkaExactlyOnceChecker.digests(committed.checker)).isEqualTo(fromTheLogsStart);
        JOBS.assertRestarts(specific, committed);
    }

    /**
     * With no reset strategy (a committed offset below the log's start), the gap fails the job by
     * default, and told to skip gaps the source starts at the log's start.
     */
    @Test
    void aCommittedStartBelowTheLogsStartWithoutResetFailsOrIsSkippedAsTheGapPolicySays()
            throws Exception {
        String topic = "no-reset-" + UUID.randomUUID();
        String group = "no-reset-group-" + topic;
        committedBelowTheLogsStart(topic, group);
        KafkaBackfillSourceBuilder<PartitionRecord> committed =
                JOBS.builder(topic)
                        .setGroupId(group)
                        .setStartingOffsets(OffsetsInitializer.committedOffsets())
                        .setBounded(OffsetsInitializer.latest());

        Run failing = new Run();
        JobClient job = JOBS.start(failing, committed.build(), 1, List.of());
        assertThatThrownBy(() -> job.getJobExecutionResult().get(120, TimeUnit.SECONDS))
                .satisfies(
                        e ->
                                assertThat(ExceptionUtils.stringifyException(e))
                                        .contains("Partition " + topic + "-0")
                                        .contains("offset 10")
                                        .contains("starts at 50"));

        Run skipping = new Run();
        JOBS.start(
                        skipping,
                        committed.setOffsetGapPolicy(OffsetGapPolicy.SKIP).build(),
                        1,
                        List.of())
                .getJobExecutionResult()
                .get(120, TimeUnit.SECONDS);
        assertThat(KafkaExactlyOnceChecker.digests(skipping.checker))
                .isEqualTo(Map.of(topic + "-0", KAFKA.digestOf(topic, 0, 50, 100)));
        JOBS.assertRestarts(failing, skipping);
    }

    /**
     * A stopping offset below the starting offset reads nothing of that partition, as Flink's Kafka
     * source does; the other partitions are read as usual and the bounded job ends.
     */
    @Test
    void aStoppingOffsetBelowTheStartingOffsetReadsNothingOfThatPartition() throws Exception {
        String topic = "empty-range-" + UUID.randomUUID();
        KAFKA.createTopic(topic, 2);
        JOBS.produce(topic, 2, 0, 10);
        TopicPartition p0 = new TopicPartition(topic, 0);
        TopicPartition p1 = new TopicPartition(topic, 1);
        Run run = new Run();
        JOBS.start(
                        run,
                        JOBS.builder(topic)
                                .setStartingOffsets(
                                        OffsetsInitializer.offsets(Map.of(p0, 5L, p1, 2L)))
                                .setBounded(OffsetsInitializer.offsets(Map.of(p0, 3L, p1, 8L)))
                                .build(),
                        2,
                        List.of())
                .getJobExecutionResult()
                .get(120, TimeUnit.SECONDS);
        assertThat(KafkaExactlyOnceChecker.digests(run.checker))
                .isEqualTo(Map.of(topic + "-1", KAFKA.digestOf(topic, 1, 2, 8)));
        JOBS.assertRestarts(run);
    }

    private static long linesContaining(LogCapture logs, String text) {
        return logs.lines.stream().filter(line -> line.contains(text)).count();
    }

    private static KafkaBackfillSourceBuilder<PartitionRecord> saslBuilder(
            String topic, String password, String keystorePassword) {
        return JOBS.builder(topic)
                .setBootstrapServers(KAFKA.saslBootstrapServers())
                .setBounded(OffsetsInitializer.latest())
                .setProperty("security.protocol", "SASL_PLAINTEXT")
                .setProperty("sasl.mechanism", "PLAIN")
                .setProperty(
                        "sasl.jaas.config",
                        "org.apache.kafka.common.security.plain.PlainLoginModule required username=\""
                                + InProcessKafka.SASL_USER
                                + "\" password=\""
                                + password
                                + "\";")
                // not used by SASL_PLAINTEXT, but passed through: must not be shown either
                .setProperty("ssl.keystore.password", keystorePassword);
    }
}
