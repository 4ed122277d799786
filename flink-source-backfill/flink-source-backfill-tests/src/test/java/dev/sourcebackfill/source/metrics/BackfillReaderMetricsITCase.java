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

import dev.sourcebackfill.source.testutils.RestartCounter;
import dev.sourcebackfill.source.testutils.Throttle;

import org.apache.flink.api.common.JobID;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.Metric;
import org.apache.flink.runtime.testutils.InMemoryReporter;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.test.junit5.MiniClusterExtension;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;

import static dev.sourcebackfill.source.metrics.EnumeratorMetricsJobs.TIMEOUT;
import static dev.sourcebackfill.source.metrics.EnumeratorMetricsJobs.cancel;
import static dev.sourcebackfill.source.metrics.EnumeratorMetricsJobs.submit;
import static dev.sourcebackfill.source.testutils.BackfillTestJobs.await;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The readers' standard metrics as a reporter sees them in a MiniCluster run: {@code
 * pendingRecords} shows the history left and falls to zero once every split is live, {@code
 * currentFetchEventTimeLag} and the reader's own {@code backfill.backfilledRecords} move.
 */
class BackfillReaderMetricsITCase {

    private static final InMemoryReporter REPORTER = InMemoryReporter.createWithRetainedMetrics();
    private static final RestartCounter RESTARTS = new RestartCounter(REPORTER);

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER =
            new MiniClusterExtension(
                    new MiniClusterResourceConfiguration.Builder()
                            .setNumberTaskManagers(1)
                            .setNumberSlotsPerTaskManager(4)
                            .setConfiguration(REPORTER.addToConfiguration(new Configuration()))
                            .build());

    @Test
    void pendingRecordsFallAsTheHistoryIsReadAndTheOtherGaugesMove() throws Exception {
        long history = 10_000;
        JobClient job =
                submit(
                        EnumeratorMetricsJobs.log(4, history),
                        UUID.randomUUID().toString(),
                        // 2 x 4,000 records per second: the backfill of 40,000 takes about 5 s
                        new Throttle<>(4_000));
        JobID id = job.getJobID();
        try {
            await("both readers' gauges", TIMEOUT, () -> gauges(id, "pendingRecords").size() == 2);
            await(
                    "history pending on the readers",
                    TIMEOUT,
                    () -> sum(gauges(id, "pendingRecords")) > 0);
            long early = sum(gauges(id, "pendingRecords"));
            // the history, and the live records (200 per second) written until discovery
            assertThat(early)
                    .as("records pending at first")
                    .isBetween(4 * history / 2, 4 * (history + 2_000));
            await(
                    "fewer records pending than at first",
                    TIMEOUT,
                    () -> sum(gauges(id, "pendingRecords")) < early);
            await(
                    "nothing pending once every split is live",
                    TIMEOUT,
                    () -> sum(gauges(id, "pendingRecords")) == 0);
            assertThat(sum(gauges(id, "backfill.backfilledRecords")))
                    .as("records backfilled by the readers")
                    .isGreaterThanOrEqualTo(4 * history);
            await(
                    "a fetch lag of the live records",
                    TIMEOUT,
                    () ->
                            gauges(id, "currentFetchEventTimeLag").size() == 2
                                    && gauges(id, "currentFetchEventTimeLag").values().stream()
                                            .allMatch(lag -> lag >= 0));
        } finally {
            cancel(job);
        }
        assertThat(RESTARTS.restartsOf(job, TIMEOUT)).as("restarts").isZero();
    }

    /**
     * The source readers' gauges and counters whose identifier ends with {@code name}, by
     * identifier.
     */
    private static Map<String, Long> gauges(JobID job, String name) {
        Map<String, Long> found = new TreeMap<>();
        Map<String, Metric> metrics;
        synchronized (REPORTER) {
            metrics = new TreeMap<>(REPORTER.getMetricsByIdentifiers(job));
        }
        metrics.forEach(
                (identifier, metric) -> {
                    if (identifier.contains("backfill-source")
                            && identifier.endsWith("." + name)
                            && !identifier.contains(".split.")) {
                        if (metric instanceof Counter) {
                            found.put(identifier, ((Counter) metric).getCount());
                        } else if (metric instanceof Gauge
                                && ((Gauge<?>) metric).getValue() instanceof Number) {
                            found.put(
                                    identifier,
                                    ((Number) ((Gauge<?>) metric).getValue()).longValue());
                        }
                    }
                });
        return found;
    }

    private static long sum(Map<String, Long> values) {
        return values.values().stream().mapToLong(Long::longValue).sum();
    }
}
