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
package dev.sourcebackfill.source;

import dev.sourcebackfill.source.datagen.DatagenLog;
import dev.sourcebackfill.source.datagen.DatagenRecord;
import dev.sourcebackfill.source.split.BackfillSplit;
import dev.sourcebackfill.source.testutils.BackfillTestJobs;
import dev.sourcebackfill.source.testutils.FailureInjector.Trigger;
import dev.sourcebackfill.source.testutils.KeyedExactlyOnceChecker;
import dev.sourcebackfill.source.testutils.Observations;
import dev.sourcebackfill.source.testutils.RestartCounter;
import dev.sourcebackfill.source.testutils.Throttle;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.Collector;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;

import static dev.sourcebackfill.source.testutils.BackfillTestJobs.assertExactlyOnce;
import static dev.sourcebackfill.source.testutils.BackfillTestJobs.assertForwardModeSound;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Chunks of history ({@code setBackfillChunkSize}) on a MiniCluster, over the datagen log: every
 * (partition, offset) once in checkpointed state, each chunk's offsets in order (the checkers check
 * each piece of a chunk's size in order; no order across them), across failures during the chunk
 * reads and at the handover, and a savepoint taken mid-chunks restored at another parallelism. The
 * jobs are bounded: each ends once every partition reached its stopping offset, past its history.
 */
class HistoryChunksITCase {

    private static final Logger LOG = LoggerFactory.getLogger(HistoryChunksITCase.class);

    private static final RestartCounter RESTARTS = new RestartCounter();

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER =
            new MiniClusterExtension(
                    new MiniClusterResourceConfiguration.Builder()
                            .setConfiguration(RESTARTS.addTo(new Configuration()))
                            .setNumberTaskManagers(2)
                            .setNumberSlotsPerTaskManager(4)
                            .build());

    private static final long CHUNK = 1_000;

    @TempDir Path savepoints;

    private static BackfillTestJobs.Spec spec(DatagenLog log, int parallelism) {
        BackfillTestJobs.Spec spec = new BackfillTestJobs.Spec();
        spec.log = log;
        spec.parallelism = parallelism;
        spec.backfillChunkSize = CHUNK;
        spec.checkerRun = UUID.randomUUID().toString();
        spec.sourceRun = UUID.randomUUID().toString();
        return spec;
    }

    /** The subtasks each split was given to, chunks by the chunks of each partition. */
    private static Set<Integer> readersOfChunksOf(Observations source, String partitionSplit) {
        Set<Integer> readers = new HashSet<>();
        source.splitAdds.forEach(
                (splitId, subtasks) -> {
                    if (splitId.startsWith(partitionSplit + "#chunk-")) {
                        readers.addAll(subtasks);
                    }
                });
        return readers;
    }

    /**
     * Two partitions at parallelism 4: without chunks two readers would backfill and two wait; with
     * chunks of 1,000 records every reader reads history of both partitions, a partition's chunks
     * going to the three readers other than its own (which reads its last part and goes live).
     */
    @Test
    void chunksAreReadByMoreReadersThanThereArePartitions() throws Exception {
        DatagenLog log =
                DatagenLog.builder()
                        .partitions(2)
                        .historyPerPartition(8_000)
                        .compactionHoleEvery(7)
                        .liveRatePerSecond(400)
                        // live long enough for a checkpoint to confirm forward mode after the
                        // three chunk readers (the partitions' own readers read no chunk) end
                        .boundedAfterLiveRecords(3_000)
                        .build();
        BackfillTestJobs.Spec spec = spec(log, 4);
        run(spec, "chunks over 4 readers, 2 partitions");
        Observations source = Observations.of(spec.sourceRun);
        assertExactlyOnce(Observations.of(spec.checkerRun), log);
        assertForwardModeSound(source, 4, true);
        for (int p = 0; p < 2; p++) {
            Set<Integer> own = new HashSet<>(source.splitAdds.get(DatagenLog.splitId(p)));
            assertThat(own).as("partition %d's own reader", p).hasSize(1);
            Set<Integer> others = new HashSet<>(Set.of(0, 1, 2, 3));
            others.removeAll(own);
            assertThat(readersOfChunksOf(source, DatagenLog.splitId(p)))
                    .as("readers of partition %d's chunks", p)
                    .containsExactlyInAnyOrderElementsOf(others);
        }
        // 8,000 records of history or more at discovery: at least 7 chunks a partition
        assertThat(source.splitAdds.keySet().stream().filter(id -> id.contains("#chunk-")))
                .hasSizeGreaterThanOrEqualTo(14);
    }

    /**
     * A failure while chunks are read (partition 0's offset 2,500: inside its third chunk) and one
     * at the handover of partition 1 (its last offsets of history or its first live one), under a
     * full restart (a keyed checker) and under region failover (each subtask a region: the
     * enumerator is not reset and gets the failed reader's chunks back).
     */
    @ParameterizedTest(name = "full restart: {0}")
    @ValueSource(booleans = {true, false})
    void failuresDuringChunkReadsAndAtTheHandover(boolean fullRestart) throws Exception {
        DatagenLog log =
                DatagenLog.builder()
                        .partitions(4)
                        .historyPerPartition(5_000)
                        .liveRatePerSecond(300)
                        .boundedAfterLiveRecords(1_500)
                        .build();
        BackfillTestJobs.Spec spec = spec(log, 3);
        spec.keyed = fullRestart;
        spec.throttlePerSubtask = 5_000;
        long history = log.historyOf(1);
        spec.failures =
                List.of(
                        Trigger.at("chunk", 0, 2_500),
                        Trigger.at("handover", 1, history),
                        Trigger.afterForwardMode("forward", 2, history + 100));
        String name = "chunks with failures, " + (fullRestart ? "full restart" : "region failover");
        run(spec, name);
        Observations checker = Observations.of(spec.checkerRun);
        assertThat(checker.failuresInjected.get()).as("failures injected").isEqualTo(3);
        assertThat(Observations.of(spec.sourceRun).subtaskResets.get())
                .as("subtask resets")
                .isGreaterThanOrEqualTo(3L);
        assertExactlyOnce(checker, log);
        assertForwardModeSound(Observations.of(spec.sourceRun), 3, true);
    }

    /**
     * A savepoint taken while chunks are read, restored at parallelism 3 and 1: the chunks and the
     * partitions' own splits go to other readers, and every offset is still read once.
     */
    @Test
    void aSavepointTakenMidChunksIsRestoredAtAnotherParallelism() throws Exception {
        DatagenLog log =
                DatagenLog.builder()
                        .partitions(3)
                        .historyPerPartition(6_000)
                        .liveRatePerSecond(300)
                        .boundedAfterLiveRecords(1_200)
                        .build();
        BackfillTestJobs.Spec first = spec(log, 2);
        first.throttlePerSubtask = 2_000;
        Observations firstChecker = Observations.of(first.checkerRun);
        String savepoint =
                stopWithSavepointWhen(
                        first,
                        "some history read",
                        () -> firstChecker.recordsChecked.get() > 4_000);
        List<BackfillSplit> snapshot =
                BackfillTestJobs.splitsInLatestSnapshot(Observations.of(first.sourceRun));
        assertThat(snapshot.stream().filter(s -> s.chunk().isPresent() && !s.isEnded()))
                .as("chunks not ended in the savepoint")
                .isNotEmpty();
        assertThat(firstChecker.violations).isEmpty();

        for (int parallelism : new int[] {3, 1}) {
            BackfillTestJobs.Spec resumed = spec(log, parallelism);
            resumed.savepoint = savepoint;
            // the checker's state comes from the savepoint: its run id must be the first one's
            resumed.checkerRun = first.checkerRun + "-p" + parallelism;
            Observations.of(resumed.checkerRun)
                    .completedPieces
                    .putAll(Observations.of(first.checkerRun).completedPieces);
            run(resumed, "restored mid-chunks at p" + parallelism);
            assertExactlyOnce(Observations.of(resumed.checkerRun), log);
            // the log's live records may all be there when the restored job catches up: a
            // bounded job may then end before a checkpoint confirms forward mode
            assertForwardModeSound(Observations.of(resumed.sourceRun), parallelism, false);
            assertThat(Observations.of(resumed.sourceRun).enumeratorRestores.get())
                    .as("the enumerator was restored from the savepoint")
                    .isEqualTo(1);
            Set<String> restoredChunks =
                    Observations.of(resumed.sourceRun).splitAdds.keySet().stream()
                            .filter(id -> id.contains("#chunk-"))
                            .collect(Collectors.toSet());
            assertThat(restoredChunks)
                    .as("the restored job was given the savepoint's chunks")
                    .containsAll(
                            snapshot.stream()
                                    .filter(s -> s.chunk().isPresent())
                                    .map(BackfillSplit::splitId)
                                    .collect(Collectors.toSet()));
        }
    }

    /**
     * Watermark alignment over chunks that take turns on one reader (parallelism 1: every chunk of
     * both partitions is there, and all but one of each partition's wait). A waiting chunk has
     * emitted nothing and holds the reader's watermark back; the chunk alignment pauses for running
     * ahead gives way to it. The job ends (it would hang if the paused chunk kept its partition),
     * with every offset once.
     */
    @Test
    void alignmentOverChunksWaitingForTheirTurnEndsWithEveryOffsetOnce() throws Exception {
        DatagenLog log =
                DatagenLog.builder()
                        .partitions(2)
                        .historyPerPartition(3_000)
                        .liveRatePerSecond(300)
                        .boundedAfterLiveRecords(600)
                        .maxRecordsPerPoll(100)
                        .build();
        String checkerRun = UUID.randomUUID().toString();
        Configuration conf = new Configuration();
        conf.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
        conf.set(PipelineOptions.AUTO_WATERMARK_INTERVAL, Duration.ofMillis(10));
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(1);
        env.enableCheckpointing(100);
        BackfillSource<DatagenRecord> source =
                BackfillSource.<DatagenRecord>builder()
                        .setLog(log)
                        .setBounded()
                        .setPollTimeout(Duration.ofMillis(20))
                        .setBackfillChunkSize(500)
                        .build();
        env.fromSource(
                        source,
                        WatermarkStrategy.<DatagenRecord>forMonotonousTimestamps()
                                .withTimestampAssigner((r, previous) -> r.timestamp)
                                .withWatermarkAlignment(
                                        "chunks", Duration.ofMillis(200), Duration.ofMillis(20)),
                        "backfill-source")
                .map(new Throttle<>(20_000))
                .keyBy(r -> r.partition)
                .process(new KeyedExactlyOnceChecker(log, checkerRun, 500))
                .sinkTo(new DiscardingSink<>());
        JobClient job = env.executeAsync("alignment over waiting chunks");
        job.getJobExecutionResult().get(120, TimeUnit.SECONDS);
        assertThat(RESTARTS.failoversOf(job, Duration.ofSeconds(60))).as("restarts").isZero();
        assertExactlyOnce(Observations.of(checkerRun), log);
    }

    /** Per run: the failure was injected; the highest watermark and event time after it. */
    private static final Map<String, AtomicBoolean> FAILED = new ConcurrentHashMap<>();

    private static final Map<String, AtomicLong> WATERMARK_AFTER_RESTART =
            new ConcurrentHashMap<>();
    private static final Map<String, AtomicLong> TIME_AFTER_RESTART = new ConcurrentHashMap<>();

    /**
     * An unbounded event-time job whose chunks ended fails once, live: the restored reader is given
     * its ended chunks back, and Flink makes a split output for each. Each goes through the fetcher
     * and is named finished, which releases its output: the watermark goes on after the restart (an
     * output never released held it at its start for ever). Without chunks, the control.
     */
    @ParameterizedTest(name = "chunk size {0} (0: no chunks)")
    @ValueSource(longs = {0, 1_000})
    void theWatermarkAdvancesAfterARestartOfAnUnboundedJobWhoseChunksEnded(long chunkSize)
            throws Exception {
        String run = UUID.randomUUID().toString();
        FAILED.put(run, new AtomicBoolean());
        WATERMARK_AFTER_RESTART.put(run, new AtomicLong(Long.MIN_VALUE));
        TIME_AFTER_RESTART.put(run, new AtomicLong(Long.MIN_VALUE));
        DatagenLog log =
                DatagenLog.builder()
                        .partitions(1)
                        .historyPerPartition(3_000)
                        .liveRatePerSecond(1_000)
                        .build();
        Configuration conf = new Configuration();
        conf.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
        conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 3);
        conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofMillis(100));
        conf.set(PipelineOptions.AUTO_WATERMARK_INTERVAL, Duration.ofMillis(20));
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(1);
        env.enableCheckpointing(100);
        BackfillSourceBuilder<DatagenRecord> builder =
                BackfillSource.<DatagenRecord>builder()
                        .setLog(log)
                        .setUnbounded()
                        .setPollTimeout(Duration.ofMillis(20));
        if (chunkSize > 0) {
            builder.setBackfillChunkSize(chunkSize);
        }
        env.fromSource(
                        builder.build(),
                        WatermarkStrategy.<DatagenRecord>forMonotonousTimestamps()
                                .withTimestampAssigner((r, previous) -> r.timestamp),
                        "backfill-source")
                .map(new FailOnceLive(run, 4_500))
                .keyBy(r -> 0)
                .process(new WatermarkAfterRestart(run))
                .sinkTo(new DiscardingSink<>());
        JobClient job = env.executeAsync("watermark after a restart, chunks " + chunkSize);
        try {
            BackfillTestJobs.await(
                    "the watermark after the restart",
                    Duration.ofSeconds(60),
                    () ->
                            FAILED.get(run).get()
                                    && WATERMARK_AFTER_RESTART.get(run).get() > Long.MIN_VALUE
                                    && WATERMARK_AFTER_RESTART.get(run).get()
                                            > TIME_AFTER_RESTART.get(run).get() - 30_000);
        } finally {
            job.cancel().get(30, TimeUnit.SECONDS);
        }
        assertThat(RESTARTS.failoversOf(job, Duration.ofSeconds(60)))
                .as("restarts (one failure injected)")
                .isEqualTo(1);
    }

    /** Fails the job once, at the first record at or past {@code offset}. */
    static final class FailOnceLive implements MapFunction<DatagenRecord, DatagenRecord> {
        private final String run;
        private final long offset;

        FailOnceLive(String run, long offset) {
            this.run = run;
            this.offset = offset;
        }

        @Override
        public DatagenRecord map(DatagenRecord r) {
            if (r.offset >= offset && FAILED.get(run).compareAndSet(false, true)) {
                throw new RuntimeException("Injected failure at offset " + r.offset);
            }
            return r;
        }
    }

    /** Notes the operator's watermark and the event time at each record after the restart. */
    static final class WatermarkAfterRestart
            extends KeyedProcessFunction<Integer, DatagenRecord, DatagenRecord> {
        private final String run;

        WatermarkAfterRestart(String run) {
            this.run = run;
        }

        @Override
        public void processElement(
                DatagenRecord record, Context ctx, Collector<DatagenRecord> out) {
            if (getRuntimeContext().getTaskInfo().getAttemptNumber() > 0) {
                WATERMARK_AFTER_RESTART
                        .get(run)
                        .accumulateAndGet(ctx.timerService().currentWatermark(), Math::max);
                TIME_AFTER_RESTART.get(run).accumulateAndGet(record.timestamp, Math::max);
            }
            out.collect(record);
        }
    }

    private String stopWithSavepointWhen(
            BackfillTestJobs.Spec spec, String what, java.util.function.BooleanSupplier condition)
            throws Exception {
        return BackfillTestJobs.stopWithSavepointWhen(spec, what, condition, savepoints, RESTARTS);
    }

    private static void run(BackfillTestJobs.Spec spec, String name) throws Exception {
        BackfillTestJobs.runToEnd(spec, name, RESTARTS);
        Observations checker = Observations.of(spec.checkerRun);
        Observations source = Observations.of(spec.sourceRun);
        LOG.warn(
                "SCENARIO {}: {} records checked, {} partitions complete, {} failures injected, "
                        + "{} subtask resets, {} splits and chunks given to readers",
                name,
                checker.recordsChecked.get(),
                checker.completedPartitions.size(),
                checker.failuresInjected.get(),
                source.subtaskResets.get(),
                source.splitAdds.size());
    }
}
