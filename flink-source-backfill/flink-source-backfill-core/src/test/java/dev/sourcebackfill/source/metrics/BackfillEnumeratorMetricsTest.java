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

import dev.sourcebackfill.source.enumerator.BackfillEnumeratorState;
import dev.sourcebackfill.source.enumerator.BackfillSplitEnumerator;
import dev.sourcebackfill.source.spi.DiscoveredSplit;
import dev.sourcebackfill.source.split.BackfillSplit;

import org.apache.flink.api.common.JobID;
import org.apache.flink.api.connector.source.mocks.MockSplitEnumeratorContext;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.Metric;
import org.apache.flink.metrics.groups.SplitEnumeratorMetricGroup;
import org.apache.flink.runtime.jobgraph.JobVertexID;
import org.apache.flink.runtime.jobgraph.OperatorID;
import org.apache.flink.runtime.metrics.groups.InternalOperatorCoordinatorMetricGroup;
import org.apache.flink.runtime.metrics.groups.InternalSplitEnumeratorMetricGroup;
import org.apache.flink.runtime.metrics.groups.JobManagerJobMetricGroup;
import org.apache.flink.runtime.metrics.groups.JobManagerMetricGroup;
import org.apache.flink.runtime.metrics.util.TestingMetricRegistry;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The enumerator's gauges on the metric groups Flink's JobManager builds for a source coordinator
 * (job, operator, {@code coordinator}, {@code enumerator}), through a registry that keeps what a
 * reporter would report: registered and not yet unregistered metrics, by identifier.
 *
 * <p>Every scenario runs on a session cluster where a job of the same name ran and ended before
 * (the usual way to rescale: stop with a savepoint and submit again), so the metric identifiers of
 * the job under test were used before.
 */
class BackfillEnumeratorMetricsTest {

    private static final String JOB_NAME = "resubmitted-job";
    private static final String SCOPE_END = ".enumerator.backfill.";

    /** The published names; a rename breaks users' dashboards. */
    private static final List<String> NAMES =
            List.of(
                    "splitsBackfilling",
                    "splitsCachingUp",
                    "splitsFinished",
                    "splitsEnded",
                    "splitsUnconfirmed",
                    "forwardMode",
                    "forwardModeCheckpoint",
                    "forwardModeHookFailures",
                    "controlPaused",
                    "controlRecordsPerSecond",
                    "controlErrors");

    /** identifier -> the metrics registered under it and not unregistered, in order. */
    private final Map<String, List<Metric>> reported = new TreeMap<>();

    private JobManagerMetricGroup jobManager;
    private final OperatorID operatorId = new OperatorID();
    private final JobVertexID vertexId = new JobVertexID();
    private final List<MockSplitEnumeratorContext<BackfillSplit>> contexts = new ArrayList<>();

    @BeforeEach
    void sessionClusterWithAnEarlierJobOfTheSameName() throws Throwable {
        TestingMetricRegistry registry =
                TestingMetricRegistry.builder()
                        .setRegisterConsumer(
                                (metric, name, group) ->
                                        reported.computeIfAbsent(
                                                        group.getMetricIdentifier(name),
                                                        k -> new ArrayList<>())
                                                .add(metric))
                        .setUnregisterConsumer(
                                (metric, name, group) -> {
                                    List<Metric> under =
                                            reported.get(group.getMetricIdentifier(name));
                                    if (under != null) {
                                        under.remove(metric);
                                        if (under.isEmpty()) {
                                            reported.remove(group.getMetricIdentifier(name));
                                        }
                                    }
                                })
                        .build();
        jobManager = JobManagerMetricGroup.createJobManagerMetricGroup(registry, "localhost");

        JobManagerJobMetricGroup earlier = jobManager.addJob(new JobID(), JOB_NAME);
        SplitEnumeratorMetricGroupSupplier earlierGroup = enumeratorGroupOf(earlier);
        BackfillSplitEnumerator earlierEnumerator = started(earlierGroup, 2, null);
        assertThat(reportedFigure("splitsBackfilling")).isEqualTo(2);
        earlierEnumerator.close();
        // the JobMaster closes the job's metric group when the job has ended
        earlier.close();
        assertThat(enumeratorMetrics()).isEmpty();
    }

    @AfterEach
    void tearDown() throws Exception {
        for (MockSplitEnumeratorContext<BackfillSplit> context : contexts) {
            context.close();
        }
        jobManager.close();
    }

    @Test
    void aJobOfTheSameNameReportsItsOwnEnumerator() throws Throwable {
        JobManagerJobMetricGroup job = jobManager.addJob(new JobID(), JOB_NAME);
        started(enumeratorGroupOf(job), 5, null);

        assertThat(enumeratorMetrics())
                .as("the gauges of the job's enumerator")
                .hasSameSizeAs(NAMES);
        assertThat(reportedFigure("splitsBackfilling")).isEqualTo(5);
    }

    @Test
    void aGlobalFailoverReportsTheNewEnumerator() throws Throwable {
        // RecreateOnResetOperatorCoordinator.resetToCheckpoint: the old coordinator (and with it
        // its enumerator) is closed, then a new one is created with the same context and metric
        // group, and restores the enumerator from the checkpoint
        JobManagerJobMetricGroup job = jobManager.addJob(new JobID(), JOB_NAME);
        SplitEnumeratorMetricGroupSupplier group = enumeratorGroupOf(job);
        BackfillSplitEnumerator old = started(group, 3, null);
        BackfillEnumeratorState checkpoint = old.snapshotState(1);
        old.close();

        // the restored table has 3 splits; discovery finds a fourth
        started(group, 4, checkpoint);

        assertThat(enumeratorMetrics()).hasSameSizeAs(NAMES);
        assertThat(reportedFigure("splitsBackfilling")).isEqualTo(4);
    }

    @Test
    void aNewEnumeratorTakesOverFromOneNotClosedYet() throws Throwable {
        // the adaptive scheduler disposes of the old execution graph's coordinators
        // asynchronously while it builds the new graph, whose coordinator uses the same group
        JobManagerJobMetricGroup job = jobManager.addJob(new JobID(), JOB_NAME);
        SplitEnumeratorMetricGroupSupplier group = enumeratorGroupOf(job);
        BackfillSplitEnumerator old = started(group, 3, null);

        started(group, 4, null);
        assertThat(reportedFigure("splitsBackfilling")).isEqualTo(4);

        old.close();
        assertThat(enumeratorMetrics())
                .as("closing the old enumerator leaves the new one's gauges")
                .hasSameSizeAs(NAMES);
        assertThat(reportedFigure("splitsBackfilling")).isEqualTo(4);
    }

    @Test
    void anEnumeratorNeverClosedDoesNotHideTheNextOne() throws Throwable {
        // SourceCoordinator.close() closes its enumerator only if the coordinator was started:
        // an enumerator restored by resetToCheckpoint and reset again before start() stays open
        JobManagerJobMetricGroup job = jobManager.addJob(new JobID(), JOB_NAME);
        SplitEnumeratorMetricGroupSupplier group = enumeratorGroupOf(job);
        started(group, 3, null);

        started(group, 4, null);

        assertThat(enumeratorMetrics()).hasSameSizeAs(NAMES);
        assertThat(reportedFigure("splitsBackfilling")).isEqualTo(4);
    }

    @Test
    void closingTheEnumeratorRemovesItsGauges() throws Throwable {
        JobManagerJobMetricGroup job = jobManager.addJob(new JobID(), JOB_NAME);
        BackfillSplitEnumerator enumerator = started(enumeratorGroupOf(job), 5, null);
        assertThat(enumeratorMetrics()).hasSameSizeAs(NAMES);

        enumerator.close();

        assertThat(job.isClosed()).as("the job's group is closed").isFalse();
        assertThat(enumeratorMetrics()).as("gauges left by a closed enumerator").isEmpty();
    }

    // ------------------------------------------------------------------ helpers

    /** Like SourceCoordinatorContext.metricGroup(): a new proxy on every call, one group below. */
    private interface SplitEnumeratorMetricGroupSupplier {
        SplitEnumeratorMetricGroup get();
    }

    private SplitEnumeratorMetricGroupSupplier enumeratorGroupOf(JobManagerJobMetricGroup job) {
        InternalOperatorCoordinatorMetricGroup coordinator =
                new InternalOperatorCoordinatorMetricGroup(
                        job.getOrAddOperator(vertexId, "Source: backfill", operatorId, "backfill"));
        return () -> new InternalSplitEnumeratorMetricGroup(coordinator);
    }

    /** An enumerator that has discovered {@code splits} splits (restored ones included). */
    private BackfillSplitEnumerator started(
            SplitEnumeratorMetricGroupSupplier group, int splits, BackfillEnumeratorState restored)
            throws Throwable {
        MockSplitEnumeratorContext<BackfillSplit> context =
                new MockSplitEnumeratorContext<>(2) {
                    @Override
                    public SplitEnumeratorMetricGroup metricGroup() {
                        return group.get();
                    }
                };
        contexts.add(context);
        List<DiscoveredSplit> found = new ArrayList<>();
        for (int i = 0; i < splits; i++) {
            found.add(DiscoveredSplit.backfilled("split-" + i, 0, 100));
        }
        BackfillSplitEnumerator enumerator =
                new BackfillSplitEnumerator(
                        context, initial -> found, false, Duration.ZERO, restored);
        enumerator.start();
        context.runNextOneTimeCallable();
        return enumerator;
    }

    private Map<String, List<Metric>> enumeratorMetrics() {
        Map<String, List<Metric>> found = new TreeMap<>();
        reported.forEach(
                (identifier, metrics) -> {
                    if (identifier.contains(SCOPE_END)) {
                        found.put(identifier, metrics);
                    }
                });
        found.forEach(
                (identifier, metrics) ->
                        assertThat(metrics).as("metrics reported as %s", identifier).hasSize(1));
        return found;
    }

    private long reportedFigure(String name) {
        List<Metric> under = null;
        for (Map.Entry<String, List<Metric>> e : enumeratorMetrics().entrySet()) {
            if (e.getKey().endsWith(SCOPE_END + name)) {
                assertThat(e.getKey()).as("identifier").contains(JOB_NAME);
                under = e.getValue();
            }
        }
        assertThat(under).as("a reported gauge %s", name).isNotNull();
        return ((Number) ((Gauge<?>) under.get(0)).getValue()).longValue();
    }
}
