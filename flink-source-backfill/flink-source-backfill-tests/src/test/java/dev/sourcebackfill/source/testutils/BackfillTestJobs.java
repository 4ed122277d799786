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
package dev.sourcebackfill.source.testutils;

import dev.sourcebackfill.source.BackfillListener;
import dev.sourcebackfill.source.BackfillSource;
import dev.sourcebackfill.source.BackfillSourceBuilder;
import dev.sourcebackfill.source.SplitTransition;
import dev.sourcebackfill.source.datagen.DatagenLog;
import dev.sourcebackfill.source.datagen.DatagenRecord;
import dev.sourcebackfill.source.spi.BackfillLog;
import dev.sourcebackfill.source.split.BackfillSplit;
import dev.sourcebackfill.source.split.HandoverState;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/** Builds the test jobs over a {@link DatagenLog} and checks what they observed. */
public final class BackfillTestJobs {

    private BackfillTestJobs() {}

    /** What one job looks like. */
    public static final class Spec {
        public DatagenLog log;

        /**
         * The log the source reads, if not {@link #log} itself: one that wraps it (its records and
         * offsets are {@link #log}'s, which the checkers count on).
         */
        public BackfillLog<DatagenRecord> sourceLog;

        public int parallelism = 4;

        /** Keyed checker behind a shuffle (one region) or chained checker (a region a subtask). */
        public boolean keyed = true;

        public double throttlePerSubtask = 0;

        /** The source's backfill rate limit per reader; none unless positive. */
        public double backfillRecordsPerSecond = 0;

        /** Records per chunk of history; none unless positive (checked chunk by chunk then). */
        public long backfillChunkSize = 0;

        public List<FailureInjector.Trigger> failures = List.of();
        public String checkerRun;
        public String sourceRun;
        public String savepoint;
        public long checkpointIntervalMs = 100;

        /**
         * Failures the test causes outside the job (a TaskManager stopped), besides {@link
         * #failures}; a job with neither runs without a restart strategy.
         */
        public int externalFailures;
    }

    public static StreamExecutionEnvironment environment(Spec spec) {
        Configuration conf = new Configuration();
        if (spec.failures.isEmpty() && spec.externalFailures == 0) {
            // a run without injected failures must not fail over at all
            conf.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
        } else {
            conf.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
            conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 20);
            conf.set(
                    RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY,
                    Duration.ofMillis(100));
        }
        if (spec.savepoint != null) {
            conf.set(StateRecoveryOptions.SAVEPOINT_PATH, spec.savepoint);
        }
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(spec.parallelism);
        env.enableCheckpointing(spec.checkpointIntervalMs);
        build(env, spec);
        return env;
    }

    static void build(StreamExecutionEnvironment env, Spec spec) {
        BackfillSourceBuilder<DatagenRecord> builder =
                BackfillSource.<DatagenRecord>builder()
                        .setLog(spec.sourceLog != null ? spec.sourceLog : spec.log)
                        .setBounded()
                        .setSplitDiscoveryInterval(Duration.ofMillis(200))
                        .setPollTimeout(Duration.ofMillis(20))
                        .setListener(new RecordingListener(spec.sourceRun));
        if (spec.backfillRecordsPerSecond > 0) {
            builder.setBackfillRecordsPerSecond(spec.backfillRecordsPerSecond);
        }
        if (spec.backfillChunkSize > 0) {
            builder.setBackfillChunkSize(spec.backfillChunkSize);
        }
        long pieceSize =
                spec.backfillChunkSize > 0
                        ? spec.backfillChunkSize
                        : PartitionProgress.WHOLE_PARTITION;
        BackfillSource<DatagenRecord> source = builder.build();
        DataStream<DatagenRecord> stream =
                env.fromSource(
                                new ObservedSource<>(source, spec.sourceRun),
                                WatermarkStrategy.noWatermarks(),
                                "backfill-source")
                        .uid("backfill-source");
        if (spec.throttlePerSubtask > 0) {
            stream = stream.map(new Throttle<>(spec.throttlePerSubtask)).name("throttle");
        }
        if (!spec.failures.isEmpty()) {
            stream =
                    stream.map(
                                    new FailureInjector(
                                            spec.checkerRun,
                                            spec.sourceRun,
                                            spec.failures,
                                            spec.keyed))
                            .name("failures");
        }
        DataStream<DatagenRecord> checked =
                spec.keyed
                        ? stream.keyBy(r -> r.partition)
                                .process(
                                        new KeyedExactlyOnceChecker(
                                                spec.log, spec.checkerRun, pieceSize))
                                .uid("checker")
                        : stream.map(
                                        new ChainedExactlyOnceChecker(
                                                spec.log, spec.checkerRun, pieceSize))
                                .uid("checker");
        checked.sinkTo(new DiscardingSink<>()).name("discard");
    }

    /** Records which splits reached FINISHED, for tests that act on it. */
    static final class RecordingListener implements BackfillListener {
        private static final long serialVersionUID = 1L;
        private final String runId;

        RecordingListener(String runId) {
            this.runId = runId;
        }

        @Override
        public void onTransition(SplitTransition transition) {
            if (transition.to() == HandoverState.FINISHED) {
                Observations observed = Observations.of(runId);
                observed.finishedSplits.add(transition.splitId());
                observed.lastFinishedAtMillis.accumulateAndGet(
                        System.currentTimeMillis(), Math::max);
            }
        }
    }

    /**
     * Every (partition, offset) of the log arrived exactly once, in order, and every partition
     * ended.
     */
    public static void assertExactlyOnce(Observations checker, DatagenLog log) {
        assertThat(checker.violations).as("exactly-once violations").isEmpty();
        Map<Integer, Long> completed = checker.completedPartitions;
        for (int p = 0; p < log.totalPartitions(); p++) {
            assertThat(completed)
                    .as("partition %d reached its stopping offset", p)
                    .containsEntry(p, log.recordCount(p));
        }
    }

    /** Forward mode came only with a completed checkpoint that had every split FINISHED. */
    public static void assertForwardModeSound(
            Observations source, int parallelism, boolean required) {
        assertThat(source.forwardModeProblems()).as("forward-mode problems").isEmpty();
        if (required) {
            assertThat(source.anyForwardMode()).as("forward mode was entered").isTrue();
        }
    }

    /**
     * Runs the job to its end and checks that it restarted exactly once per region and attempt that
     * the injected failures failed: an unexpected failover fails the test.
     */
    public static void runToEnd(Spec spec, String name, RestartCounter restarts) throws Exception {
        JobClient job = environment(spec).executeAsync(name);
        job.getJobExecutionResult().get();
        assertThat(restarts.failoversOf(job, Duration.ofSeconds(60)))
                .as("restarts of '%s' (one per region and attempt that failed)", name)
                .isEqualTo(Observations.of(spec.checkerRun).failureEpisodes.size());
    }

    /**
     * Starts the job, stops it with a savepoint into {@code savepoints} once {@code condition}
     * holds, and checks that it did not restart.
     *
     * @return the savepoint's path
     */
    public static String stopWithSavepointWhen(
            Spec spec,
            String what,
            BooleanSupplier condition,
            Path savepoints,
            RestartCounter restarts)
            throws Exception {
        JobClient job = environment(spec).executeAsync("first run");
        await(what, Duration.ofSeconds(60), condition);
        String path = null;
        for (int attempt = 0; path == null; attempt++) {
            try {
                path =
                        job.stopWithSavepoint(
                                        false,
                                        savepoints.toUri().toString(),
                                        SavepointFormatType.CANONICAL)
                                .get();
            } catch (Exception e) {
                // "not all tasks running" right after a (re)start: retry a few times
                if (attempt >= 20) {
                    throw e;
                }
                Thread.sleep(100);
            }
        }
        assertThat(restarts.failoversOf(job, Duration.ofSeconds(60)))
                .as("restarts of the job stopped with a savepoint")
                .isZero();
        return path;
    }

    /** Waits for a condition, failing after the timeout. */
    public static void await(String what, Duration timeout, BooleanSupplier condition)
            throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("Timed out waiting for " + what);
            }
            Thread.sleep(20);
        }
    }

    /** The states in the readers' snapshot of the latest checkpoint (a savepoint after a stop). */
    public static List<HandoverState> statesInLatestSnapshot(Observations source) {
        long latest = source.readerSnapshots.keySet().stream().mapToLong(l -> l).max().orElse(-1);
        return source.readerSnapshots.getOrDefault(latest, Map.of()).values().stream()
                .flatMap(List::stream)
                .map(BackfillSplit::state)
                .collect(Collectors.toList());
    }

    /** The splits in the readers' snapshot of the latest checkpoint (a savepoint after a stop). */
    public static List<BackfillSplit> splitsInLatestSnapshot(Observations source) {
        long latest = source.readerSnapshots.keySet().stream().mapToLong(l -> l).max().orElse(-1);
        return source.readerSnapshots.getOrDefault(latest, Map.of()).values().stream()
                .flatMap(List::stream)
                .collect(Collectors.toList());
    }

    public static boolean latestSnapshotHas(Observations source, HandoverState state) {
        return statesInLatestSnapshot(source).contains(state);
    }
}
