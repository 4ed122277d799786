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
import dev.sourcebackfill.source.enumerator.BackfillEnumeratorState;
import dev.sourcebackfill.source.split.BackfillSplit;
import dev.sourcebackfill.source.split.HandoverState;
import dev.sourcebackfill.source.testutils.BackfillTestJobs;
import dev.sourcebackfill.source.testutils.Observations;
import dev.sourcebackfill.source.testutils.ObservedSource;
import dev.sourcebackfill.source.testutils.RestartCounter;
import dev.sourcebackfill.source.testutils.Throttle;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.flink.connector.kafka.source.reader.deserializer.KafkaRecordDeserializationSchema;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.Collector;
import org.apache.flink.util.ExceptionUtils;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.OffsetResetStrategy;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import static dev.sourcebackfill.source.kafka.KafkaTestEnvironment.total;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The Kafka adapter against a real broker started in this JVM. Every run is checked against the log
 * itself: per partition, the records the job's checkpointed state saw (count, last offset, checksum
 * of offsets and values, strictly increasing offsets) equal what a plain consumer reads from the
 * topic afterwards with the same isolation level.
 */
class KafkaBackfillSourceITCase {

    private static final Logger LOG = LoggerFactory.getLogger(KafkaBackfillSourceITCase.class);

    /** Counts every job's restarts: each test checks them against the failures it injected. */
    private static final RestartCounter RESTARTS = new RestartCounter();

    @RegisterExtension static final MiniClusterExtension MINI_CLUSTER = RESTARTS.miniCluster();

    @RegisterExtension static final KafkaTestEnvironment KAFKA = new KafkaTestEnvironment();

    /** The jobs the running test started: cancelled after it, so that none holds slots on. */
    private static final List<JobClient> STARTED = new ArrayList<>();

    /**
     * A test that failed while its job ran (a timeout) leaves it running: it would hold the
     * cluster's slots and fail the tests after it for want of resources.
     */
    @AfterEach
    void cancelJobsStillRunning() throws Exception {
        for (JobClient job : STARTED) {
            if (!job.getJobStatus().get(30, TimeUnit.SECONDS).isGloballyTerminalState()) {
                LOG.warn("Cancelling job {}, still running after its test", job.getJobID());
                job.cancel().get(60, TimeUnit.SECONDS);
            }
        }
        STARTED.clear();
    }

    // ------------------------------------------------------------------ scenarios

    @Test
    void historyThenLiveRecordsWithFailuresDuringBackfillAndAfterTheHandover() throws Exception {
        String topic = "orders-" + UUID.randomUUID();
        KAFKA.createTopic(topic, 4);
        produce(topic, 4, 0, 3_000);
        Run run = new Run();
        String group = "lag-" + topic;
        KafkaBackfillSourceBuilder<PartitionRecord> builder =
                builder(topic).setGroupId(group).setCommitOffsetsOnCheckpoint(true);
        JobClient job = start(run, builder.build(), 2, List.of(2_000L, 14_000L));

        // live records while the job runs: some during the backfill, the rest after the handover
        produce(topic, 4, 3_000, 1_000);
        BackfillTestJobs.await(
                "forward mode",
                Duration.ofSeconds(60),
                () -> Observations.of(run.source).anyForwardMode());
        produce(topic, 4, 4_000, 1_000);

        Map<String, PartitionDigest> truth = KAFKA.digests(topic, false);
        awaitDigests(run, truth, job);
        // lag tools see the group at the end of every partition once a checkpoint covers it
        BackfillTestJobs.await(
                "committed offsets at the end",
                Duration.ofSeconds(30),
                () ->
                        KAFKA.committedOffsets(group, topic).values().stream()
                                        .allMatch(o -> o == 5_000L)
                                && KAFKA.committedOffsets(group, topic).size() == 4);
        job.cancel().get(30, TimeUnit.SECONDS);
        assertThat(FailOnce.fired(run.checker, 2_000L))
                .as("failure during backfill fired")
                .isTrue();
        assertThat(FailOnce.fired(run.checker, 14_000L))
                .as("failure after the handover fired")
                .isTrue();
        assertSound(run);
        assertRestarts(run);
        LOG.info("history+live: {} partitions, {} records checked", truth.size(), total(truth));
    }

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
                builder(topic)
                        .setProperty(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed")
                        .setBounded(OffsetsInitializer.latest())
                        .build();
        JobClient job = start(run, source, 2, List.of());
        job.getJobExecutionResult().get(120, TimeUnit.SECONDS);

        Map<String, PartitionDigest> truth = KAFKA.digests(topic, true);
        // 7 of the 20 transactions (rounds 1, 4, ..., 19) were aborted
        assertThat(total(truth)).isEqualTo(13 * 50L);
        assertThat(KafkaExactlyOnceChecker.digests(run.checker)).isEqualTo(truth);
        assertSound(run);
        assertRestarts(run);
    }

    /**
     * One partition's history read in chunks of 1,000 by two readers, with a failure while the
     * chunks are read and one at the first live record: every offset once in checkpointed state,
     * the history read by both readers (the chunks by the one, the partition's last part and its
     * live records by the other).
     */
    @Test
    void onePartitionsHistoryInChunksIsReadByTwoReadersWithFailuresDuringChunksAndAtTheHandover()
            throws Exception {
        String topic = "chunks-" + UUID.randomUUID();
        KAFKA.createTopic(topic, 1);
        produce(topic, 1, 0, 6_000);
        Run run = new Run();
        run.unordered = true;
        BackfillSource<PartitionRecord> source = builder(topic).setBackfillChunkSize(1_000).build();
        JobClient job = start(run, source, 2, List.of(2_500L), 4_000, null, topic + "-0", 6_000L);
        produce(topic, 1, 6_000, 1_000);
        awaitDigests(run, PartitionDigest.unorderedOf(KAFKA.readAll(topic, false)), job);
        BackfillTestJobs.await(
                "forward mode",
                Duration.ofSeconds(60),
                () -> Observations.of(run.source).anyForwardMode());
        produce(topic, 1, 7_000, 500);
        awaitDigests(run, PartitionDigest.unorderedOf(KAFKA.readAll(topic, false)), job);
        job.cancel().get(30, TimeUnit.SECONDS);
        assertThat(FailOnce.fired(run.checker, 2_500L)).as("failure during the chunks").isTrue();
        assertThat(FailOnce.firedAtOffset(run.checker, topic + "-0", 6_000L))
                .as("failure at the first live record")
                .isTrue();
        Map<String, List<Integer>> adds = Observations.of(run.source).splitAdds;
        Set<Integer> chunkReaders =
                adds.entrySet().stream()
                        .filter(e -> e.getKey().contains("#chunk-"))
                        .flatMap(e -> e.getValue().stream())
                        .collect(Collectors.toSet());
        Set<Integer> partitionReaders = new HashSet<>(adds.get(topic + "-0"));
        assertThat(partitionReaders).as("readers of the partition's own split").hasSize(1);
        assertThat(chunkReaders)
                .as("readers of the partition's chunks: the other one")
                .containsExactlyElementsOf(Set.of(1 - partitionReaders.iterator().next()));
        assertSound(run);
        assertRestarts(run);
    }

    /**
     * A read_committed bounded job over a transactional partition cut into chunks of 50 offsets:
     * the first chunk ends at offset 50, the first transaction's commit marker, where the second
     * begins; aborted transactions are skipped inside chunks and the partition's last offset is a
     * marker.
     */
    @Test
    void aTransactionalPartitionInChunksWithAChunkBoundaryOnAMarker() throws Exception {
        String topic = "tx-chunks-" + UUID.randomUUID();
        KAFKA.createTopic(topic, 1);
        KAFKA.produceTransactions(
                "tx-" + topic,
                0,
                20,
                round -> {
                    boolean abort = round % 3 == 1;
                    List<ProducerRecord<String, String>> records = new ArrayList<>();
                    for (int i = 0; i < 50; i++) {
                        records.add(
                                new ProducerRecord<>(
                                        topic,
                                        0,
                                        "k" + i,
                                        (abort ? "aborted-" : "committed-") + (round * 50 + i)));
                    }
                    return records;
                },
                round -> round % 3 == 1);
        List<ConsumerRecord<String, String>> all = KAFKA.readAll(topic, false);
        assertThat(all.stream().map(ConsumerRecord::offset))
                .as("offset 50 holds no record: the first transaction's marker")
                .doesNotContain(50L)
                .contains(49L, 51L);
        Run run = new Run();
        run.unordered = true;
        BackfillSource<PartitionRecord> source =
                builder(topic)
                        .setProperty(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed")
                        .setBounded(OffsetsInitializer.latest())
                        .setBackfillChunkSize(50)
                        .build();
        JobClient job = start(run, source, 2, List.of());
        job.getJobExecutionResult().get(120, TimeUnit.SECONDS);

        List<ConsumerRecord<String, String>> committed = KAFKA.readAll(topic, true);
        assertThat(committed).hasSize(13 * 50);
        assertThat(KafkaExactlyOnceChecker.digests(run.checker))
                .isEqualTo(PartitionDigest.unorderedOf(committed));
        // the partition ends with a marker after its last record
        long end = all.get(all.size() - 1).offset() + 2;
        long chunks = (end - 1) / 50;
        assertThat(
                        Observations.of(run.source).splitAdds.keySet().stream()
                                .filter(id -> id.contains("#chunk-")))
                .as("chunks [0, 50), [50, 100), ... below the end offset %d", end)
                .hasSize((int) chunks)
                .contains(topic + "-0#chunk-0", topic + "-0#chunk-1");
        assertSound(run);
        assertRestarts(run);
    }

    @Test
    void aPartitionAddedAfterForwardModeIsReadFromItsEarliestOffset() throws Exception {
        String topic = "grow-" + UUID.randomUUID();
        KAFKA.createTopic(topic, 2);
        produce(topic, 2, 0, 1_000);
        Run run = new Run();
        JobClient job =
                start(
                        run,
                        builder(topic)
                                .setPartitionDiscoveryInterval(Duration.ofMillis(300))
                                .build(),
                        2,
                        List.of());
        BackfillTestJobs.await(
                "forward mode",
                Duration.ofSeconds(60),
                () -> Observations.of(run.source).anyForwardMode());
        KAFKA.addPartitions(topic, 3);
        produce(topic, 3, 1_000, 500);
        Map<String, PartitionDigest> truth = KAFKA.digests(topic, false);
        assertThat(truth).containsKey(topic + "-2");
        awaitDigests(run, truth, job);
        job.cancel().get(30, TimeUnit.SECONDS);
        assertSound(run);
        assertRestarts(run);
    }

    @Test
    void stopWithSavepointDuringBackfillAtParallelism2AndRestoreAt3(@TempDir Path savepoints)
            throws Exception {
        String topic = "rescale-" + UUID.randomUUID();
        KAFKA.createTopic(topic, 6);
        produce(topic, 6, 0, 1_000);
        Run run = new Run();
        JobClient first = start(run, builder(topic).build(), 2, List.of(), 1_000, null);
        BackfillTestJobs.await(
                "some backfill",
                Duration.ofSeconds(60),
                () -> total(KafkaExactlyOnceChecker.digests(run.checker)) > 1_500);
        String savepoint =
                first.stopWithSavepoint(
                                false, savepoints.toUri().toString(), SavepointFormatType.CANONICAL)
                        .get(60, TimeUnit.SECONDS);
        long atStop = total(KafkaExactlyOnceChecker.digests(run.checker));
        assertThat(atStop).as("stopped during the backfill").isLessThan(6_000);
        assertThat(
                        BackfillTestJobs.latestSnapshotHas(
                                Observations.of(run.source), HandoverState.BACKFILLING))
                .isTrue();

        JobClient second = start(run, builder(topic).build(), 3, List.of(), 0, savepoint);
        produce(topic, 6, 1_000, 300);
        Map<String, PartitionDigest> truth = KAFKA.digests(topic, false);
        awaitDigests(run, truth, second);
        second.cancel().get(30, TimeUnit.SECONDS);
        assertSound(run);
        assertThat(Observations.of(run.source).splitsThatMoved())
                .as("partitions that moved to another reader")
                .isPositive();
        assertRestarts(run);
        LOG.info(
                "savepoint p2 -> p3: {} records checked, {} at the stop, {} partitions moved",
                total(truth),
                atStop,
                Observations.of(run.source).splitsThatMoved());
    }

    @Test
    void aPartitionAddedWhileBackfillingAndAFailureAtTheHandover() throws Exception {
        String topic = "grow-early-" + UUID.randomUUID();
        KAFKA.createTopic(topic, 2);
        produce(topic, 2, 0, 2_000);
        Run run = new Run();
        // 4,000 history records at ~1,000/s per subtask. Failures: at the first record the
        // live reads for partition 0 (offset 2,000 is its backfill target: the failure
        // comes right at its handover), and at record 5,000 (after the new partition)
        JobClient job =
                start(
                        run,
                        builder(topic)
                                .setPartitionDiscoveryInterval(Duration.ofMillis(300))
                                .build(),
                        2,
                        List.of(5_000L),
                        1_000,
                        null,
                        topic + "-0",
                        2_000L);
        BackfillTestJobs.await(
                "some backfill",
                Duration.ofSeconds(60),
                () -> total(KafkaExactlyOnceChecker.digests(run.checker)) > 500);
        assertThat(Observations.of(run.source).anyForwardMode()).isFalse();
        KAFKA.addPartitions(topic, 3);
        produce(topic, 3, 2_000, 500);
        Map<String, PartitionDigest> truth = KAFKA.digests(topic, false);
        awaitDigests(run, truth, job);
        job.cancel().get(30, TimeUnit.SECONDS);
        assertThat(FailOnce.firedAtOffset(run.checker, topic + "-0", 2_000L))
                .as("failure at the handover")
                .isTrue();
        assertThat(FailOnce.fired(run.checker, 5_000L)).isTrue();
        assertSound(run);
        assertRestarts(run);
    }

    /**
     * How the deserializer of {@link
     * #everyValueOfARecordIsEmittedExactlyOnceAcrossAFailureAtTheHandover} turns a Kafka record
     * into values. Each value carries a virtual offset, increasing within its partition, so that
     * the exactly-once checker sees every value as an element of its own.
     */
    enum ValuesPerRecord {
        /** Two values per record: virtual offsets {@code 2o} and {@code 2o + 1}. */
        TWO {
            @Override
            void values(
                    String topic,
                    int partition,
                    long offset,
                    String value,
                    List<PartitionRecord> out) {
                out.add(new PartitionRecord(topic, partition, 2 * offset, value + "#0"));
                out.add(new PartitionRecord(topic, partition, 2 * offset + 1, value + "#1"));
            }

            @Override
            long virtualOffsetOfLastValue(long offset) {
                return 2 * offset + 1;
            }
        },
        /** None for every offset {@code o} with {@code o % 3 == 1}, else the value itself. */
        SOME_DROPPED {
            @Override
            void values(
                    String topic,
                    int partition,
                    long offset,
                    String value,
                    List<PartitionRecord> out) {
                if (offset % 3 != 1) {
                    out.add(new PartitionRecord(topic, partition, offset, value));
                }
            }

            @Override
            long virtualOffsetOfLastValue(long offset) {
                return offset;
            }
        };

        abstract void values(
                String topic, int partition, long offset, String value, List<PartitionRecord> out);

        /** The virtual offset of the last value of the record at {@code offset}. */
        abstract long virtualOffsetOfLastValue(long offset);

        /** Per partition, the digest of every value the topic's records make now. */
        Map<String, PartitionDigest> truth(String topic) {
            Map<String, PartitionDigest> digests = new HashMap<>();
            List<PartitionRecord> values = new ArrayList<>();
            for (ConsumerRecord<String, String> r : KAFKA.readAll(topic, false)) {
                values.clear();
                values(r.topic(), r.partition(), r.offset(), r.value(), values);
                for (PartitionRecord v : values) {
                    digests.merge(
                            v.partitionKey(),
                            PartitionDigest.empty().plus(v.offset, v.value),
                            (a, b) -> a.plus(v.offset, v.value));
                }
            }
            return digests;
        }
    }

    /** Makes a record's values as its {@link ValuesPerRecord} says. */
    static final class ManyValues implements KafkaRecordDeserializationSchema<PartitionRecord> {
        private static final long serialVersionUID = 1L;
        private final ValuesPerRecord values;

        ManyValues(ValuesPerRecord values) {
            this.values = values;
        }

        @Override
        public void deserialize(
                ConsumerRecord<byte[], byte[]> record, Collector<PartitionRecord> out) {
            List<PartitionRecord> made = new ArrayList<>(2);
            values.values(
                    record.topic(),
                    record.partition(),
                    record.offset(),
                    new String(record.value(), StandardCharsets.UTF_8),
                    made);
            made.forEach(out::collect);
        }

        @Override
        public TypeInformation<PartitionRecord> getProducedType() {
            return TypeInformation.of(PartitionRecord.class);
        }
    }

    /**
     * A deserializer that makes two values of each Kafka record, or none of some: every value
     * exactly once in the checkpointed state, across a task failure that comes at partition 0's
     * handover, right after the first value of the first record the live reader read (for {@link
     * ValuesPerRecord#TWO}: between the two values of that record), and one during the backfill.
     */
    @ParameterizedTest
    @EnumSource(ValuesPerRecord.class)
    void everyValueOfARecordIsEmittedExactlyOnceAcrossAFailureAtTheHandover(ValuesPerRecord values)
            throws Exception {
        String topic = "values-" + values.name().toLowerCase() + "-" + UUID.randomUUID();
        KAFKA.createTopic(topic, 2);
        produce(topic, 2, 0, 2_000);
        Run run = new Run();
        // 2,000 history records a partition, so partition 0's backfill target is offset 2,000:
        // the first live record. The map fails at that record's last value, and once at the
        // 1,500th value (during the backfill)
        JobClient job =
                start(
                        run,
                        builder(topic).setDeserializer(new ManyValues(values)).build(),
                        2,
                        List.of(1_500L),
                        1_000,
                        null,
                        topic + "-0",
                        values.virtualOffsetOfLastValue(2_000));
        BackfillTestJobs.await(
                "some backfill",
                Duration.ofSeconds(60),
                () -> total(KafkaExactlyOnceChecker.digests(run.checker)) > 1_000);
        produce(topic, 2, 2_000, 500);
        BackfillTestJobs.await(
                "forward mode",
                Duration.ofSeconds(60),
                () -> Observations.of(run.source).anyForwardMode());
        produce(topic, 2, 2_500, 500);
        awaitDigests(run, values.truth(topic), job);
        job.cancel().get(30, TimeUnit.SECONDS);
        assertThat(
                        FailOnce.firedAtOffset(
                                run.checker, topic + "-0", values.virtualOffsetOfLastValue(2_000)))
                .as("failure at the handover")
                .isTrue();
        assertThat(FailOnce.fired(run.checker, 1_500L)).as("failure during backfill").isTrue();
        assertSound(run);
        assertRestarts(run);
        LOG.info(
                "{} values per record: {} values checked",
                values,
                total(KafkaExactlyOnceChecker.digests(run.checker)));
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
        JobClient job = start(run, builder(topic).build(), 2, List.of());
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
        assertRestarts(run);
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
                builder(topic)
                        .setStartingOffsets(OffsetsInitializer.timestamp(base + 50_000L))
                        .setBounded(OffsetsInitializer.offsets(Map.of(p0, 120L, p1, 200L)))
                        .build();
        start(run, source, 2, List.of()).getJobExecutionResult().get(120, TimeUnit.SECONDS);
        Map<String, PartitionDigest> expected = new HashMap<>();
        expected.put(topic + "-0", KAFKA.digestOf(topic, 0, 50, 120));
        expected.put(topic + "-1", KAFKA.digestOf(topic, 1, 50, 200));
        assertThat(KafkaExactlyOnceChecker.digests(run.checker)).isEqualTo(expected);
        assertSound(run);
        assertRestarts(run);
    }

    @Test
    void aSecondJobStartsWhereTheFirstCommittedItsOffsets() throws Exception {
        String topic = "resume-" + UUID.randomUUID();
        String group = "resume-group-" + topic;
        KAFKA.createTopic(topic, 2);
        produce(topic, 2, 0, 400);
        Run first = new Run();
        JobClient job =
                start(
                        first,
                        builder(topic).setGroupId(group).setCommitOffsetsOnCheckpoint(true).build(),
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

        produce(topic, 2, 400, 100);
        Run second = new Run();
        BackfillSource<PartitionRecord> resumed =
                builder(topic)
                        .setGroupId(group)
                        .setStartingOffsets(OffsetsInitializer.committedOffsets())
                        .setBounded(OffsetsInitializer.latest())
                        .build();
        start(second, resumed, 2, List.of()).getJobExecutionResult().get(120, TimeUnit.SECONDS);
        assertThat(KafkaExactlyOnceChecker.digests(second.checker))
                .isEqualTo(
                        Map.of(
                                topic + "-0",
                                KAFKA.digestOf(topic, 0, 400, 500),
                                topic + "-1",
                                KAFKA.digestOf(topic, 1, 400, 500)));
        assertRestarts(first, second);
    }

    @Test
    void anUnreachableClusterFailsTheJobNamingTheServers() throws Exception {
        String servers;
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            servers = "127.0.0.1:" + socket.getLocalPort();
        }
        Run run = new Run();
        BackfillSource<PartitionRecord> source =
                builder("orders")
                        .setBootstrapServers(servers)
                        .setProperty("request.timeout.ms", "1000")
                        .setProperty("default.api.timeout.ms", "2000")
                        .build();
        JobClient job = start(run, source, 1, List.of());
        assertThatThrownBy(() -> job.getJobExecutionResult().get(120, TimeUnit.SECONDS))
                .satisfies(
                        e ->
                                assertThat(ExceptionUtils.stringifyException(e))
                                        .contains("Kafka at " + servers + " did not answer")
                                        .contains("[orders]"));
        assertRestarts(run);
    }

    @Test
    void anUnknownTopicFailsTheJobNamingTheTopic() throws Exception {
        String topic = "missing-" + UUID.randomUUID();
        Run run = new Run();
        JobClient job = start(run, builder(topic).build(), 1, List.of());
        assertThatThrownBy(() -> job.getJobExecutionResult().get(120, TimeUnit.SECONDS))
                .satisfies(
                        e ->
                                assertThat(ExceptionUtils.stringifyException(e))
                                        .contains(topic)
                                        .contains("does not exist"));
        assertRestarts(run);
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
                start(
                        run,
                        builder(topic).setBounded(OffsetsInitializer.latest()).build(),
                        1,
                        List.of());
        assertThatThrownBy(() -> job.getJobExecutionResult().get(120, TimeUnit.SECONDS))
                .satisfies(
                        e ->
                                assertThat(ExceptionUtils.stringifyException(e))
                                        .contains("offset 7 of topic " + topic + " partition 0"));
        assertRestarts(run);
    }

    @Test
    void aStartOffsetDeletedByRetentionFailsNamingPartitionAndOffsets() throws Exception {
        String topic = "retention-" + UUID.randomUUID();
        KAFKA.createTopic(topic, 1);
        produce(topic, 1, 0, 100);
        TopicPartition tp = new TopicPartition(topic, 0);
        KAFKA.deleteRecordsBelow(topic, 0, 50);
        Run run = new Run();
        BackfillSource<PartitionRecord> source =
                builder(topic)
                        // no reset strategy: the gap fails the job (the default gap policy)
                        .setStartingOffsets(
                                OffsetsInitializer.offsets(
                                        Map.of(tp, 10L), OffsetResetStrategy.NONE))
                        .build();
        JobClient job = start(run, source, 1, List.of());
        assertThatThrownBy(() -> job.getJobExecutionResult().get(120, TimeUnit.SECONDS))
                .satisfies(
                        e ->
                                assertThat(ExceptionUtils.stringifyException(e))
                                        .contains("Partition " + topic + "-0")
                                        .contains("offset 10")
                                        .contains("starts at 50"));
        assertRestarts(run);
    }

    @Test
    void saslSettingsReachBothConsumersAndNoSecretIsEverLoggedOrInAnError() throws Exception {
        String topic = "secure-" + UUID.randomUUID();
        KAFKA.createTopic(topic, 2);
        produce(topic, 2, 0, 300);
        String wrongPassword = "wrong-pw-0c41b2aa-never-log-me";
        String keystorePassword = "ks-pw-93d1e7b0-never-log-me";
        String failure;
        Run run = new Run();
        Run refusedRun = new Run();
        try (LogCapture logs = new LogCapture()) {
            // right credentials: the whole topic is read through the SASL listener
            JobClient job =
                    start(
                            run,
                            saslBuilder(topic, InProcessKafka.SASL_PASSWORD, keystorePassword)
                                    .build(),
                            2,
                            List.of());
            job.getJobExecutionResult().get(120, TimeUnit.SECONDS);
            // wrong credentials: the job fails, saying so without the password
            JobClient refused =
                    start(
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
        assertRestarts(run, refusedRun);
    }

    @Test
    void aBoundedJobRestoredFromASavepointAfterAPartitionWasAddedEndsAtTheStopsOfItsFirstStart(
            @TempDir Path savepoints) throws Exception {
        String topic = "bounded-grow-" + UUID.randomUUID();
        KAFKA.createTopic(topic, 3);
        produce(topic, 3, 0, 1_000);
        Run run = new Run();
        // the stopping offsets are the partitions' ends at the first start: 1,000 each
        JobClient first =
                start(
                        run,
                        builder(topic).setBounded(OffsetsInitializer.latest()).build(),
                        1,
                        List.of(),
                        500,
                        null);
        awaitWhileRunning(
                "the first records",
                first,
                () -> total(KafkaExactlyOnceChecker.digests(run.checker)) > 100);
        // a new partition, and records beyond the stops of the old ones: none of them is read
        KAFKA.addPartitions(topic, 4);
        produce(topic, 4, 1_000, 200);
        String savepoint =
                first.stopWithSavepoint(
                                false, savepoints.toUri().toString(), SavepointFormatType.CANONICAL)
                        .get(60, TimeUnit.SECONDS);
        assertThat(total(KafkaExactlyOnceChecker.digests(run.checker)))
                .as("stopped before the end")
                .isLessThan(3_000);

        JobClient second =
                start(
                        run,
                        builder(topic).setBounded(OffsetsInitializer.latest()).build(),
                        2,
                        List.of(),
                        0,
                        savepoint);
        second.getJobExecutionResult().get(120, TimeUnit.SECONDS);
        assertThat(KafkaExactlyOnceChecker.digests(run.checker))
                .isEqualTo(KAFKA.digestsBelow(topic, 3, 1_000));
        assertSound(run);
        assertRestarts(run);
    }

    @Test
    void
            aBoundedJobAfterAGlobalFailoverThatCameAfterAPartitionWasAddedEndsAtTheStopsOfItsFirstStart()
                    throws Exception {
        String topic = "bounded-failover-" + UUID.randomUUID();
        KAFKA.createTopic(topic, 3);
        produce(topic, 3, 0, 1_000);
        Run run = new Run();
        JobClient job =
                start(
                        run,
                        builder(topic).setBounded(OffsetsInitializer.latest()).build(),
                        1,
                        List.of(),
                        500,
                        null,
                        null,
                        -1,
                        true);
        awaitWhileRunning(
                "the first records",
                job,
                () -> total(KafkaExactlyOnceChecker.digests(run.checker)) > 100);
        KAFKA.addPartitions(topic, 4);
        produce(topic, 4, 1_000, 200);
        // the failover restores the enumerator from a checkpoint taken after the partition came
        long beforeAdding = FailCoordinatorOnce.lastCompletedCheckpoint(run.checker);
        awaitWhileRunning(
                "a checkpoint after the partition was added",
                job,
                () -> FailCoordinatorOnce.lastCompletedCheckpoint(run.checker) > beforeAdding);
        FailCoordinatorOnce.arm(run.checker);
        awaitWhileRunning(
                "the injected global failure", job, () -> FailCoordinatorOnce.fired(run.checker));
        job.getJobExecutionResult().get(120, TimeUnit.SECONDS);
        assertThat(Observations.of(run.source).enumeratorRestores.get())
                .as("enumerators restored from a checkpoint")
                .isEqualTo(1);
        assertThat(KafkaExactlyOnceChecker.digests(run.checker))
                .isEqualTo(KAFKA.digestsBelow(topic, 3, 1_000));
        assertSound(run);
        assertRestarts(run);
    }

    @Test
    void aStartOffsetBeyondThePartitionsEndIsReadOnceThePartitionReachesIt() throws Exception {
        String topic = "ahead-" + UUID.randomUUID();
        KAFKA.createTopic(topic, 2);
        produce(topic, 2, 0, 100);
        TopicPartition p0 = new TopicPartition(topic, 0);
        TopicPartition p1 = new TopicPartition(topic, 1);
        Run run = new Run();
        try (LogCapture logs = new LogCapture()) {
            // partition 0 ends at 100 and starts at 150; partition 1 is backfilled from 40
            BackfillSource<PartitionRecord> source =
                    builder(topic)
                            .setStartingOffsets(
                                    OffsetsInitializer.offsets(Map.of(p0, 150L, p1, 40L)))
                            .build();
            JobClient job = start(run, source, 2, List.of());
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
            produce(topic, 2, 100, 30);
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
            produce(topic, 2, 130, 70);
            Map<String, PartitionDigest> expected = new HashMap<>();
            expected.put(topic + "-0", KAFKA.digestOf(topic, 0, 150, 200));
            expected.put(topic + "-1", KAFKA.digestOf(topic, 1, 40, 200));
            awaitDigests(run, expected, job);
            job.cancel().get(30, TimeUnit.SECONDS);
            assertSound(run);
            assertRestarts(run);
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

    @Test
    void aBackfillRestoredBelowTheEarliestRetainedOffsetFailsNamingPartitionAndOffsets(
            @TempDir Path savepoints) throws Exception {
        String topic = "retention-restore-" + UUID.randomUUID();
        Run run = new Run();
        String savepoint = stoppedDuringTheBackfill(run, topic, builder(topic), savepoints);
        // retention takes the rest of the backfill's history before the job is restored
        TopicPartition tp = new TopicPartition(topic, 0);
        KAFKA.deleteRecordsBelow(topic, 0, 1_500);
        JobClient second = start(run, builder(topic).build(), 1, List.of(), 0, savepoint);
        assertThatThrownBy(() -> second.getJobExecutionResult().get(120, TimeUnit.SECONDS))
                .satisfies(
                        e -> {
                            String failure = ExceptionUtils.stringifyException(e);
                            Matcher offset =
                                    Pattern.compile(
                                                    "Offset gap in split "
                                                            + Pattern.quote(topic + "-0")
                                                            + ": it must be read from offset (\\d+), but the log starts at 1500 now")
                                            .matcher(failure);
                            assertThat(offset.find())
                                    .as("the retention message in %s", failure)
                                    .isTrue();
                            assertThat(Long.parseLong(offset.group(1))).isLessThan(1_500L);
                        });
        assertRestarts(run);
    }

    /**
     * A one-partition topic of 2,000 records, read by a throttled job that is stopped with a
     * savepoint during its backfill, before offset 1,500; returns the savepoint.
     */
    private static String stoppedDuringTheBackfill(
            Run run,
            String topic,
            KafkaBackfillSourceBuilder<PartitionRecord> source,
            Path savepoints)
            throws Exception {
        KAFKA.createTopic(topic, 1);
        produce(topic, 1, 0, 2_000);
        JobClient first = start(run, source.build(), 1, List.of(), 500, null);
        awaitWhileRunning(
                "some backfill",
                first,
                () -> total(KafkaExactlyOnceChecker.digests(run.checker)) > 200);
        String savepoint =
                first.stopWithSavepoint(
                                false, savepoints.toUri().toString(), SavepointFormatType.CANONICAL)
                        .get(60, TimeUnit.SECONDS);
        assertThat(total(KafkaExactlyOnceChecker.digests(run.checker)))
                .as("stopped during the backfill")
                .isLessThan(1_500);
        return savepoint;
    }

    /**
     * A backfill restored below the log's start, told to skip gaps: it goes on at the log's start;
     * every record checkpointed before and every record from the log's start on arrives once.
     */
    @Test
    void aBackfillRestoredBelowTheEarliestRetainedOffsetGoesOnAtTheLogsStartWhenToldToSkip(
            @TempDir Path savepoints) throws Exception {
        String topic = "retention-skip-" + UUID.randomUUID();
        Run run = new Run();
        KafkaBackfillSourceBuilder<PartitionRecord> skipping =
                builder(topic)
                        .setOffsetGapPolicy(OffsetGapPolicy.SKIP)
                        .setBounded(OffsetsInitializer.latest());
        String savepoint = stoppedDuringTheBackfill(run, topic, skipping, savepoints);
        Map<String, PartitionDigest> before = KafkaExactlyOnceChecker.digests(run.checker);
        PartitionDigest expected = before.get(topic + "-0");
        for (ConsumerRecord<String, String> r : KAFKA.readAll(topic, false)) {
            if (r.offset() >= 1_500) {
                expected = expected.plus(r.offset(), r.value());
            }
        }
        KAFKA.deleteRecordsBelow(topic, 0, 1_500);

        start(run, skipping.build(), 1, List.of(), 0, savepoint)
                .getJobExecutionResult()
                .get(120, TimeUnit.SECONDS);
        assertThat(KafkaExactlyOnceChecker.digests(run.checker))
                .isEqualTo(Map.of(topic + "-0", expected));
        assertRestarts(run);
    }

    /**
     * A one-partition topic of offsets 0..99 whose log starts at 50 now, and the group's committed
     * offset 10 below that.
     */
    private static TopicPartition committedBelowTheLogsStart(String topic, String group)
            throws Exception {
        KAFKA.createTopic(topic, 1);
        produce(topic, 1, 0, 100);
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
        start(
                        specific,
                        builder(topic)
                                .setStartingOffsets(OffsetsInitializer.offsets(Map.of(tp, 10L)))
                                .setBounded(OffsetsInitializer.latest())
                                .build(),
                        1,
                        List.of())
                .getJobExecutionResult()
                .get(120, TimeUnit.SECONDS);
        assertThat(KafkaExactlyOnceChecker.digests(specific.checker)).isEqualTo(fromTheLogsStart);

        Run committed = new Run();
        start(
                        committed,
                        builder(topic)
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
        assertRestarts(specific, committed);
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
                builder(topic)
                        .setGroupId(group)
                        .setStartingOffsets(OffsetsInitializer.committedOffsets())
                        .setBounded(OffsetsInitializer.latest());

        Run failing = new Run();
        JobClient job = start(failing, committed.build(), 1, List.of());
        assertThatThrownBy(() -> job.getJobExecutionResult().get(120, TimeUnit.SECONDS))
                .satisfies(
                        e ->
                                assertThat(ExceptionUtils.stringifyException(e))
                                        .contains("Partition " + topic + "-0")
                                        .contains("offset 10")
                                        .contains("starts at 50"));

        Run skipping = new Run();
        start(skipping, committed.setOffsetGapPolicy(OffsetGapPolicy.SKIP).build(), 1, List.of())
                .getJobExecutionResult()
                .get(120, TimeUnit.SECONDS);
        assertThat(KafkaExactlyOnceChecker.digests(skipping.checker))
                .isEqualTo(Map.of(topic + "-0", KAFKA.digestOf(topic, 0, 50, 100)));
        assertRestarts(failing, skipping);
    }

    /**
     * A stopping offset below the starting offset reads nothing of that partition, as Flink's Kafka
     * source does; the other partitions are read as usual and the bounded job ends.
     */
    @Test
    void aStoppingOffsetBelowTheStartingOffsetReadsNothingOfThatPartition() throws Exception {
        String topic = "empty-range-" + UUID.randomUUID();
        KAFKA.createTopic(topic, 2);
        produce(topic, 2, 0, 10);
        TopicPartition p0 = new TopicPartition(topic, 0);
        TopicPartition p1 = new TopicPartition(topic, 1);
        Run run = new Run();
        start(
                        run,
                        builder(topic)
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
        assertRestarts(run);
    }

    private static long linesContaining(LogCapture logs, String text) {
        return logs.lines.stream().filter(line -> line.contains(text)).count();
    }

    private static KafkaBackfillSourceBuilder<PartitionRecord> saslBuilder(
            String topic, String password, String keystorePassword) {
        return builder(topic)
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

    // ------------------------------------------------------------------ helpers

    /** One test run: its checker's and its source's observation keys, and the jobs it started. */
    private static final class Run {
        final String checker = UUID.randomUUID().toString();
        final String source = UUID.randomUUID().toString();

        /** Records of a partition may come in any order (chunks of history): each once. */
        boolean unordered;

        /** Every job started for this run, with the number of failures injected into it. */
        final List<Map.Entry<JobClient, Integer>> jobs = new ArrayList<>();
    }

    private static KafkaBackfillSourceBuilder<PartitionRecord> builder(String topic) {
        return KafkaBackfill.<PartitionRecord>sourceBuilder()
                .setBootstrapServers(KAFKA.bootstrapServers())
                .setTopics(topic)
                .setDeserializer(new PartitionRecord.Deserializer())
                .setProperty("default.api.timeout.ms", "30000")
                .setPollTimeout(Duration.ofMillis(20))
                .setPartitionDiscoveryInterval(Duration.ofSeconds(1));
    }

    private static JobClient start(
            Run run, BackfillSource<PartitionRecord> source, int parallelism, List<Long> failures)
            throws Exception {
        return start(run, source, parallelism, failures, 0, null);
    }

    private static JobClient start(
            Run run,
            BackfillSource<PartitionRecord> source,
            int parallelism,
            List<Long> failures,
            double throttlePerSubtask,
            String savepoint)
            throws Exception {
        return start(run, source, parallelism, failures, throttlePerSubtask, savepoint, null, -1);
    }

    private static JobClient start(
            Run run,
            BackfillSource<PartitionRecord> source,
            int parallelism,
            List<Long> failures,
            double throttlePerSubtask,
            String savepoint,
            String failPartition,
            long failAtOffset)
            throws Exception {
        return start(
                run,
                source,
                parallelism,
                failures,
                throttlePerSubtask,
                savepoint,
                failPartition,
                failAtOffset,
                false);
    }

    /**
     * Starts a job; it gets a restart strategy only if failures are injected into it (task failures
     * at record counts or at a partition's offset, a global failure through the enumerator), so
     * that any other failure fails the job, and {@link #assertRestarts} checks that it restarted
     * exactly once per injected failure.
     */
    private static JobClient start(
            Run run,
            BackfillSource<PartitionRecord> source,
            int parallelism,
            List<Long> failures,
            double throttlePerSubtask,
            String savepoint,
            String failPartition,
            long failAtOffset,
            boolean globalFailure)
            throws Exception {
        int injected = failures.size() + (failPartition != null ? 1 : 0) + (globalFailure ? 1 : 0);
        Configuration conf = new Configuration();
        if (savepoint != null) {
            conf.set(StateRecoveryOptions.SAVEPOINT_PATH, savepoint);
        }
        if (injected > 0) {
            conf.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
            conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 10);
            conf.set(
                    RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY,
                    Duration.ofMillis(100));
        } else {
            conf.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
        }
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(parallelism);
        env.enableCheckpointing(100);
        Source<PartitionRecord, BackfillSplit, BackfillEnumeratorState> observed =
                new ObservedSource<>(source, run.source);
        if (globalFailure) {
            observed = new FailCoordinatorOnce<>(observed, run.checker);
        }
        DataStream<PartitionRecord> stream =
                env.fromSource(observed, WatermarkStrategy.noWatermarks(), "kafka-backfill")
                        .uid("kafka-backfill");
        if (throttlePerSubtask > 0) {
            stream = stream.map(new Throttle<>(throttlePerSubtask)).name("throttle");
        }
        if (failPartition != null) {
            stream =
                    stream.map(FailOnce.atOffset(run.checker, failPartition, failAtOffset))
                            .name("fail-at-handover");
        }
        for (long at : failures) {
            stream = stream.map(new FailOnce(run.checker, at)).name("fail-at-" + at);
        }
        stream.keyBy(PartitionRecord::partitionKey)
                .process(new KafkaExactlyOnceChecker(run.checker, run.unordered))
                .uid("checker")
                .sinkTo(new DiscardingSink<>());
        JobClient job = env.executeAsync("kafka " + run.checker);
        run.jobs.add(Map.entry(job, injected));
        STARTED.add(job);
        return job;
    }

    /**
     * Waits until every job of the runs ended and checks that each restarted exactly as often as
     * the failures injected into it make Flink restart (once per failed attempt): an unexpected
     * failover fails the test.
     */
    private static void assertRestarts(Run... runs) throws Exception {
        for (Run run : runs) {
            for (Map.Entry<JobClient, Integer> job : run.jobs) {
                long restarts = RESTARTS.restartsOf(job.getKey(), Duration.ofSeconds(60));
                // task failures of one attempt make one restart
                long merged = FailOnce.mergedFailures(job.getKey().getJobID());
                assertThat(restarts)
                        .as(
                                "restarts of job %s (failures injected: %d, %d of them in an attempt "
                                        + "that had already failed)",
                                job.getKey().getJobID(), job.getValue(), merged)
                        .isEqualTo(job.getValue() - merged);
            }
        }
    }

    /**
     * Waits for a condition while the job runs; a job that ended meanwhile fails with its cause.
     */
    private static void awaitWhileRunning(String what, JobClient job, BooleanSupplier condition)
            throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!condition.getAsBoolean()) {
            if (job.getJobStatus().get().isGloballyTerminalState()) {
                job.getJobExecutionResult().get();
                throw new AssertionError("The job ended before " + what);
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError("Timed out waiting for " + what);
            }
            Thread.sleep(20);
        }
    }

    /** Records [from, from + perPartition) of each partition: value "v<partition>-<i>". */
    private static void produce(String topic, int partitions, int from, int perPartition)
            throws Exception {
        KAFKA.produce(
                partitions,
                from,
                from + perPartition,
                (p, i) -> new ProducerRecord<>(topic, p, "k" + (i % 97), "v" + p + "-" + i));
    }

    private static void awaitDigests(Run run, Map<String, PartitionDigest> truth, JobClient job)
            throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (!KafkaExactlyOnceChecker.digests(run.checker).equals(truth)) {
            if (job.getJobStatus().get().isGloballyTerminalState()) {
                job.getJobExecutionResult().get();
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError(
                        "checked "
                                + KafkaExactlyOnceChecker.digests(run.checker)
                                + " but the topic holds "
                                + truth);
            }
            Thread.sleep(50);
        }
    }

    private static void assertSound(Run run) {
        assertThat(KafkaExactlyOnceChecker.violations(run.checker))
                .as("order/duplicate violations")
                .isEmpty();
        BackfillTestJobs.assertForwardModeSound(Observations.of(run.source), 0, false);
    }
}
