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
import dev.sourcebackfill.source.split.HandoverState;
import dev.sourcebackfill.source.testutils.BackfillTestJobs;
import dev.sourcebackfill.source.testutils.Observations;
import dev.sourcebackfill.source.testutils.RestartCounter;

import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.flink.connector.kafka.source.reader.deserializer.KafkaRecordDeserializationSchema;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.Collector;
import org.apache.flink.util.ExceptionUtils;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

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
 * <p>Failures, restores, chunks and a changing topic: task failures during the backfill, at a
 * partition's handover and after it (between two values of one record too), a global failover; stop
 * with a savepoint and restore at another parallelism, bounded jobs restored, restores below the
 * log's earliest retained offset; a partition's history in chunks (across failures, and a
 * transactional one with a chunk boundary on a commit marker); partitions added while backfilling
 * and after forward mode. Where the reads start and stop, what the topic holds and jobs that fail
 * are {@link KafkaBackfillOffsetsITCase}'s.
 */
class KafkaBackfillFailoverITCase {

    private static final Logger LOG = LoggerFactory.getLogger(KafkaBackfillFailoverITCase.class);

    /** Counts every job's restarts: each test checks them against the failures it injected. */
    private static final RestartCounter RESTARTS = new RestartCounter();

    @RegisterExtension static final MiniClusterExtension MINI_CLUSTER = RESTARTS.miniCluster();

    @RegisterExtension static final KafkaTestEnvironment KAFKA = new KafkaTestEnvironment();

    /** Starts this class's jobs; cancels those still running after a test. */
    @RegisterExtension static final KafkaBackfillJobs JOBS = new KafkaBackfillJobs(KAFKA, RESTARTS);

    @Test
    void historyThenLiveRecordsWithFailuresDuringBackfillAndAfterTheHandover() throws Exception {
        String topic = "orders-" + UUID.randomUUID();
        KAFKA.createTopic(topic, 4);
        JOBS.produce(topic, 4, 0, 3_000);
        Run run = new Run();
        String group = "lag-" + topic;
        KafkaBackfillSourceBuilder<PartitionRecord> builder =
                JOBS.builder(topic).setGroupId(group).setCommitOffsetsOnCheckpoint(true);
        JobClient job = JOBS.start(run, builder.build(), 2, List.of(2_000L, 14_000L));

        // live records while the job runs: some during the backfill, the rest after the handover
        JOBS.produce(topic, 4, 3_000, 1_000);
        BackfillTestJobs.await(
                "forward mode",
                Duration.ofSeconds(60),
                () -> Observations.of(run.source).anyForwardMode());
        JOBS.produce(topic, 4, 4_000, 1_000);

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
        JOBS.assertRestarts(run);
        LOG.info("history+live: {} partitions, {} records checked", truth.size(), total(truth));
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
        JOBS.produce(topic, 1, 0, 6_000);
        Run run = new Run();
        run.unordered = true;
        BackfillSource<PartitionRecord> source =
                JOBS.builder(topic).setBackfillChunkSize(1_000).build();
        JobClient job =
                JOBS.start(run, source, 2, List.of(2_500L), 4_000, null, topic + "-0", 6_000L);
        JOBS.produce(topic, 1, 6_000, 1_000);
        awaitDigests(run, PartitionDigest.unorderedOf(KAFKA.readAll(topic, false)), job);
        BackfillTestJobs.await(
                "forward mode",
                Duration.ofSeconds(60),
                () -> Observations.of(run.source).anyForwardMode());
        JOBS.produce(topic, 1, 7_000, 500);
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
        JOBS.assertRestarts(run);
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
                JOBS.builder(topic)
                        .setProperty(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed")
                        .setBounded(OffsetsInitializer.latest())
                        .setBackfillChunkSize(50)
                        .build();
        JobClient job = JOBS.start(run, source, 2, List.of());
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
        JOBS.assertRestarts(run);
    }

    @Test
    void aPartitionAddedAfterForwardModeIsReadFromItsEarliestOffset() throws Exception {
        String topic = "grow-" + UUID.randomUUID();
        KAFKA.createTopic(topic, 2);
        JOBS.produce(topic, 2, 0, 1_000);
        Run run = new Run();
        JobClient job =
                JOBS.start(
                        run,
                        JOBS.builder(topic)
                                .setPartitionDiscoveryInterval(Duration.ofMillis(300))
                                .build(),
                        2,
                        List.of());
        BackfillTestJobs.await(
                "forward mode",
                Duration.ofSeconds(60),
                () -> Observations.of(run.source).anyForwardMode());
        KAFKA.addPartitions(topic, 3);
        JOBS.produce(topic, 3, 1_000, 500);
        Map<String, PartitionDigest> truth = KAFKA.digests(topic, false);
        assertThat(truth).containsKey(topic + "-2");
        awaitDigests(run, truth, job);
        job.cancel().get(30, TimeUnit.SECONDS);
        assertSound(run);
        JOBS.assertRestarts(run);
    }

    @Test
    void stopWithSavepointDuringBackfillAtParallelism2AndRestoreAt3(@TempDir Path savepoints)
            throws Exception {
        String topic = "rescale-" + UUID.randomUUID();
        KAFKA.createTopic(topic, 6);
        JOBS.produce(topic, 6, 0, 1_000);
        Run run = new Run();
        JobClient first = JOBS.start(run, JOBS.builder(topic).build(), 2, List.of(), 1_000, null);
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

        JobClient second = JOBS.start(run, JOBS.builder(topic).build(), 3, List.of(), 0, savepoint);
        JOBS.produce(topic, 6, 1_000, 300);
        Map<String, PartitionDigest> truth = KAFKA.digests(topic, false);
        awaitDigests(run, truth, second);
        second.cancel().get(30, TimeUnit.SECONDS);
        assertSound(run);
        assertThat(Observations.of(run.source).splitsThatMoved())
                .as("partitions that moved to another reader")
                .isPositive();
        JOBS.assertRestarts(run);
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
        JOBS.produce(topic, 2, 0, 2_000);
        Run run = new Run();
        // 4,000 history records at ~1,000/s per subtask. Failures: at the first record the
        // live reads for partition 0 (offset 2,000 is its backfill target: the failure
        // comes right at its handover), and at record 5,000 (after the new partition)
        JobClient job =
                JOBS.start(
                        run,
                        JOBS.builder(topic)
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
        JOBS.produce(topic, 3, 2_000, 500);
        Map<String, PartitionDigest> truth = KAFKA.digests(topic, false);
        awaitDigests(run, truth, job);
        job.cancel().get(30, TimeUnit.SECONDS);
        assertThat(FailOnce.firedAtOffset(run.checker, topic + "-0", 2_000L))
                .as("failure at the handover")
                .isTrue();
        assertThat(FailOnce.fired(run.checker, 5_000L)).isTrue();
        assertSound(run);
        JOBS.assertRestarts(run);
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
        JOBS.produce(topic, 2, 0, 2_000);
        Run run = new Run();
        // 2,000 history records a partition, so partition 0's backfill target is offset 2,000:
        // the first live record. The map fails at that record's last value, and once at the
        // 1,500th value (during the backfill)
        JobClient job =
                JOBS.start(
                        run,
                        JOBS.builder(topic).setDeserializer(new ManyValues(values)).build(),
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
        JOBS.produce(topic, 2, 2_000, 500);
        BackfillTestJobs.await(
                "forward mode",
                Duration.ofSeconds(60),
                () -> Observations.of(run.source).anyForwardMode());
        JOBS.produce(topic, 2, 2_500, 500);
        awaitDigests(run, values.truth(topic), job);
        job.cancel().get(30, TimeUnit.SECONDS);
        assertThat(
                        FailOnce.firedAtOffset(
                                run.checker, topic + "-0", values.virtualOffsetOfLastValue(2_000)))
                .as("failure at the handover")
                .isTrue();
        assertThat(FailOnce.fired(run.checker, 1_500L)).as("failure during backfill").isTrue();
        assertSound(run);
        JOBS.assertRestarts(run);
        LOG.info(
                "{} values per record: {} values checked",
                values,
                total(KafkaExactlyOnceChecker.digests(run.checker)));
    }

    @Test
    void aBoundedJobRestoredFromASavepointAfterAPartitionWasAddedEndsAtTheStopsOfItsFirstStart(
            @TempDir Path savepoints) throws Exception {
        String topic = "bounded-grow-" + UUID.randomUUID();
        KAFKA.createTopic(topic, 3);
        JOBS.produce(topic, 3, 0, 1_000);
        Run run = new Run();
        // the stopping offsets are the partitions' ends at the first start: 1,000 each
        JobClient first =
                JOBS.start(
                        run,
                        JOBS.builder(topic).setBounded(OffsetsInitializer.latest()).build(),
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
        JOBS.produce(topic, 4, 1_000, 200);
        String savepoint =
                first.stopWithSavepoint(
                                false, savepoints.toUri().toString(), SavepointFormatType.CANONICAL)
                        .get(60, TimeUnit.SECONDS);
        assertThat(total(KafkaExactlyOnceChecker.digests(run.checker)))
                .as("stopped before the end")
                .isLessThan(3_000);

        JobClient second =
                JOBS.start(
                        run,
                        JOBS.builder(topic).setBounded(OffsetsInitializer.latest()).build(),
                        2,
                        List.of(),
                        0,
                        savepoint);
        second.getJobExecutionResult().get(120, TimeUnit.SECONDS);
        assertThat(KafkaExactlyOnceChecker.digests(run.checker))
                .isEqualTo(KAFKA.digestsBelow(topic, 3, 1_000));
        assertSound(run);
        JOBS.assertRestarts(run);
    }

    @Test
    void
            aBoundedJobAfterAGlobalFailoverThatCameAfterAPartitionWasAddedEndsAtTheStopsOfItsFirstStart()
                    throws Exception {
        String topic = "bounded-failover-" + UUID.randomUUID();
        KAFKA.createTopic(topic, 3);
        JOBS.produce(topic, 3, 0, 1_000);
        Run run = new Run();
        JobClient job =
                JOBS.start(
                        run,
                        JOBS.builder(topic).setBounded(OffsetsInitializer.latest()).build(),
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
        JOBS.produce(topic, 4, 1_000, 200);
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
        JOBS.assertRestarts(run);
    }

    @Test
    void aBackfillRestoredBelowTheEarliestRetainedOffsetFailsNamingPartitionAndOffsets(
            @TempDir Path savepoints) throws Exception {
        String topic = "retention-restore-" + UUID.randomUUID();
        Run run = new Run();
        String savepoint = stoppedDuringTheBackfill(run, topic, JOBS.builder(topic), savepoints);
        // retention takes the rest of the backfill's history before the job is restored
        TopicPartition tp = new TopicPartition(topic, 0);
        KAFKA.deleteRecordsBelow(topic, 0, 1_500);
        JobClient second = JOBS.start(run, JOBS.builder(topic).build(), 1, List.of(), 0, savepoint);
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
        JOBS.assertRestarts(run);
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
        JOBS.produce(topic, 1, 0, 2_000);
        JobClient first = JOBS.start(run, source.build(), 1, List.of(), 500, null);
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
                JOBS.builder(topic)
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

        JOBS.start(run, skipping.build(), 1, List.of(), 0, savepoint)
                .getJobExecutionResult()
                .get(120, TimeUnit.SECONDS);
        assertThat(KafkaExactlyOnceChecker.digests(run.checker))
                .isEqualTo(Map.of(topic + "-0", expected));
        JOBS.assertRestarts(run);
    }
}
