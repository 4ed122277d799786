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

import dev.sourcebackfill.source.BackfillSource;
import dev.sourcebackfill.source.datagen.DatagenLog;
import dev.sourcebackfill.source.datagen.DatagenRecord;
import dev.sourcebackfill.source.spi.BackfillLog;
import dev.sourcebackfill.source.testutils.Observations;
import dev.sourcebackfill.source.testutils.ObservedSource;
import dev.sourcebackfill.source.testutils.RestartCounter;

import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.Metric;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.runtime.metrics.groups.AbstractMetricGroup;
import org.apache.flink.runtime.metrics.scope.ScopeFormat;
import org.apache.flink.runtime.testutils.InMemoryReporter;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.stream.Collectors;

import static dev.sourcebackfill.source.testutils.BackfillTestJobs.await;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Unbounded jobs over a {@link DatagenLog} for the enumerator-metrics ITCases, and what an {@link
 * InMemoryReporter} that retains metrics holds of a job's enumerator gauges.
 */
final class EnumeratorMetricsJobs {

    /** Every job of these tests has this name: the metric identifiers of all of them are equal. */
    static final String JOB_NAME = "backfill metrics";

    static final Duration TIMEOUT = Duration.ofSeconds(90);

    private EnumeratorMetricsJobs() {}

    /** An unbounded log whose partitions backfill {@code history} records each. */
    static DatagenLog log(int partitions, long history) {
        return DatagenLog.builder()
                .partitions(partitions)
                .historyPerPartition(history)
                .liveRatePerSecond(200)
                .build();
    }

    /**
     * Submits {@code source -> stages... -> discard} named {@link #JOB_NAME}, at parallelism 2,
     * checkpointing every 100 ms, restarting at most once.
     */
    @SafeVarargs
    static JobClient submit(
            BackfillLog<DatagenRecord> log,
            String sourceRun,
            MapFunction<DatagenRecord, DatagenRecord>... stages)
            throws Exception {
        Configuration conf = new Configuration();
        conf.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
        conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 1);
        conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofMillis(100));
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(2);
        env.enableCheckpointing(100);
        BackfillSource<DatagenRecord> source =
                BackfillSource.<DatagenRecord>builder()
                        .setLog(log)
                        .setUnbounded()
                        .setSplitDiscoveryInterval(Duration.ofMillis(200))
                        .setPollTimeout(Duration.ofMillis(20))
                        .build();
        DataStream<DatagenRecord> stream =
                env.fromSource(
                                new ObservedSource<>(source, sourceRun),
                                WatermarkStrategy.noWatermarks(),
                                "backfill-source")
                        .uid("backfill-source");
        for (MapFunction<DatagenRecord, DatagenRecord> stage : stages) {
            stream = stream.map(stage).name(stage.getClass().getSimpleName());
        }
        stream.sinkTo(new DiscardingSink<>()).name("discard");
        return env.executeAsync(JOB_NAME);
    }

    /**
     * Runs a job over {@code partitions} partitions until its enumerator reports every split
     * FINISHED and forward mode, then cancels it and waits until it is cancelled. The JobManager's
     * scope of the enumerator holds the job's name and the name of the source's chained task, so a
     * job resubmitted with the same {@code stages} has the same metric identifiers.
     */
    @SafeVarargs
    static JobID runUntilForwardModeAndCancel(
            InMemoryReporter reporter,
            int partitions,
            MapFunction<DatagenRecord, DatagenRecord>... stages)
            throws Exception {
        JobClient job = submit(log(partitions, 1_000), UUID.randomUUID().toString(), stages);
        JobID id = job.getJobID();
        awaitCurrentEnumeratorInForwardMode(reporter, id, partitions);
        cancel(job);
        return id;
    }

    /**
     * Waits for the one failover of {@code job} (a failure the test injects through run {@code
     * run}'s observations while {@code partitions} splits backfill), then checks that the job
     * reports its new enumerator: two enumerator groups, the failed one closed with its last
     * figures, the new one in forward mode, both and the {@code earlier} job's under one
     * identifier, restarts equal to the failures injected, the enumerator restored once. Cancels
     * the job.
     */
    static void assertTheNewEnumeratorIsReportedAfterTheFailover(
            InMemoryReporter reporter,
            RestartCounter restarts,
            JobID earlier,
            JobClient job,
            String run,
            int partitions)
            throws Exception {
        JobID id = job.getJobID();
        Observations observed = Observations.of(run);
        await("the failover", TIMEOUT, () -> restarts.restartsSoFar(id).orElse(0) == 1);

        EnumeratorGauges current = awaitCurrentEnumeratorInForwardMode(reporter, id, partitions);

        List<EnumeratorGauges> all = EnumeratorGauges.of(reporter, id);
        assertThat(all).as("enumerators of the job: %s", all).hasSize(2);
        EnumeratorGauges failed = all.get(0).group == current.group ? all.get(1) : all.get(0);
        assertThat(failed.isOpen()).as("the failed enumerator's group is closed").isFalse();
        assertThat(failed.get("splitsFinished"))
                .as(
                        "the failed enumerator's last figures (it failed while splits backfilled): %s",
                        failed)
                .isLessThan(partitions);
        assertThat(current.identifier("splitsFinished"))
                .as(
                        "the failed enumerator, the new one and the earlier job's publish under one identifier")
                .isEqualTo(failed.identifier("splitsFinished"))
                .isEqualTo(
                        EnumeratorGauges.of(reporter, earlier).get(0).identifier("splitsFinished"));
        assertThat(observed.failuresInjected.get()).as("failures injected").isEqualTo(1);
        assertThat(restarts.restartsOf(id))
                .as("restarts")
                .isEqualTo(observed.failuresInjected.get());
        assertThat(observed.enumeratorRestores.get())
                .as("the enumerator was created again from the checkpoint")
                .isEqualTo(1);
        cancel(job);
    }

    static void cancel(JobClient job) throws Exception {
        job.cancel().get();
        await(
                "job " + job.getJobID() + " cancelled",
                TIMEOUT,
                () -> {
                    try {
                        return job.getJobStatus().get() == JobStatus.CANCELED;
                    } catch (Exception e) {
                        return false;
                    }
                });
    }

    /** Waits until the one open enumerator group of the job shows every split FINISHED. */
    static EnumeratorGauges awaitCurrentEnumeratorInForwardMode(
            InMemoryReporter reporter, JobID job, int partitions) throws InterruptedException {
        try {
            await(
                    "the enumerator of job "
                            + job
                            + " reporting "
                            + partitions
                            + " splits FINISHED and forward mode",
                    TIMEOUT,
                    () -> {
                        List<EnumeratorGauges> open = open(EnumeratorGauges.of(reporter, job));
                        return open.size() == 1 && open.get(0).inForwardModeWith(partitions);
                    });
        } catch (AssertionError e) {
            throw new AssertionError(
                    e.getMessage()
                            + "; the job's enumerator gauges: "
                            + EnumeratorGauges.of(reporter, job),
                    e);
        }
        return open(EnumeratorGauges.of(reporter, job)).get(0);
    }

    static List<EnumeratorGauges> open(List<EnumeratorGauges> gauges) {
        return gauges.stream().filter(EnumeratorGauges::isOpen).collect(Collectors.toList());
    }

    private static String jobIdOf(MetricGroup group) {
        return group.getAllVariables().get(ScopeFormat.SCOPE_JOB_ID);
    }

    /**
     * The backfill gauges one enumerator registered ({@code ...coordinator.enumerator.backfill}),
     * as the reporter holds them; it keeps them after their group closed.
     */
    static final class EnumeratorGauges {
        private static final List<String> SCOPE_END =
                List.of("coordinator", "enumerator", "backfill");

        final MetricGroup group;
        final Map<String, Metric> metrics;

        private EnumeratorGauges(MetricGroup group, Map<String, Metric> metrics) {
            this.group = group;
            this.metrics = metrics;
        }

        static List<EnumeratorGauges> of(InMemoryReporter reporter, JobID job) {
            List<EnumeratorGauges> found = new ArrayList<>();
            synchronized (reporter) {
                reporter.getMetricsByGroup()
                        .forEach(
                                (group, metrics) -> {
                                    List<String> scope = Arrays.asList(group.getScopeComponents());
                                    if (job.toString().equals(jobIdOf(group))
                                            && scope.size() > SCOPE_END.size()
                                            && scope.subList(
                                                            scope.size() - SCOPE_END.size(),
                                                            scope.size())
                                                    .equals(SCOPE_END)) {
                                        found.add(
                                                new EnumeratorGauges(
                                                        group, new HashMap<>(metrics)));
                                    }
                                });
            }
            return found;
        }

        /** Whether the group is still registered, i.e. what a reporter reports now. */
        boolean isOpen() {
            return !((AbstractMetricGroup<?>) group).isClosed();
        }

        long get(String name) {
            Metric m = metrics.get(name);
            assertThat(m).as("gauge %s in %s", name, metrics.keySet()).isNotNull();
            return value(m);
        }

        /** A gauge's value, or a counter's count (forwardModeHookFailures). */
        private static long value(Metric m) {
            return m instanceof Counter
                    ? ((Counter) m).getCount()
                    : ((Number) ((Gauge<?>) m).getValue()).longValue();
        }

        String identifier(String name) {
            return group.getMetricIdentifier(name);
        }

        boolean inForwardModeWith(int splits) {
            // the split counts, forward mode and its checkpoint and hook failures, the control's
            return metrics.size() == 11
                    && get("controlPaused") == 0
                    && get("controlRecordsPerSecond") == -1
                    && get("controlErrors") == 0
                    && get("splitsFinished") == splits
                    && get("splitsBackfilling") == 0
                    && get("splitsCachingUp") == 0
                    && get("splitsEnded") == 0
                    && get("forwardMode") == 1
                    && get("forwardModeHookFailures") == 0;
        }

        @Override
        public String toString() {
            Map<String, Object> values = new TreeMap<>();
            metrics.forEach((k, v) -> values.put(k, value(v)));
            return (isOpen() ? "open " : "closed ") + group.getMetricIdentifier("") + values;
        }
    }

    /** Counts the records that pass into {@code Observations.of(runId).recordsChecked}. */
    static final class CountRecords implements MapFunction<DatagenRecord, DatagenRecord> {
        private static final long serialVersionUID = 1L;
        private final String runId;

        CountRecords(String runId) {
            this.runId = runId;
        }

        @Override
        public DatagenRecord map(DatagenRecord record) {
            Observations.of(runId).recordsChecked.incrementAndGet();
            return record;
        }
    }
}
