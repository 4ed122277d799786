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
package dev.sourcebackfill.source.iceberg;

import dev.sourcebackfill.source.BackfillSource;
import dev.sourcebackfill.source.OffsetGapPolicy;
import dev.sourcebackfill.source.iceberg.IcebergTestTables.Kind;
import dev.sourcebackfill.source.kafka.KafkaTestEnvironment;
import dev.sourcebackfill.source.spi.DiscoveredSplit;
import dev.sourcebackfill.source.spi.LogSplitDiscoverer;
import dev.sourcebackfill.source.testutils.FailOnce;
import dev.sourcebackfill.source.testutils.LineUpgrades;
import dev.sourcebackfill.source.testutils.PartitionChecker;
import dev.sourcebackfill.source.testutils.RestartCounter;

import org.apache.flink.api.common.JobStatus;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.ExceptionUtils;

import org.apache.iceberg.DataFile;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.data.Record;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import static dev.sourcebackfill.source.iceberg.IcebergBackfillJobs.JOB;
import static dev.sourcebackfill.source.iceberg.IcebergBackfillJobs.rows;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * History from an Iceberg table written from the topic (a Hadoop catalog on the local file system
 * and Iceberg's REST catalog served on 127.0.0.1), live from a real Kafka broker in this JVM. The
 * table's rows carry values {@code T|partition|offset}, the topic's records {@code
 * K|partition|offset}: every run is checked per partition from the job's checkpointed state, every
 * expected offset exactly once, those in the table from the table, and its restarts counted.
 *
 * <p>What is read from the table, and across failures and restores: every layout through the REST
 * catalog, files mixing partitions read in chunks with failures in the table read and at the
 * handover, a large file cut where its row groups start, deleted and dead-lettered rows as holes, a
 * gap between the table and the topic under each policy; a savepoint restored at another
 * parallelism after a compaction, a restore whose pinned snapshot expired, a snapshot tag through
 * the writer's expiry; and the two halves of moving a half-read table to another Flink line. The
 * order records come in is {@link IcebergBackfillOrderITCase}'s.
 */
class IcebergBackfillTableReadITCase {

    private static final RestartCounter RESTARTS = new RestartCounter();

    @RegisterExtension static final MiniClusterExtension CLUSTER = RESTARTS.miniCluster();

    @RegisterExtension static final KafkaTestEnvironment KAFKA = new KafkaTestEnvironment();

    @RegisterExtension static final LoopbackRestCatalog REST = new LoopbackRestCatalog();

    /** The topic, the table's rows and the source over both, on this class's broker. */
    private static final IcebergBackfillJobs JOBS = new IcebergBackfillJobs(KAFKA);

    @TempDir Path warehouse;

    /**
     * Redpanda's layout, whose files mix partitions (one file per hour and commit): 4 partitions, 3
     * with rows in the table (partition 3 only in the topic), history in chunks over 2 readers, a
     * failure while a chunk is read, then, once the job runs again, one at partition 1's first
     * record from the topic (written only then, so that the two failures are two restarts). The
     * values are made by the topic's deserializer from the value bytes the table keeps.
     */
    @Test
    void filesMixingPartitionsReadInChunksWithFailuresInTheTableReadAndAtTheHandover()
            throws Exception {
        String topic = JOBS.topic("mixed", 1_500, 1_100, 1_500, 800);
        Map<String, String> catalog = IcebergTestTables.hadoopCatalog(warehouse);
        Table table =
                IcebergTestTables.create(
                        IcebergTestTables.open("local", catalog), "db.mixed", Kind.REDPANDA);
        for (long from = 0; from < 1_200; from += 200) {
            List<Record> commit = new ArrayList<>();
            for (int p = 0; p < 3; p++) {
                commit.addAll(
                        rows(
                                Kind.REDPANDA,
                                table,
                                topic,
                                p,
                                from,
                                Math.min(from + 200, 1_000 + 100L * p)));
            }
            IcebergTestTables.append(table, commit);
        }

        String run = UUID.randomUUID().toString();
        IcebergBackfillSourceBuilder<String> builder =
                JOBS.builder(topic, catalog, "db.mixed", Kind.REDPANDA, false)
                        .setBackfillChunkSize(300);
        JobClient job = JOB.run(run, builder.build()).failingOnceAt("T|0|450", "K|1|1100").start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (!FailOnce.fired(run).contains("T|0|450")
                || RESTARTS.restartsSoFar(job.getJobID()).orElse(0) < 1
                || job.getJobStatus().get() != JobStatus.RUNNING) {
            assertThat(System.nanoTime()).as("the first failure and restart").isLessThan(deadline);
            Thread.sleep(20);
        }
        KAFKA.produce(
                2,
                1_100,
                1_500,
                (p, o) -> p == 1 ? new ProducerRecord<>(topic, p, "k", "K|1|" + o) : null);
        while (PartitionChecker.total(run) < 1_500 * 3 + 800) {
            assertThat(System.nanoTime()).as("every record").isLessThan(deadline);
            Thread.sleep(20);
        }
        job.cancel().get(60, TimeUnit.SECONDS);

        PartitionChecker.assertNoViolations(run);
        PartitionChecker.assertPartition(run, 0, 0, 1_500, o -> o < 1_000, o -> true);
        PartitionChecker.assertPartition(run, 1, 0, 1_500, o -> o < 1_100, o -> true);
        PartitionChecker.assertPartition(run, 2, 0, 1_500, o -> o < 1_200, o -> true);
        PartitionChecker.assertPartition(run, 3, 0, 800, o -> false, o -> true);
        assertThat(FailOnce.fired(run)).containsExactlyInAnyOrder("T|0|450", "K|1|1100");
        assertThat(RESTARTS.failoversOf(job, Duration.ofSeconds(30))).as("restarts").isEqualTo(2);
    }

    /**
     * Every preset's layout through the REST catalog: values by the topic's deserializer where the
     * layout keeps the value bytes, by a record mapper of the {@code payload} column otherwise.
     */
    @ParameterizedTest
    @EnumSource(Kind.class)
    void everyLayoutThroughTheRestCatalog(Kind kind) throws Exception {
        String topic = JOBS.topic("layout", 600, 500);
        String tableName = "lake.t_" + kind.name().toLowerCase();
        Catalog rest = IcebergTestTables.open("rest", REST.properties());
        Table table = IcebergTestTables.create(rest, tableName, kind);
        for (long from = 0; from < 400; from += 100) {
            List<Record> commit = new ArrayList<>(rows(kind, table, topic, 0, from, from + 100));
            commit.addAll(rows(kind, table, topic, 1, from, Math.min(from + 100, 300)));
            IcebergTestTables.append(table, commit);
        }
        IcebergBackfillSourceBuilder<String> builder =
                JOBS.builder(topic, REST.properties(), tableName, kind).setBackfillChunkSize(150);
        if (!kind.keepsValueBytes()) {
            builder.setRecordMapper((row, out) -> out.collect((String) row.getField("payload")));
        }

        String run = UUID.randomUUID().toString();
        JobClient job = JOB.run(run, builder.build()).start();
        job.getJobExecutionResult().get(180, TimeUnit.SECONDS);

        PartitionChecker.assertNoViolations(run);
        PartitionChecker.assertPartition(run, 0, 0, 600, o -> o < 400, o -> true);
        PartitionChecker.assertPartition(run, 1, 0, 500, o -> o < 300, o -> true);
        assertThat(RESTARTS.failoversOf(job, Duration.ofSeconds(30))).as("restarts").isZero();
    }

    /**
     * Rows the writer sent to a dead-letter table (missing here) and rows the table deleted are not
     * read from the topic either: partition 0 goes live after the highest offset its data files
     * hold, deleted rows included.
     */
    @Test
    void deletedAndDeadLetteredRowsAreHolesNotReadFromTheTopic() throws Exception {
        String topic = JOBS.topic("holes", 150, 150);
        Map<String, String> catalog = IcebergTestTables.hadoopCatalog(warehouse);
        Table table =
                IcebergTestTables.create(
                        IcebergTestTables.open("local", catalog), "db.holes", Kind.KAFKA_CONNECT);
        Set<Long> deadLettered = Set.of(10L, 11L, 60L);
        List<Record> commit =
                new ArrayList<>(
                        rows(
                                Kind.KAFKA_CONNECT,
                                table,
                                topic,
                                0,
                                0,
                                100,
                                o -> !deadLettered.contains(o)));
        commit.addAll(rows(Kind.KAFKA_CONNECT, table, topic, 1, 0, 100));
        List<DataFile> files = IcebergTestTables.append(table, commit);
        DataFile partition0 =
                files.stream().filter(f -> f.recordCount() == 97).findFirst().orElseThrow();
        // positions in the file: offset 20 is at 18 (10 and 11 are missing), offset 99 at 96
        IcebergTestTables.deletePositions(table, partition0, 18, 96);

        String run = UUID.randomUUID().toString();
        JobClient job =
                JOB.run(
                                run,
                                JOBS.builder(topic, catalog, "db.holes", Kind.KAFKA_CONNECT)
                                        .setRecordMapper(
                                                (row, out) ->
                                                        out.collect(
                                                                (String) row.getField("payload")))
                                        .build())
                        .start();
        job.getJobExecutionResult().get(180, TimeUnit.SECONDS);

        PartitionChecker.assertNoViolations(run);
        Set<Long> missing = Set.of(10L, 11L, 20L, 60L, 99L);
        PartitionChecker.assertPartition(run, 0, 0, 150, o -> o < 100, o -> !missing.contains(o));
        PartitionChecker.assertPartition(run, 1, 0, 150, o -> o < 100, o -> true);
        assertThat(RESTARTS.failoversOf(job, Duration.ofSeconds(30))).as("restarts").isZero();
    }

    /**
     * One large data file per partition, in row groups of 100 rows, with a chunk size of 400: the
     * enumerator cuts partition 0's file of 2,000 rows where its row groups start, and the chunks
     * of the one file are read by both readers side by side, each from its row group on; a failure
     * inside the file, so that a chunk is read again from inside it after the restore. Every offset
     * once, those in the table from the table. Redpanda's layout with the topic's value-only
     * deserializer is read by the adapter's batched reader (each chunk from its row group on),
     * Kafka Connect's with a record mapper by Iceberg's generic reader.
     */
    @ParameterizedTest
    @EnumSource(
            value = Kind.class,
            names = {"REDPANDA", "KAFKA_CONNECT"})
    void aLargeFileCutWhereItsRowGroupsStartIsReadInChunksAcrossAFailure(Kind kind)
            throws Exception {
        String topic = JOBS.topic("large", 2_300, 600);
        Map<String, String> catalog = IcebergTestTables.hadoopCatalog(warehouse);
        Table table =
                IcebergTestTables.create(
                        IcebergTestTables.open("local", catalog), "db.large", kind);
        table.updateProperties()
                .set("write.parquet.row-group-size-bytes", "1")
                .set("write.parquet.row-group-check-min-record-count", "100")
                .set("write.parquet.row-group-check-max-record-count", "100")
                .commit();
        IcebergTestTables.append(table, rows(kind, table, topic, 0, 0, 2_000));
        IcebergTestTables.append(table, rows(kind, table, topic, 1, 0, 500));
        table.refresh();
        // where the enumerator cuts partition 0's part (its one file): at its row groups
        LogSplitDiscoverer topicSplits =
                initial ->
                        List.of(
                                DiscoveredSplit.backfilled(topic + "-0", 0, 2_300),
                                DiscoveredSplit.backfilled(topic + "-1", 0, 600));
        try (IcebergDiscoverer discoverer =
                new IcebergDiscoverer(
                        topicSplits,
                        new IcebergTableRef("local", catalog, "db.large"),
                        new RowColumns(kind.layout, topic),
                        false,
                        null,
                        false)) {
            DiscoveredSplit part =
                    discoverer.discoverSplits(true).stream()
                            .filter(split -> TableHistorySplit.isTableHistory(split.splitId()))
                            .findFirst()
                            .orElseThrow();
            assertThat(part.stoppingOffset()).hasValue(2_000);
            assertThat(discoverer.cutHistory(part, 0, 2_000, 400))
                    .containsExactly(400L, 800L, 1_200L, 1_600L);
        }

        String run = UUID.randomUUID().toString();
        IcebergBackfillSourceBuilder<String> builder =
                JOBS.builder(topic, catalog, "db.large", kind)
                        .setBackfillChunkSize(400)
                        .setMaxRecordsPerPoll(50);
        if (kind == Kind.KAFKA_CONNECT) {
            // its layout keeps no record value
            builder.setRecordMapper((row, out) -> out.collect((String) row.getField("payload")));
        }
        JobClient job =
                JOB.run(run, builder.build()).throttle(1_000).failingOnceAt("T|0|1050").start();
        job.getJobExecutionResult().get(180, TimeUnit.SECONDS);

        PartitionChecker.assertNoViolations(run);
        PartitionChecker.assertPartition(run, 0, 0, 2_300, o -> o < 2_000, o -> true);
        PartitionChecker.assertPartition(run, 1, 0, 600, o -> o < 500, o -> true);
        assertThat(FailOnce.fired(run)).containsExactly("T|0|1050");
        assertThat(RESTARTS.failoversOf(job, Duration.ofSeconds(30))).as("restarts").isEqualTo(1);
    }

    /**
     * A stop-with-savepoint while the table is read at parallelism 2; the table compacted (its
     * files rewritten in a new snapshot) before the restore at parallelism 3: the restored job
     * reads the snapshot it pinned, to the same result.
     */
    @Test
    void aSavepointDuringTheTableReadRestoredAtAnotherParallelismAfterACompaction(
            @TempDir Path savepoints) throws Exception {
        String topic = JOBS.topic("restore", 2_400, 2_400, 2_400);
        Map<String, String> catalog = IcebergTestTables.hadoopCatalog(warehouse);
        Table table =
                IcebergTestTables.create(
                        IcebergTestTables.open("local", catalog), "db.restore", Kind.KAFKA_CONNECT);
        for (long from = 0; from < 2_000; from += 250) {
            List<Record> commit = new ArrayList<>();
            for (int p = 0; p < 3; p++) {
                commit.addAll(rows(Kind.KAFKA_CONNECT, table, topic, p, from, from + 250));
            }
            IcebergTestTables.append(table, commit);
        }
        IcebergBackfillSourceBuilder<String> builder =
                JOBS.builder(topic, catalog, "db.restore", Kind.KAFKA_CONNECT)
                        .setRecordMapper(
                                (row, out) -> out.collect((String) row.getField("payload")))
                        .setBackfillChunkSize(1_000)
                        .setMaxRecordsPerPoll(50);

        String run = UUID.randomUUID().toString();
        JobClient first = JOB.run(run, builder.build()).throttle(500).start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (PartitionChecker.total(run) < 1_000) {
            assertThat(System.nanoTime()).as("some of the table read").isLessThan(deadline);
            Thread.sleep(20);
        }
        String savepoint =
                first.stopWithSavepoint(
                                false, savepoints.toUri().toString(), SavepointFormatType.CANONICAL)
                        .get(60, TimeUnit.SECONDS);
        assertThat(PartitionChecker.fromHistory(run))
                .as("stopped while the table is read")
                .isLessThan(6_000);
        table.refresh();
        IcebergTestTables.compact(table);

        JobClient second =
                JOB.run(run, builder.build()).parallelism(3).fromSavepoint(savepoint).start();
        second.getJobExecutionResult().get(180, TimeUnit.SECONDS);

        PartitionChecker.assertNoViolations(run);
        for (int p = 0; p < 3; p++) {
            PartitionChecker.assertPartition(run, p, 0, 2_400, o -> o < 2_000, o -> true);
        }
        assertThat(RESTARTS.failoversOf(second, Duration.ofSeconds(30))).as("restarts").isZero();
    }

    /** A restore whose pinned snapshot the table expired since fails naming it and the table. */
    @Test
    void aRestoreWhosePinnedSnapshotExpiredFailsNamingItAndTheTable(@TempDir Path savepoints)
            throws Exception {
        String topic = JOBS.topic("expired", 2_000);
        Map<String, String> catalog = IcebergTestTables.hadoopCatalog(warehouse);
        Table table =
                IcebergTestTables.create(
                        IcebergTestTables.open("local", catalog), "db.expired", Kind.KAFKA_CONNECT);
        for (long from = 0; from < 1_500; from += 250) {
            IcebergTestTables.append(
                    table, rows(Kind.KAFKA_CONNECT, table, topic, 0, from, from + 250));
        }
        long pinned = table.currentSnapshot().snapshotId();
        IcebergBackfillSourceBuilder<String> builder =
                JOBS.builder(topic, catalog, "db.expired", Kind.KAFKA_CONNECT)
                        .setRecordMapper(
                                (row, out) -> out.collect((String) row.getField("payload")))
                        .setMaxRecordsPerPoll(50);

        String run = UUID.randomUUID().toString();
        JobClient first = JOB.run(run, builder.build()).parallelism(1).throttle(500).start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (PartitionChecker.total(run) < 300) {
            assertThat(System.nanoTime()).as("some of the table read").isLessThan(deadline);
            Thread.sleep(20);
        }
        String savepoint =
                first.stopWithSavepoint(
                                false, savepoints.toUri().toString(), SavepointFormatType.CANONICAL)
                        .get(60, TimeUnit.SECONDS);
        table.refresh();
        IcebergTestTables.compact(table);
        table.expireSnapshots()
                .expireOlderThan(System.currentTimeMillis() + 1)
                .retainLast(1)
                .commit();

        JobClient second =
                JOB.run(run, builder.build()).parallelism(1).fromSavepoint(savepoint).start();
        assertThatThrownBy(() -> second.getJobExecutionResult().get(180, TimeUnit.SECONDS))
                .satisfies(
                        e ->
                                assertThat(
                                                ExceptionUtils.findThrowableWithMessage(
                                                        e,
                                                        "snapshot "
                                                                + pinned
                                                                + " of Iceberg table db.expired"))
                                        .hasValueSatisfying(
                                                named ->
                                                        assertThat(named.getMessage())
                                                                .as("the option that prevents it")
                                                                .contains(
                                                                        "'backfill.iceberg.snapshot-tag'")));
        assertThat(RESTARTS.restartsOf(second.getJobID())).as("restarts").isZero();
    }

    /**
     * Issue 34, item 2: with a snapshot tag, the writer's expiry while the table is read (new
     * commits, a compaction, every snapshot but the current expired, as AutoMQ does at each commit)
     * keeps the pinned snapshot and its files; a failure after the expiry restarts the job, whose
     * readers plan the pinned snapshot again and read on. Every offset once per partition, one
     * restart, and the tag is gone once forward mode is confirmed.
     */
    @Test
    void theTagKeepsThePinnedSnapshotThroughTheWritersExpiryAndGoesAtForwardMode()
            throws Exception {
        String topic = JOBS.topic("tagged", 1_500, 1_500);
        Map<String, String> catalog = IcebergTestTables.hadoopCatalog(warehouse);
        Table table =
                IcebergTestTables.create(
                        IcebergTestTables.open("local", catalog), "db.tagged", Kind.KAFKA_CONNECT);
        for (long from = 0; from < 1_000; from += 250) {
            List<Record> commit = new ArrayList<>();
            for (int p = 0; p < 2; p++) {
                commit.addAll(rows(Kind.KAFKA_CONNECT, table, topic, p, from, from + 250));
            }
            IcebergTestTables.append(table, commit);
        }
        long pinned = table.currentSnapshot().snapshotId();
        String run = UUID.randomUUID().toString();
        String tag = "backfill-" + run;
        IcebergBackfillSourceBuilder<String> builder =
                JOBS.builder(topic, catalog, "db.tagged", Kind.KAFKA_CONNECT, false)
                        .setRecordMapper(
                                (row, out) -> out.collect((String) row.getField("payload")))
                        .setBackfillChunkSize(500)
                        .setMaxRecordsPerPoll(50)
                        .setSnapshotTag(tag, Duration.ofHours(1));

        // the failure waits for the expiry: the restart's readers plan the pinned snapshot after it
        FailOnce.holdUntilReleased(run);
        JobClient job = JOB.run(run, builder.build()).failingOnceAt("T|1|600").start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!tags(table).contains(tag)) {
            assertThat(System.nanoTime()).as("the tag set at the first start").isLessThan(deadline);
            Thread.sleep(20);
        }
        assertThat(table.refs().get(tag).snapshotId()).isEqualTo(pinned);
        IcebergTestTables.append(table, rows(Kind.KAFKA_CONNECT, table, topic, 0, 1_000, 1_100));
        table.refresh();
        IcebergTestTables.compact(table);
        table.refresh();
        table.expireSnapshots()
                .expireOlderThan(System.currentTimeMillis() + 1)
                .retainLast(1)
                .commit();
        table.refresh();
        assertThat(table.snapshot(pinned)).as("the tagged snapshot after the expiry").isNotNull();
        assertThat(table.snapshots()).as("the current snapshot and the tagged one").hasSize(2);
        FailOnce.release(run);

        while (PartitionChecker.total(run) < 3_000 || tags(table).contains(tag)) {
            assertThat(System.nanoTime())
                    .as("every record, and the tag removed at forward mode")
                    .isLessThan(deadline);
            Thread.sleep(20);
        }
        job.cancel().get(60, TimeUnit.SECONDS);

        PartitionChecker.assertNoViolations(run);
        for (int p = 0; p < 2; p++) {
            PartitionChecker.assertPartition(run, p, 0, 1_500, o -> o < 1_000, o -> true);
        }
        assertThat(FailOnce.fired(run)).containsExactly("T|1|600");
        assertThat(RESTARTS.failoversOf(job, Duration.ofSeconds(30))).as("restarts").isEqualTo(1);
    }

    private static Set<String> tags(Table table) {
        table.refresh();
        return table.refs().keySet();
    }

    /**
     * Retention deleted the topic's offsets right after the table's rows: the gap fails the job
     * naming the partition and the offsets, or, told to skip, the partition goes on at the topic's
     * earliest offset.
     */
    @ParameterizedTest
    @EnumSource(OffsetGapPolicy.class)
    void aGapBetweenTheTableAndTheTopicFollowsTheGapPolicy(OffsetGapPolicy policy)
            throws Exception {
        String topic = JOBS.topic("gap", 300);
        KAFKA.deleteRecordsBelow(topic, 0, 150);
        Map<String, String> catalog = IcebergTestTables.hadoopCatalog(warehouse);
        Table table =
                IcebergTestTables.create(
                        IcebergTestTables.open("local", catalog), "db.gap", Kind.KAFKA_CONNECT);
        IcebergTestTables.append(table, rows(Kind.KAFKA_CONNECT, table, topic, 0, 0, 100));
        BackfillSource<String> source =
                JOBS.builder(topic, catalog, "db.gap", Kind.KAFKA_CONNECT)
                        .setRecordMapper(
                                (row, out) -> out.collect((String) row.getField("payload")))
                        .setOffsetGapPolicy(policy)
                        .build();

        String run = UUID.randomUUID().toString();
        JobClient job = JOB.run(run, source).parallelism(1).start();
        if (policy == OffsetGapPolicy.FAIL) {
            assertThatThrownBy(() -> job.getJobExecutionResult().get(180, TimeUnit.SECONDS))
                    .satisfies(
                            e -> {
                                Optional<Throwable> gap =
                                        ExceptionUtils.findThrowableWithMessage(e, "gap");
                                assertThat(gap).isPresent();
                                assertThat(gap.get().getMessage())
                                        .contains(topic + "-0")
                                        .contains("100")
                                        .contains("150");
                            });
        } else {
            job.getJobExecutionResult().get(180, TimeUnit.SECONDS);
            PartitionChecker.assertNoViolations(run);
            PartitionChecker.assertPartition(
                    run, 0, 0, 300, o -> o < 100, o -> o < 100 || o >= 150);
        }
        assertThat(RESTARTS.restartsOf(job.getJobID())).as("restarts").isZero();
    }

    // ------------------------------------------------ moving to another Flink line (issue 35)

    private static final String UPGRADE_WRITE = LineUpgrades.WRITE;
    private static final String UPGRADE_READ = LineUpgrades.READ;
    private static final String UPGRADE_MANIFEST = "iceberg-upgrade.properties";
    private static final long UPGRADE_TABLE_END = 2_000;

    /**
     * The topic's end in each partition: 20,000 records past the table, far more than the first
     * half reads at 500 records a second and reader, so each partition's live read is part-way at
     * the stop too.
     */
    private static final long UPGRADE_TOPIC_END = 22_000;

    /**
     * The table of the upgrade test, in {@code dir}'s warehouse: Redpanda's layout, 8 commits of
     * files mixing 3 partitions, offsets [0, 2,000) of each; the topic holds [0, 22,000).
     */
    private static IcebergBackfillSourceBuilder<String> upgradeSource(String topic, Path dir) {
        return JOBS.builder(
                        topic,
                        IcebergTestTables.hadoopCatalog(dir.resolve("warehouse")),
                        "db.upgrade",
                        Kind.REDPANDA)
                .setBackfillChunkSize(500)
                .setMaxRecordsPerPoll(50);
    }

    /**
     * The first half of moving a backfill to another Flink line with its Iceberg history half read
     * (README "Flink lines", the upgrade; the datagen side is the tests module's {@code
     * LineUpgradeITCase}): run with {@code -Dbackfill.upgrade.write=DIR} on the line left ({@code
     * .ci/run}: 1.20), it reads part of the table in chunks on 2 readers, stops with a savepoint
     * and writes into {@code DIR/iceberg} the table, the savepoint and what the checker had, for
     * {@link #resumesATableReadFromAnotherLinesSavepoint} on the line moved to.
     */
    @Test
    @EnabledIfSystemProperty(named = UPGRADE_WRITE, matches = ".+")
    void stopsATableReadMidwayWithASavepointForAnotherLine() throws Exception {
        Path dir = Path.of(System.getProperty(UPGRADE_WRITE)).toAbsolutePath().resolve("iceberg");
        assertThat(dir).as("a directory of an earlier first half").doesNotExist();
        Files.createDirectories(dir);
        String topic =
                JOBS.topic("upgrade", UPGRADE_TOPIC_END, UPGRADE_TOPIC_END, UPGRADE_TOPIC_END);
        Table table =
                IcebergTestTables.create(
                        IcebergTestTables.open(
                                "local", IcebergTestTables.hadoopCatalog(dir.resolve("warehouse"))),
                        "db.upgrade",
                        Kind.REDPANDA);
        for (long from = 0; from < UPGRADE_TABLE_END; from += 250) {
            List<Record> commit = new ArrayList<>();
            for (int p = 0; p < 3; p++) {
                commit.addAll(rows(Kind.REDPANDA, table, topic, p, from, from + 250));
            }
            IcebergTestTables.append(table, commit);
        }

        String run = UUID.randomUUID().toString();
        JobClient first = JOB.run(run, upgradeSource(topic, dir).build()).throttle(500).start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (PartitionChecker.fromHistory(run) < 1_000) {
            assertThat(System.nanoTime()).as("some of the table read").isLessThan(deadline);
            Thread.sleep(20);
        }
        String savepoint =
                first.stopWithSavepoint(
                                false,
                                dir.resolve("savepoints").toUri().toString(),
                                SavepointFormatType.CANONICAL)
                        .get(60, TimeUnit.SECONDS);
        long tableRead = PartitionChecker.fromHistory(run);
        assertThat(tableRead)
                .as("rows read from the table before the stop: the table half read")
                .isBetween(1_000L, 3 * UPGRADE_TABLE_END - 1_000);
        PartitionChecker.assertNoViolations(run);
        // a partition's live read part-way at the stop: its split moves with a position inside
        // the topic (which partitions the readers' consumers served first varies)
        assertThat(PartitionChecker.progress(run).values())
                .as("partitions whose records from the topic were part-read at the stop")
                .anySatisfy(
                        progress ->
                                assertThat(progress.count() - progress.fromHistory())
                                        .isBetween(1L, UPGRADE_TOPIC_END - UPGRADE_TABLE_END - 1));
        assertThat(RESTARTS.failoversOf(first, Duration.ofSeconds(30))).as("restarts").isZero();

        Properties manifest = new Properties();
        manifest.setProperty("savepoint", savepoint);
        manifest.setProperty("topic", topic);
        manifest.setProperty("run", run);
        manifest.setProperty("tableRead", Long.toString(tableRead));
        PartitionChecker.progress(run)
                .forEach(
                        (partition, progress) ->
                                manifest.setProperty(
                                        "progress." + partition,
                                        progress.count()
                                                + ","
                                                + progress.sum()
                                                + ","
                                                + progress.fromHistory()
                                                + ","
                                                + progress.fromHistorySum()));
        LineUpgrades.write(
                dir.resolve(UPGRADE_MANIFEST),
                manifest,
                "IcebergBackfillTableReadITCase's first half of the upgrade");
    }

    /**
     * The second half, run with {@code -Dbackfill.upgrade.read=DIR} on the line moved to ({@code
     * .ci/run}: the default line): the same topic (a broker cannot move between the two builds: a
     * new one gets the same records at the same offsets, as a topic that lives on does), the same
     * table, the first half's savepoint resumed at parallelism 3. The checker's keyed state comes
     * from the savepoint: every (partition, offset) once over both halves, those below the table's
     * end from the table, the rest from the topic; the table's read went on here; no restart.
     */
    @Test
    @EnabledIfSystemProperty(named = UPGRADE_READ, matches = ".+")
    void resumesATableReadFromAnotherLinesSavepoint() throws Exception {
        Path dir = Path.of(System.getProperty(UPGRADE_READ)).toAbsolutePath().resolve("iceberg");
        Properties manifest = LineUpgrades.read(dir.resolve(UPGRADE_MANIFEST));
        String topic =
                JOBS.topicNamed(
                        manifest.getProperty("topic"),
                        UPGRADE_TOPIC_END,
                        UPGRADE_TOPIC_END,
                        UPGRADE_TOPIC_END);
        String run = manifest.getProperty("run");
        // a partition with no record after the restore keeps what the checker had at the stop
        Map<Integer, PartitionChecker.Progress> before = new ConcurrentHashMap<>();
        for (String key : manifest.stringPropertyNames()) {
            if (key.startsWith("progress.")) {
                long[] v =
                        Arrays.stream(manifest.getProperty(key).split(","))
                                .mapToLong(Long::parseLong)
                                .toArray();
                before.put(
                        Integer.parseInt(key.substring("progress.".length())),
                        new PartitionChecker.Progress(v[0], v[1], v[2], v[3]));
            }
        }
        PartitionChecker.progress(run).putAll(before);
        long checkedBefore =
                before.values().stream().mapToLong(PartitionChecker.Progress::count).sum();

        JobClient second =
                JOB.run(run, upgradeSource(topic, dir).build())
                        .parallelism(3)
                        .fromSavepoint(manifest.getProperty("savepoint"))
                        .start();
        second.getJobExecutionResult().get(180, TimeUnit.SECONDS);

        PartitionChecker.assertNoViolations(run);
        for (int p = 0; p < 3; p++) {
            PartitionChecker.assertPartition(
                    run, p, 0, UPGRADE_TOPIC_END, o -> o < UPGRADE_TABLE_END, o -> true);
        }
        assertThat(PartitionChecker.fromHistory(run))
                .as("rows from the table in both halves, some of them in this one")
                .isEqualTo(3 * UPGRADE_TABLE_END)
                .isGreaterThan(Long.parseLong(manifest.getProperty("tableRead")));
        assertThat(PartitionChecker.processed(run))
                .as("records processed after the move: those the savepoint had not (none again)")
                .isEqualTo(3 * UPGRADE_TOPIC_END - checkedBefore);
        assertThat(RESTARTS.failoversOf(second, Duration.ofSeconds(30))).as("restarts").isZero();
    }
}
