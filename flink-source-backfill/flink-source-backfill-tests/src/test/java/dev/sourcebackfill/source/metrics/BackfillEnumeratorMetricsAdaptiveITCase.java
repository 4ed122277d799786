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
package dev.sourcebackfill.source.metrics;

import dev.sourcebackfill.source.testutils.FailureInjector;
import dev.sourcebackfill.source.testutils.RestartCounter;
import dev.sourcebackfill.source.testutils.Throttle;

import org.apache.flink.api.common.JobID;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.testutils.InMemoryReporter;
import org.apache.flink.test.junit5.MiniClusterExtension;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.List;
import java.util.UUID;

import static dev.sourcebackfill.source.metrics.EnumeratorMetricsJobs.assertTheNewEnumeratorIsReportedAfterTheFailover;
import static dev.sourcebackfill.source.metrics.EnumeratorMetricsJobs.runUntilForwardModeAndCancel;
import static dev.sourcebackfill.source.metrics.EnumeratorMetricsJobs.submit;

/**
 * The enumerator's metrics under the adaptive scheduler, which answers every failure (and every
 * rescale) by building a new execution graph: the old graph's coordinators are closed
 * asynchronously and a new coordinator, in the same metric group, restores the enumerator from the
 * latest checkpoint.
 */
class BackfillEnumeratorMetricsAdaptiveITCase {

    private static final InMemoryReporter REPORTER = InMemoryReporter.createWithRetainedMetrics();
    private static final RestartCounter RESTARTS = new RestartCounter(REPORTER);

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = RESTARTS.miniCluster(adaptiveScheduler());

    private static Configuration adaptiveScheduler() {
        Configuration conf = new Configuration();
        conf.setString("jobmanager.scheduler", "adaptive");
        return conf;
    }

    @Test
    void afterAFailureInAMapTheNewEnumeratorIsReported() throws Exception {
        // the same job ran before on this session cluster: same name, same chain of operators
        JobID earlier =
                runUntilForwardModeAndCancel(
                        REPORTER,
                        3,
                        new Throttle<>(3_000),
                        new FailureInjector(UUID.randomUUID().toString(), "", List.of(), true));

        String run = UUID.randomUUID().toString();
        JobClient job =
                submit(
                        EnumeratorMetricsJobs.log(5, 6_000),
                        run,
                        new Throttle<>(3_000),
                        new FailureInjector(
                                run,
                                run,
                                List.of(FailureInjector.Trigger.at("map", 0, 2_000)),
                                true));
        assertTheNewEnumeratorIsReportedAfterTheFailover(REPORTER, RESTARTS, earlier, job, run, 5);
    }
}
