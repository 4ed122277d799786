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
import dev.sourcebackfill.source.split.HandoverState;
import dev.sourcebackfill.source.testutils.BackfillTestJobs;
import dev.sourcebackfill.source.testutils.FailureInjector.Trigger;
import dev.sourcebackfill.source.testutils.Observations;
import dev.sourcebackfill.source.testutils.RestartCounter;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.test.junit5.MiniClusterExtension;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.function.BooleanSupplier;

import static dev.sourcebackfill.source.testutils.BackfillTestJobs.assertExactlyOnce;
import static dev.sourcebackfill.source.testutils.BackfillTestJobs.assertForwardModeSound;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * End-to-end runs on a MiniCluster, each checked by the exactly-once checker (every (partition,
 * offset) exactly once, in order, in checkpointed state, every partition up to its stopping offset)
 * and by the forward-mode check (forward mode only with a completed checkpoint whose reader
 * snapshots had every split FINISHED).
 */
class BackfillSourceITCase {

    private static final Logger LOG = LoggerFactory.getLogger(BackfillSourceITCase.class);

    private static final RestartCounter RESTARTS = new RestartCounter();

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER =
            new MiniClusterExtension(
                    new MiniClusterResourceConfiguration.Builder()
                            .setConfiguration(RESTARTS.addTo(new Configuration()))
                            .setNumberTaskManagers(2)
                            .setNumberSlotsPerTaskManager(4)
                            .build());

    @TempDir Path savepoints;

    private static BackfillTestJobs.Spec spec(DatagenLog log, int parallelism) {
        BackfillTestJobs.Spec spec = new BackfillTestJobs.Spec();
        spec.log = log;
        spec.parallelism = parallelism;
        spec.checkerRun = UUID.randomUUID().toString();
        spec.sourceRun = UUID.randomUUID().toString();
        return spec;
    }

    @Test
    void parallelism4Over8Splits() throws Exception {
        DatagenLog log =
                DatagenLog.builder()
                        .partitions(8)
                        .historyPerPartition(5_000)
                        .compactionHoleEvery(7)
                        .liveRatePerSecond(400)
                        .boundedAfterLiveRecords(1_600)
                        .build();
        BackfillTestJobs.Spec spec = spec(log, 4);
        run(spec, "p4 over 8 splits");
        report("p4 over 8 splits", spec);
        assertExactlyOnce(Observations.of(spec.checkerRun), log);
        assertForwardModeSound(Observations.of(spec.sourceRun), 4, true);
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {11, 23})
    void failuresUnderFullRestart(long seed) throws Exception {
        runWithFailures(seed, true);
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {5, 37})
    void failuresUnderRegionFailover(long seed) throws Exception {
        runWithFailures(seed, false);
    }

    private void runWithFailures(long seed, boolean fullRestart) throws Exception {
        DatagenLog log =
                DatagenLog.builder()
                        .partitions(8)
                        .historyPerPartition(4_000)
                        .liveRatePerSecond(300)
                        .boundedAfterLiveRecords(2_100)
                        .build();
        Random random = new Random(seed);
        long history = log.historyOf(0);
        BackfillTestJobs.Spec spec = spec(log, 4);
        spec.keyed = fullRestart;
        spec.throttlePerSubtask = 6_000;
        spec.failures =
                List.of(
                        Trigger.at(
                                "backfill",
                                random.nextInt(8),
                                history / 4 + random.nextInt((int) history / 2)),
                        Trigger.at("handover", random.nextInt(8), history - 1 + random.nextInt(2)),
                        Trigger.afterForwardMode("forward", random.nextInt(8), history + 1));
        String name = (fullRestart ? "full restart" : "region failover") + " seed " + seed;
        run(spec, name);
        report(name, spec);
        Observations checker = Observations.of(spec.checkerRun);
        assertThat(checker.failuresInjected.get()).as("failures injected").isEqualTo(3);
        // every failure restarted the failed region's subtasks through Flink's subtask reset
        assertThat(Observations.of(spec.sourceRun).subtaskResets.get())
                .as("subtask resets")
                .isGreaterThanOrEqualTo(3L);
        assertExactlyOnce(checker, log);
        assertForwardModeSound(Observations.of(spec.sourceRun), 4, true);
    }

    @Test
    void savepointDuringBackfillRestoredAtHigherAndLowerParallelism() throws Exception {
        DatagenLog log =
                DatagenLog.builder()
                        .partitions(8)
                        .historyPerPartition(3_000)
                        .liveRatePerSecond(300)
                        .boundedAfterLiveRecords(1_800)
                        .build();
        BackfillTestJobs.Spec first = spec(log, 2);
        first.throttlePerSubtask = 2_000;
        Observations firstChecker = Observations.of(first.checkerRun);
        String savepoint =
                stopWithSavepointWhen(
                        first,
                        "some records backfilled",
                        () -> firstChecker.recordsChecked.get() > 3_000);
        assertThat(BackfillTestJobs.statesInLatestSnapshot(Observations.of(first.sourceRun)))
                .as("the savepoint was taken while splits backfilled")
                .contains(HandoverState.BACKFILLING)
                .hasSize(8);
        assertThat(firstChecker.violations).isEmpty();

        restoreConcurrentlyAt(log, savepoint, first, "savepoint during backfill", 4, 1);
    }

    @Test
    void savepointDuringHandoverRestoredAtHigherAndLowerParallelism() throws Exception {
        // partitions of very different sizes: some hand over long before others
        DatagenLog log =
                DatagenLog.builder()
                        .partitions(8)
                        .historyPerPartition(200)
                        .historyStepPerPartition(1_200)
                        .liveRatePerSecond(300)
                        .boundedAfterLiveRecords(1_800)
                        .build();
        BackfillTestJobs.Spec first = spec(log, 2);
        first.throttlePerSubtask = 2_000;
        Observations firstSource = Observations.of(first.sourceRun);
        String savepoint =
                stopWithSavepointWhen(
                        first,
                        "some splits finished, others backfilling",
                        () ->
                                BackfillTestJobs.latestSnapshotHas(
                                                firstSource, HandoverState.FINISHED)
                                        && BackfillTestJobs.latestSnapshotHas(
                                                firstSource, HandoverState.BACKFILLING));
        assertThat(BackfillTestJobs.statesInLatestSnapshot(firstSource))
                .as("the savepoint was taken during handover")
                .contains(HandoverState.FINISHED, HandoverState.BACKFILLING);

        restoreConcurrentlyAt(log, savepoint, first, "savepoint during handover", 4, 1);
    }

    @Test
    void moreReadersThanSplits() throws Exception {
        DatagenLog log =
                DatagenLog.builder()
                        .partitions(2)
                        .historyPerPartition(3_000)
                        .liveRatePerSecond(300)
                        .boundedAfterLiveRecords(1_800)
                        .build();
        BackfillTestJobs.Spec spec = spec(log, 4);
        run(spec, "more readers than splits");
        report("more readers than splits", spec);
        assertExactlyOnce(Observations.of(spec.checkerRun), log);
        assertForwardModeSound(Observations.of(spec.sourceRun), 4, true);
    }

    @Test
    void splitsAppearingDuringBackfill() throws Exception {
        DatagenLog log =
                DatagenLog.builder()
                        .partitions(4)
                        .historyPerPartition(4_000)
                        .lateSplits(2, Duration.ofMillis(700))
                        .liveRatePerSecond(300)
                        .boundedAfterLiveRecords(2_100)
                        .build();
        BackfillTestJobs.Spec spec = spec(log, 2);
        spec.throttlePerSubtask = 3_000;
        run(spec, "splits appearing during backfill");
        report("splits appearing during backfill", spec);
        assertExactlyOnce(Observations.of(spec.checkerRun), log);
        assertForwardModeSound(Observations.of(spec.sourceRun), 2, true);
    }

    @Test
    void splitAppearingAfterForwardMode() throws Exception {
        DatagenLog log =
                DatagenLog.builder()
                        .partitions(4)
                        .historyPerPartition(500)
                        .lateSplits(1, Duration.ofSeconds(6))
                        .liveRatePerSecond(300)
                        .boundedAfterLiveRecords(2_400)
                        .build();
        BackfillTestJobs.Spec spec = spec(log, 2);
        run(spec, "split appearing after forward mode");
        report("split appearing after forward mode", spec);
        Observations source = Observations.of(spec.sourceRun);
        assertExactlyOnce(Observations.of(spec.checkerRun), log);
        assertForwardModeSound(source, 2, true);
        assertThat(source.forwardModeEntries)
                .as("forward mode was confirmed before the late split appeared")
                .anySatisfy(e -> assertThat(e.atMillis()).isLessThan(log.appearsAtMillis(4)));
    }

    @Test
    void feedLiveWithCompactionAndFailures() throws Exception {
        DatagenLog log =
                DatagenLog.builder()
                        .partitions(4)
                        .historyPerPartition(4_000)
                        .compactionHoleEvery(5)
                        .feedLive(2_000)
                        .liveRatePerSecond(300)
                        .boundedAfterLiveRecords(2_100)
                        .build();
        BackfillTestJobs.Spec spec = spec(log, 2);
        spec.throttlePerSubtask = 5_000;
        spec.failures =
                List.of(
                        Trigger.at("backfill", 1, 1_001),
                        Trigger.afterForwardMode("forward", 2, 4_001));
        run(spec, "feed");
        report("feed with compaction and failures", spec);
        assertThat(Observations.of(spec.checkerRun).failuresInjected.get()).isEqualTo(2);
        assertExactlyOnce(Observations.of(spec.checkerRun), log);
        assertForwardModeSound(Observations.of(spec.sourceRun), 2, true);
    }

    /**
     * A rate-limited backfill with a failure in it: still exactly-once, and its backfill (until the
     * last split is FINISHED) no faster than the limit allows: a lower bound on time, which a slow
     * machine cannot break; without the limit the same backfill takes well under a second (the
     * accuracy is measured in the benchmark).
     */
    @Test
    void rateLimitedBackfillWithAFailure() throws Exception {
        DatagenLog log =
                DatagenLog.builder()
                        .partitions(4)
                        .historyPerPartition(2_000)
                        .liveRatePerSecond(250)
                        // live long enough for forward mode after the backfill's 4 s
                        .boundedAfterLiveRecords(1_750)
                        // the limiter is asked once per poll, for what the poll delivered
                        .maxRecordsPerPoll(100)
                        .build();
        BackfillTestJobs.Spec spec = spec(log, 2);
        double perReader = 1_000;
        spec.backfillRecordsPerSecond = perReader;
        spec.failures = List.of(Trigger.at("backfill", 1, 1_001));
        long startMillis = System.currentTimeMillis();
        run(spec, "rate-limited backfill");
        report("rate-limited backfill with a failure", spec);
        assertThat(Observations.of(spec.checkerRun).failuresInjected.get()).isEqualTo(1);
        assertExactlyOnce(Observations.of(spec.checkerRun), log);
        assertForwardModeSound(Observations.of(spec.sourceRun), 2, true);
        // 8,000 history records at 2 x 1,000 per second take 4 s; less a second of slack (each
        // reader's first poll is free, and a restart begins a new schedule)
        long backfillMillis =
                Observations.of(spec.sourceRun).lastFinishedAtMillis.get() - startMillis;
        long leastMillis = (long) (4 * 2_000 / (2 * perReader) * 1000) - 1000;
        assertThat(backfillMillis)
                .as("from submission until the last split was FINISHED, ms")
                .isGreaterThanOrEqualTo(leastMillis);
    }

    // ------------------------------------------------------------------ helpers

    /**
     * Resumes the same savepoint at several parallelisms at once, so that each continuation runs
     * while the log is still live (the datagen log follows the wall clock).
     */
    private void restoreConcurrentlyAt(
            DatagenLog log,
            String savepoint,
            BackfillTestJobs.Spec first,
            String scenario,
            int... parallelisms)
            throws Exception {
        List<BackfillTestJobs.Spec> specs = new ArrayList<>();
        List<JobClient> jobs = new ArrayList<>();
        for (int parallelism : parallelisms) {
            BackfillTestJobs.Spec resumed = spec(log, parallelism);
            resumed.savepoint = savepoint;
            specs.add(resumed);
            jobs.add(
                    BackfillTestJobs.environment(resumed)
                            .executeAsync("restore at " + parallelism));
        }
        for (int i = 0; i < specs.size(); i++) {
            jobs.get(i).getJobExecutionResult().get();
            assertThat(RESTARTS.failoversOf(jobs.get(i), Duration.ofSeconds(60)))
                    .as("restarts of the job restored at p%d", specs.get(i).parallelism)
                    .isZero();
            BackfillTestJobs.Spec resumed = specs.get(i);
            report(scenario + ", p2 -> p" + resumed.parallelism, resumed);
            int moved =
                    movedBetween(
                            Observations.of(first.sourceRun), Observations.of(resumed.sourceRun));
            LOG.warn(
                    "SCENARIO {}, p2 -> p{}: {} of 8 splits moved to another reader index",
                    scenario,
                    resumed.parallelism,
                    moved);
            if (resumed.parallelism == 4) {
                assertThat(moved).as("splits moved between readers").isPositive();
            }
            assertExactlyOnce(Observations.of(resumed.checkerRun), log);
            assertForwardModeSound(Observations.of(resumed.sourceRun), resumed.parallelism, true);
            assertThat(Observations.of(resumed.sourceRun).enumeratorRestores.get())
                    .as("the enumerator was restored from the savepoint")
                    .isEqualTo(1);
        }
    }

    private String stopWithSavepointWhen(
            BackfillTestJobs.Spec spec, String what, BooleanSupplier condition) throws Exception {
        return BackfillTestJobs.stopWithSavepointWhen(spec, what, condition, savepoints, RESTARTS);
    }

    /**
     * Runs a job to its end and checks that it restarted exactly as often as its injected failures
     * make Flink restart (once per failover region and attempt that failed; failures of one attempt
     * in one region are one restart): an unexpected failover fails the test.
     */
    private static void run(BackfillTestJobs.Spec spec, String name) throws Exception {
        BackfillTestJobs.runToEnd(spec, name, RESTARTS);
    }

    /** Splits whose reader index in the second run differs from the first run's last one. */
    private static int movedBetween(Observations first, Observations second) {
        int moved = 0;
        for (Map.Entry<String, List<Integer>> e : second.splitAdds.entrySet()) {
            List<Integer> before = first.splitAdds.get(e.getKey());
            if (before != null && !before.get(before.size() - 1).equals(e.getValue().get(0))) {
                moved++;
            }
        }
        return moved;
    }

    private static void report(String scenario, BackfillTestJobs.Spec spec) {
        Observations checker = Observations.of(spec.checkerRun);
        Observations source = Observations.of(spec.sourceRun);
        LOG.warn(
                "SCENARIO {}: {} records checked, {} partitions complete, {} failures injected, "
                        + "{} subtask resets, {} enumerator restores, {} forward-mode entries, "
                        + "{} splits moved between readers",
                scenario,
                checker.recordsChecked.get(),
                checker.completedPartitions.size(),
                checker.failuresInjected.get(),
                source.subtaskResets.get(),
                source.enumeratorRestores.get(),
                source.forwardModeEntries.size(),
                source.splitsThatMoved());
    }
}
