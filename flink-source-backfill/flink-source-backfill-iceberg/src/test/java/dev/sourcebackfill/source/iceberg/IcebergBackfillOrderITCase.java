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
import dev.sourcebackfill.source.iceberg.IcebergTestTables.Kind;
import dev.sourcebackfill.source.kafka.KafkaTestEnvironment;
import dev.sourcebackfill.source.testutils.FailOnce;
import dev.sourcebackfill.source.testutils.PartitionChecker;
import dev.sourcebackfill.source.testutils.RestartCounter;

import org.apache.flink.api.common.JobStatus;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.Collector;

import org.apache.iceberg.Table;
import org.apache.iceberg.data.Record;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static dev.sourcebackfill.source.iceberg.IcebergBackfillJobs.JOB;
import static dev.sourcebackfill.source.iceberg.IcebergBackfillJobs.rows;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * History from an Iceberg table written from the topic (a Hadoop catalog on the local file system),
 * live from a real Kafka broker in this JVM. The table's rows carry values {@code
 * T|partition|offset}, the topic's records {@code K|partition|offset}: every run is checked per
 * partition from the job's checkpointed state, every expected offset exactly once, those in the
 * table from the table, and its restarts counted.
 *
 * <p>The order records come in: ordered mode (each partition's table rows in offset order, then its
 * live records, across failures), the order checker seeing the disorder without it, and table
 * chunks waiting for their turn under a watermark strategy with idleness (no row late). What is
 * read, across failures and restores, is {@link IcebergBackfillTableReadITCase}'s.
 */
class IcebergBackfillOrderITCase {

    private static final RestartCounter RESTARTS = new RestartCounter();

    @RegisterExtension static final MiniClusterExtension CLUSTER = RESTARTS.miniCluster();

    @RegisterExtension static final KafkaTestEnvironment KAFKA = new KafkaTestEnvironment();

    /** The topic, the table's rows and the source over both, on this class's broker. */
    private static final IcebergBackfillJobs JOBS = new IcebergBackfillJobs(KAFKA);

    @TempDir Path warehouse;

    /**
     * Ordered mode, for a job keeping per-key state without event time: Redpanda's files mixing
     * partitions (each read by the reader of every partition it holds), 4 partitions (partition 3
     * only in the topic), 2 readers, a failure during the table read and, once the job runs again,
     * one at partition 1's first record from the topic. A keyed function per partition checks that
     * every offset is the one after the previous (the topic has no holes): each partition's table
     * rows in offset order, then its live records, across both failures; and every offset once,
     * those in the table from the table.
     */
    @Test
    void orderedModeGivesEachPartitionsHistoryThenItsLiveRecordsInOffsetOrderAcrossFailures()
            throws Exception {
        String topic = JOBS.topic("ordered", 1_500, 1_100, 1_500, 800);
        Map<String, String> catalog = IcebergTestTables.hadoopCatalog(warehouse);
        Table table =
                IcebergTestTables.create(
                        IcebergTestTables.open("local", catalog), "db.ordered", Kind.REDPANDA);
        // commits of 200 offsets per partition, newest first: the files' order in the table is
        // not the offsets' order
        for (long from = 1_000; from >= 0; from -= 200) {
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
                JOBS.builder(topic, catalog, "db.ordered", Kind.REDPANDA, false)
                        .setOrdered(true)
                        .setMaxRecordsPerPoll(50);
        JobClient job =
                JOB.run(run, builder.build())
                        .failingOnceAt("T|0|450", "K|1|1100")
                        .inOrder()
                        .start();
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
        Map<Integer, Long> lastOffsets = Map.of(0, 1_499L, 1, 1_499L, 2, 1_499L, 3, 799L);
        while (PartitionChecker.total(run) < 1_500 * 3 + 800
                || !PartitionChecker.lastOffsets(run).equals(lastOffsets)) {
            assertThat(System.nanoTime()).as("every record").isLessThan(deadline);
            Thread.sleep(20);
        }
        job.cancel().get(60, TimeUnit.SECONDS);

        PartitionChecker.assertNoViolations(run);
        PartitionChecker.assertPartition(run, 0, 0, 1_500, o -> o < 1_000, o -> true);
        PartitionChecker.assertPartition(run, 1, 0, 1_500, o -> o < 1_100, o -> true);
        PartitionChecker.assertPartition(run, 2, 0, 1_500, o -> o < 1_200, o -> true);
        PartitionChecker.assertPartition(run, 3, 0, 800, o -> false, o -> true);
        assertThat(PartitionChecker.lastOffsets(run))
                .containsExactlyInAnyOrderEntriesOf(
                        Map.of(0, 1_499L, 1, 1_499L, 2, 1_499L, 3, 799L));
        assertThat(FailOnce.fired(run)).containsExactlyInAnyOrder("T|0|450", "K|1|1100");
        assertThat(RESTARTS.failoversOf(job, Duration.ofSeconds(30))).as("restarts").isEqualTo(2);
    }

    /**
     * The same table without ordered mode breaks the order the test above checks (a partition's
     * live records before its history, chunks in no order): the order checker is not blind.
     */
    @Test
    void withoutOrderedModeTheOrderCheckerSeesPartitionsOutOfOrder() throws Exception {
        String topic = JOBS.topic("unordered", 600, 600);
        Map<String, String> catalog = IcebergTestTables.hadoopCatalog(warehouse);
        Table table =
                IcebergTestTables.create(
                        IcebergTestTables.open("local", catalog), "db.unordered", Kind.REDPANDA);
        for (long from = 400; from >= 0; from -= 100) {
            List<Record> commit = new ArrayList<>();
            for (int p = 0; p < 2; p++) {
                commit.addAll(rows(Kind.REDPANDA, table, topic, p, from, from + 100));
            }
            IcebergTestTables.append(table, commit);
        }
        String run = UUID.randomUUID().toString();
        JobClient job =
                JOB.run(
                                run,
                                JOBS.builder(topic, catalog, "db.unordered", Kind.REDPANDA)
                                        .setBackfillChunkSize(100)
                                        // the history slower than the live records
                                        .setBackfillRecordsPerSecond(200)
                                        .build())
                        .inOrder()
                        .start();
        job.getJobExecutionResult().get(180, TimeUnit.SECONDS);

        assertThat(PartitionChecker.duplicates(run)).isEmpty();
        PartitionChecker.assertPartition(run, 0, 0, 600, o -> o < 500, o -> true);
        assertThat(PartitionChecker.outOfOrder(run)).isNotEmpty();
    }

    /**
     * Issue 34, defect 2 for a table's history: Kafka Connect's layout (files of one partition
     * each, every partition's rows over the same time), chunks of one file waiting for their turn
     * under a watermark strategy with idleness (500 ms), the table read at 100 rows a second a
     * reader, 5 rows a fetch: a chunk reads for seconds, so the waiting ones are idle long before
     * their turn, while the parts that read emit every 150 ms or so. The topic has nothing past the
     * table (live records, ahead in event time of all history, would pass any history that emits
     * nothing for longer than the idle timeout, waiting or not: docs/design.md, "Event time"), so
     * what is measured is the order of turns alone. The history is read as one split per
     * partition's files, side by side, each oldest chunk first: no row is behind its reader's
     * watermark where it arrives, none lost, no restart. (Before: the history was one split whose
     * chunks, one partition's files after another's, took turns on a reader; the waiting ones were
     * taken for idle, and a chunk of partition 1 came after partition 0's newest rows.)
     */
    @ParameterizedTest(name = "parallelism {0}")
    @ValueSource(ints = {1, 2})
    void tableChunksWaitingForTheirTurnUnderIdlenessMakeNoRowLate(int parallelism)
            throws Exception {
        String topic = JOBS.topic("idle", 600, 600, 600);
        Map<String, String> catalog = IcebergTestTables.hadoopCatalog(warehouse);
        Table table =
                IcebergTestTables.create(
                        IcebergTestTables.open("local", catalog), "db.idle", Kind.KAFKA_CONNECT);
        for (long from = 0; from < 600; from += 100) {
            List<Record> commit = new ArrayList<>();
            for (int p = 0; p < 3; p++) {
                commit.addAll(rows(Kind.KAFKA_CONNECT, table, topic, p, from, from + 100));
            }
            IcebergTestTables.append(table, commit);
        }
        BackfillSource<String> source =
                JOBS.builder(topic, catalog, "db.idle", Kind.KAFKA_CONNECT)
                        .setRecordMapper(
                                (row, out) -> out.collect((String) row.getField("payload")))
                        .setBackfillChunkSize(100)
                        .setMaxRecordsPerPoll(5)
                        .setBackfillRecordsPerSecond(100)
                        .build();
        String run = UUID.randomUUID().toString();
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(parallelism);
        env.enableCheckpointing(100);
        env.fromSource(
                        source,
                        WatermarkStrategy.<String>forMonotonousTimestamps()
                                .withIdleness(Duration.ofMillis(500)),
                        "table-and-topic")
                .process(new CountBehindTheWatermark(run))
                .sinkTo(new DiscardingSink<>());
        JobClient job = env.executeAsync("table chunks under idleness " + run);
        job.getJobExecutionResult().get(180, TimeUnit.SECONDS);

        assertThat(RESTARTS.failoversOf(job, Duration.ofSeconds(30))).as("restarts").isZero();
        assertThat(CountBehindTheWatermark.SEEN.get(run).get()).as("records").isEqualTo(1_800);
        assertThat(CountBehindTheWatermark.LATE.getOrDefault(run, new AtomicLong()).get())
                .as("rows behind the watermark")
                .isZero();
    }

    /** Counts the records, and those behind the watermark (late for any event-time operator). */
    static final class CountBehindTheWatermark extends ProcessFunction<String, Void> {
        static final Map<String, AtomicLong> SEEN = new ConcurrentHashMap<>();
        static final Map<String, AtomicLong> LATE = new ConcurrentHashMap<>();

        private final String run;

        CountBehindTheWatermark(String run) {
            this.run = run;
        }

        @Override
        public void processElement(String value, Context ctx, Collector<Void> out) {
            SEEN.computeIfAbsent(run, k -> new AtomicLong()).incrementAndGet();
            if (ctx.timestamp() < ctx.timerService().currentWatermark()) {
                LATE.computeIfAbsent(run, k -> new AtomicLong()).incrementAndGet();
            }
        }
    }
}
