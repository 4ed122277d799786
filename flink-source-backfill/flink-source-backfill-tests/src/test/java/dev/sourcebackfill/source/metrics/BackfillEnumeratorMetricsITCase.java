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

import dev.sourcebackfill.source.datagen.DatagenLog;
import dev.sourcebackfill.source.datagen.DatagenRecord;
import dev.sourcebackfill.source.metrics.EnumeratorMetricsJobs.CountRecords;
import dev.sourcebackfill.source.metrics.EnumeratorMetricsJobs.EnumeratorGauges;
import dev.sourcebackfill.source.spi.BackfillLog;
import dev.sourcebackfill.source.spi.DiscoveredSplit;
import dev.sourcebackfill.source.spi.LogReading;
import dev.sourcebackfill.source.spi.LogSplitDiscoverer;
import dev.sourcebackfill.source.testutils.Observations;
import dev.sourcebackfill.source.testutils.RestartCounter;
import dev.sourcebackfill.source.testutils.Throttle;

import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.testutils.InMemoryReporter;
import org.apache.flink.test.junit5.MiniClusterExtension;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;

import static dev.sourcebackfill.source.metrics.EnumeratorMetricsJobs.TIMEOUT;
import static dev.sourcebackfill.source.metrics.EnumeratorMetricsJobs.assertTheNewEnumeratorIsReportedAfterTheFailover;
import static dev.sourcebackfill.source.metrics.EnumeratorMetricsJobs.open;
import static dev.sourcebackfill.source.metrics.EnumeratorMetricsJobs.runUntilForwardModeAndCancel;
import static dev.sourcebackfill.source.metrics.EnumeratorMetricsJobs.submit;
import static dev.sourcebackfill.source.testutils.BackfillTestJobs.await;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The enumerator's metrics on one session MiniCluster (default scheduler) whose jobs all have the
 * same name, as when a job is stopped with a savepoint and submitted again: each job reports its
 * own enumerator, and after a global failover the job reports its new enumerator.
 */
class BackfillEnumeratorMetricsITCase {

    private static final InMemoryReporter REPORTER = InMemoryReporter.createWithRetainedMetrics();
    private static final RestartCounter RESTARTS = new RestartCounter(REPORTER);

    @RegisterExtension static final MiniClusterExtension MINI_CLUSTER = RESTARTS.miniCluster();

    @Test
    void jobsOfTheSameNameEachReportTheirOwnEnumerator() throws Exception {
        JobID first = runUntilForwardModeAndCancel(REPORTER, 3);
        await(
                "the first job's enumerator group closed with the job",
                TIMEOUT,
                () -> open(EnumeratorGauges.of(REPORTER, first)).isEmpty());

        JobID second = runUntilForwardModeAndCancel(REPORTER, 5);

        List<EnumeratorGauges> firstGauges = EnumeratorGauges.of(REPORTER, first);
        List<EnumeratorGauges> secondGauges = EnumeratorGauges.of(REPORTER, second);
        assertThat(firstGauges).as("enumerators of the first job").hasSize(1);
        assertThat(secondGauges).as("enumerators of the second job").hasSize(1);
        assertThat(secondGauges.get(0).identifier("splitsFinished"))
                .as("both jobs publish under one identifier")
                .isEqualTo(firstGauges.get(0).identifier("splitsFinished"))
                .contains(EnumeratorMetricsJobs.JOB_NAME);
        // the reporter kept the first job's gauges: they still show the first job's figures,
        // not the second job's
        assertThat(firstGauges.get(0).inForwardModeWith(3))
                .as("the first job's gauges: %s", firstGauges.get(0))
                .isTrue();
        assertThat(secondGauges.get(0).inForwardModeWith(5))
                .as("the second job's gauges: %s", secondGauges.get(0))
                .isTrue();
    }

    @Test
    void afterAGlobalFailoverTheNewEnumeratorIsReported() throws Exception {
        // the same job ran before on this session cluster: same name, same chain of operators
        JobID earlier =
                runUntilForwardModeAndCancel(
                        REPORTER,
                        3,
                        new Throttle<>(3_000),
                        new CountRecords(UUID.randomUUID().toString()));

        String run = UUID.randomUUID().toString();
        DatagenLog log = EnumeratorMetricsJobs.log(5, 6_000);
        JobClient job =
                submit(
                        new DiscoveryFailsOnce(log, run, 2_000),
                        run,
                        new Throttle<>(3_000),
                        new CountRecords(run));
        assertTheNewEnumeratorIsReportedAfterTheFailover(REPORTER, RESTARTS, earlier, job, run, 5);
    }

    /**
     * A {@link DatagenLog} whose split discovery fails once, after {@code afterRecords} records
     * passed {@link CountRecords} and a reader took a snapshot. The enumerator rethrows a failed
     * discovery in the coordinator thread, and Flink's {@code SourceCoordinatorContext} turns that
     * into a global failure: the coordinator is reset to the latest checkpoint. (A task failure,
     * e.g. in a map, restarts only its region on the default scheduler, and the coordinator keeps
     * its enumerator.)
     */
    static final class DiscoveryFailsOnce implements BackfillLog<DatagenRecord> {
        private static final long serialVersionUID = 1L;
        private final DatagenLog log;
        private final String runId;
        private final long afterRecords;

        DiscoveryFailsOnce(DatagenLog log, String runId, long afterRecords) {
            this.log = log;
            this.runId = runId;
            this.afterRecords = afterRecords;
        }

        @Override
        public LogSplitDiscoverer createSplitDiscoverer() {
            LogSplitDiscoverer discoverer = log.createSplitDiscoverer();
            return new LogSplitDiscoverer() {
                @Override
                public List<DiscoveredSplit> discoverSplits(boolean initial) throws Exception {
                    Observations observed = Observations.of(runId);
                    if (observed.recordsChecked.get() >= afterRecords
                            && observed.hasReaderSnapshots()
                            && observed.firedFailures
                                    .computeIfAbsent("discovery", k -> new AtomicBoolean())
                                    .compareAndSet(false, true)) {
                        observed.failuresInjected.incrementAndGet();
                        throw new Exception("Injected failure of split discovery");
                    }
                    return discoverer.discoverSplits(initial);
                }

                @Override
                public boolean mayDiscoverMoreSplits() {
                    return discoverer.mayDiscoverMoreSplits();
                }

                @Override
                public void close() throws Exception {
                    discoverer.close();
                }
            };
        }

        @Override
        public LogReading<?, DatagenRecord> backfillReading() {
            return log.backfillReading();
        }

        @Override
        public LogReading<?, DatagenRecord> liveReading() {
            return log.liveReading();
        }

        @Override
        public boolean isLiveSeekable() {
            return log.isLiveSeekable();
        }

        @Override
        public TypeInformation<DatagenRecord> getProducedType() {
            return log.getProducedType();
        }
    }
}
