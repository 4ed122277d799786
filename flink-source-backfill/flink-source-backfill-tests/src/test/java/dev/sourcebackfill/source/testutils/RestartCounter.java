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

import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.api.java.tuple.Tuple3;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.Metric;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.runtime.testutils.InMemoryReporter;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.test.junit5.MiniClusterExtension;

import java.time.Duration;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;

/**
 * Counts how often the jobs of a MiniCluster restarted, for tests that must fail on an unexpected
 * failover.
 *
 * <p>The count is the job manager's {@code numRestarts} gauge of the job: Flink's scheduler ({@code
 * ExecutionFailureHandler}) increments it each time a failure leads to a restart that the restart
 * strategy counts as a new attempt, for a global and a regional failover alike; a failure that
 * fails the job for good does not count. It is read through Flink's {@link InMemoryReporter}
 * (flink-runtime's test-jar, which registers its factory as a service), installed in the cluster's
 * configuration with retained metrics, so that the gauge of a job that ended can still be read;
 * once the job is terminal its value is final. Other ways to count were less direct: the exception
 * history lists failures (capped, and concurrent failures are separate entries), and execution
 * attempt numbers count per task, not per job.
 *
 * <p>Use one instance per cluster:
 *
 * <pre>{@code
 * static final RestartCounter RESTARTS = new RestartCounter();
 * @RegisterExtension
 * static final MiniClusterExtension MINI_CLUSTER = RESTARTS.miniCluster();
 * ...
 * assertThat(RESTARTS.restartsOf(jobClient, Duration.ofSeconds(60))).isEqualTo(injectedFailures);
 * }</pre>
 *
 * <p>The cluster must run in this JVM (a MiniCluster). Its metrics are kept until the JVM ends,
 * which is fine for a test class's few dozen jobs.
 */
public final class RestartCounter {

    /** The name of Flink's job-level gauge (see {@code MetricNames.NUM_RESTARTS}). */
    public static final String NUM_RESTARTS = "numRestarts";

    /** The name of Flink's job-level gauge of rescales (see {@code MetricNames.NUM_RESCALES}). */
    public static final String NUM_RESCALES = "numRescales";

    private final InMemoryReporter reporter;

    /** Whether a cluster this counter was added to runs the adaptive scheduler. */
    private boolean adaptiveScheduler;

    /** A counter with a reporter of its own; put it into the cluster with {@link #addTo}. */
    public RestartCounter() {
        this(InMemoryReporter.createWithRetainedMetrics());
    }

    /** Counts through a reporter (retaining metrics) that the test put into its cluster itself. */
    public RestartCounter(InMemoryReporter reporter) {
        this.reporter = reporter;
    }

    /** Adds this counter's reporter to a cluster configuration; returns that configuration. */
    public Configuration addTo(Configuration configuration) {
        adaptiveScheduler |= "adaptive".equals(configuration.getString("jobmanager.scheduler", ""));
        return reporter.addToConfiguration(configuration);
    }

    /**
     * The cluster of the ITCases: one task manager with 4 slots, its configuration carrying this
     * counter's reporter.
     */
    public MiniClusterExtension miniCluster() {
        return miniCluster(new Configuration());
    }

    /** As {@link #miniCluster()}, with more of the cluster's configuration. */
    public MiniClusterExtension miniCluster(Configuration configuration) {
        return new MiniClusterExtension(
                new MiniClusterResourceConfiguration.Builder()
                        .setConfiguration(addTo(configuration))
                        .setNumberTaskManagers(1)
                        .setNumberSlotsPerTaskManager(4)
                        .build());
    }

    /**
     * Waits until the job reached a globally terminal state (finished, cancelled or failed), then
     * returns how often it restarted.
     *
     * @throws AssertionError if the job does not end within {@code timeout}, or the cluster never
     *     registered the job's {@code numRestarts} gauge
     */
    public long restartsOf(JobClient job, Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        JobStatus status = job.getJobStatus().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        while (!status.isGloballyTerminalState()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError(
                        "Job "
                                + job.getJobID()
                                + " is still "
                                + status
                                + " after "
                                + timeout
                                + ": its number of restarts is not final");
            }
            Thread.sleep(20);
            status = job.getJobStatus().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        }
        return restartsOf(job.getJobID());
    }

    /**
     * How often the job restarted so far; final once the job ended.
     *
     * @throws AssertionError if the cluster never registered the job's {@code numRestarts} gauge
     */
    public long restartsOf(JobID job) {
        return gaugeOf(job, NUM_RESTARTS);
    }

    /** How often the job restarted so far; empty until the cluster registered the job's gauge. */
    public OptionalLong restartsSoFar(JobID job) {
        return reporter.findJobMetricGroups(job, "^" + NUM_RESTARTS + "$").isEmpty()
                ? OptionalLong.empty()
                : OptionalLong.of(gaugeOf(job, NUM_RESTARTS));
    }

    /**
     * How often the adaptive scheduler restarted the job to change its parallelism (no failure);
     * zero under the default scheduler. These restarts are part of {@link #restartsOf}.
     *
     * @throws AssertionError on a Flink line that counts no rescales apart ({@link
     *     FlinkLineFacts#RESCALES_COUNTED_APART}) for a job of the adaptive scheduler
     */
    public long rescalesOf(JobID job) {
        if (!FlinkLineFacts.RESCALES_COUNTED_APART) {
            if (adaptiveScheduler) {
                throw new AssertionError(
                        "Flink "
                                + FlinkLineFacts.LINE
                                + " counts the adaptive scheduler's rescales as restarts, with no "
                                + "gauge of their own: failovers cannot be told apart");
            }
            // the default scheduler never rescales a running job
            return 0;
        }
        return gaugeOf(job, NUM_RESCALES);
    }

    /**
     * Waits until the job ended, then returns the restarts that failures caused: {@link
     * #restartsOf} less {@link #rescalesOf}. This is what a test compares with the failures it
     * injected.
     */
    public long failoversOf(JobClient job, Duration timeout) throws Exception {
        long restarts = restartsOf(job, timeout);
        return restarts - rescalesOf(job.getJobID());
    }

    private long gaugeOf(JobID job, String name) {
        List<Tuple3<MetricGroup, String, Metric>> found =
                reporter.findJobMetricGroups(job, "^" + name + "$");
        if (found.size() != 1 || !(found.get(0).f2 instanceof Gauge)) {
            throw new AssertionError(
                    "Expected one "
                            + name
                            + " gauge for job "
                            + job
                            + ", found "
                            + found
                            + ": does the cluster's configuration come from RestartCounter#addTo?");
        }
        Object value = ((Gauge<?>) found.get(0).f2).getValue();
        if (!(value instanceof Number)) {
            throw new AssertionError(
                    "The " + name + " gauge of job " + job + " holds " + value + ", not a number");
        }
        return ((Number) value).longValue();
    }
}
