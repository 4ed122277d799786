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
import dev.sourcebackfill.source.testutils.BackfillTestJobs;
import dev.sourcebackfill.source.testutils.Observations;
import dev.sourcebackfill.source.testutils.RestartCounter;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.test.junit5.MiniClusterExtension;

import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.RepetitionInfo;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.UUID;

import static dev.sourcebackfill.source.testutils.BackfillTestJobs.assertExactlyOnce;
import static dev.sourcebackfill.source.testutils.BackfillTestJobs.assertForwardModeSound;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Bounded jobs near their end: readers finish while the enumerator still confirms forward mode,
 * acknowledges reports and tracks backlog. Any event that reaches a reader task while it finishes
 * fails the job ("an OperatorEvent ... was lost"); the jobs run without a restart strategy, so a
 * single such failover fails the test. Short jobs, many times in a row, to meet the race.
 */
class BoundedJobEndITCase {

    private static final int RUNS = 30;

    private static final RestartCounter RESTARTS = new RestartCounter();

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER =
            new MiniClusterExtension(
                    new MiniClusterResourceConfiguration.Builder()
                            .setConfiguration(RESTARTS.addTo(new Configuration()))
                            .setNumberTaskManagers(1)
                            .setNumberSlotsPerTaskManager(4)
                            .build());

    @RepeatedTest(RUNS)
    void moreReadersThanSplits(RepetitionInfo run) throws Exception {
        runBounded(2, 4, "more readers than splits, run " + run.getCurrentRepetition());
    }

    @RepeatedTest(RUNS)
    void oneSplit(RepetitionInfo run) throws Exception {
        runBounded(1, 2, "one split, run " + run.getCurrentRepetition());
    }

    private static void runBounded(int partitions, int parallelism, String name) throws Exception {
        DatagenLog log =
                DatagenLog.builder()
                        .partitions(partitions)
                        .historyPerPartition(300)
                        .liveRatePerSecond(400)
                        .boundedAfterLiveRecords(120)
                        .build();
        BackfillTestJobs.Spec spec = new BackfillTestJobs.Spec();
        spec.log = log;
        spec.parallelism = parallelism;
        spec.keyed = false;
        spec.checkpointIntervalMs = 20;
        spec.checkerRun = UUID.randomUUID().toString();
        spec.sourceRun = UUID.randomUUID().toString();
        try {
            // no failure injected: BackfillTestJobs runs it without a restart strategy
            JobClient job = BackfillTestJobs.environment(spec).executeAsync(name);
            job.getJobExecutionResult().get();
            assertThat(RESTARTS.restartsOf(job, Duration.ofSeconds(60))).as("restarts").isZero();
            assertExactlyOnce(Observations.of(spec.checkerRun), log);
            assertForwardModeSound(Observations.of(spec.sourceRun), parallelism, false);
        } finally {
            Observations.forget(spec.checkerRun);
            Observations.forget(spec.sourceRun);
        }
    }
}
