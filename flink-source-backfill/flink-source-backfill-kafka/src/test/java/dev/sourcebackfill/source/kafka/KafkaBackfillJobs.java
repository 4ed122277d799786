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
package dev.sourcebackfill.source.kafka;

import dev.sourcebackfill.source.BackfillSource;
import dev.sourcebackfill.source.enumerator.BackfillEnumeratorState;
import dev.sourcebackfill.source.split.BackfillSplit;
import dev.sourcebackfill.source.testutils.BackfillTestJobs;
import dev.sourcebackfill.source.testutils.Observations;
import dev.sourcebackfill.source.testutils.ObservedSource;
import dev.sourcebackfill.source.testutils.RestartCounter;
import dev.sourcebackfill.source.testutils.Throttle;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;

import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The jobs of the Kafka adapter's ITCases ({@link KafkaBackfillFailoverITCase}, {@link
 * KafkaBackfillOffsetsITCase}) on their test class's MiniCluster and broker: the source's builder,
 * a job that runs it into an exactly-once checker (with failures injected, a throttle, a savepoint
 * to start from), records written to a topic, and the checks every test makes (what the job saw
 * against the topic itself, order, and its restarts against the failures injected).
 *
 * <p>One per test class, registered after the class's cluster and broker, each with a {@link
 * RestartCounter} of its own:
 *
 * <pre>{@code
 * private static final RestartCounter RESTARTS = new RestartCounter();
 * @RegisterExtension static final MiniClusterExtension MINI_CLUSTER = RESTARTS.miniCluster();
 * @RegisterExtension static final KafkaTestEnvironment KAFKA = new KafkaTestEnvironment();
 * @RegisterExtension static final KafkaBackfillJobs JOBS = new KafkaBackfillJobs(KAFKA, RESTARTS);
 * }</pre>
 *
 * <p>What the jobs share across test classes (the checker's digests, {@link FailOnce}'s and {@link
 * FailCoordinatorOnce}'s flags, the source's observations) is keyed by each {@link Run}'s random
 * names, and restarts by job id: two classes in one JVM, one after the other, or in two JVMs side
 * by side, do not meet.
 */
final class KafkaBackfillJobs implements AfterEachCallback {

    private static final Logger LOG = LoggerFactory.getLogger(KafkaBackfillJobs.class);

    private final KafkaTestEnvironment kafka;

    /** Counts every job's restarts: each test checks them against the failures it injected. */
    private final RestartCounter restarts;

    /** The jobs the running test started: cancelled after it, so that none holds slots on. */
    private final List<JobClient> started = new ArrayList<>();

    KafkaBackfillJobs(KafkaTestEnvironment kafka, RestartCounter restarts) {
        this.kafka = kafka;
        this.restarts = restarts;
    }

    /**
     * A test that failed while its job ran (a timeout) leaves it running: it would hold the
     * cluster's slots and fail the tests after it for want of resources.
     */
    @Override
    public void afterEach(ExtensionContext context) throws Exception {
        for (JobClient job : started) {
            if (!job.getJobStatus().get(30, TimeUnit.SECONDS).isGloballyTerminalState()) {
                LOG.warn("Cancelling job {}, still running after its test", job.getJobID());
                job.cancel().get(60, TimeUnit.SECONDS);
            }
        }
        started.clear();
    }

    /** One test run: its checker's and its source's observation keys, and the jobs it started. */
    static final class Run {
        final String checker = UUID.randomUUID().toString();
        final String source = UUID.randomUUID().toString();

        /** Records of a partition may come in any order (chunks of history): each once. */
        boolean unordered;

        /** Every job started for this run, with the number of failures injected into it. */
        final List<Map.Entry<JobClient, Integer>> jobs = new ArrayList<>();
    }

    KafkaBackfillSourceBuilder<PartitionRecord> builder(String topic) {
        return KafkaBackfill.<PartitionRecord>sourceBuilder()
                .setBootstrapServers(kafka.bootstrapServers())
                .setTopics(topic)
                .setDeserializer(new PartitionRecord.Deserializer())
                .setProperty("default.api.timeout.ms", "30000")
                .setPollTimeout(Duration.ofMillis(20))
                .setPartitionDiscoveryInterval(Duration.ofSeconds(1));
    }

    JobClient start(
            Run run, BackfillSource<PartitionRecord> source, int parallelism, List<Long> failures)
            throws Exception {
        return start(run, source, parallelism, failures, 0, null);
    }

    JobClient start(
            Run run,
            BackfillSource<PartitionRecord> source,
            int parallelism,
            List<Long> failures,
            double throttlePerSubtask,
            String savepoint)
            throws Exception {
        return start(run, source, parallelism, failures, throttlePerSubtask, savepoint, null, -1);
    }

    JobClient start(
            Run run,
            BackfillSource<PartitionRecord> source,
            int parallelism,
            List<Long> failures,
            double throttlePerSubtask,
            String savepoint,
            String failPartition,
            long failAtOffset)
            throws Exception {
        return start(
                run,
                source,
                parallelism,
                failures,
                throttlePerSubtask,
                savepoint,
                failPartition,
                failAtOffset,
                false);
    }

    /**
     * Starts a job; it gets a restart strategy only if failures are injected into it (task failures
     * at record counts or at a partition's offset, a global failure through the enumerator), so
     * that any other failure fails the job, and {@link #assertRestarts} checks that it restarted
     * exactly once per injected failure.
     */
    JobClient start(
            Run run,
            BackfillSource<PartitionRecord> source,
            int parallelism,
            List<Long> failures,
            double throttlePerSubtask,
            String savepoint,
            String failPartition,
            long failAtOffset,
            boolean globalFailure)
            throws Exception {
        int injected = failures.size() + (failPartition != null ? 1 : 0) + (globalFailure ? 1 : 0);
        Configuration conf = new Configuration();
        if (savepoint != null) {
            conf.set(StateRecoveryOptions.SAVEPOINT_PATH, savepoint);
        }
        if (injected > 0) {
            conf.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
            conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 10);
            conf.set(
                    RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY,
                    Duration.ofMillis(100));
        } else {
            conf.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
        }
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(parallelism);
        env.enableCheckpointing(100);
        Source<PartitionRecord, BackfillSplit, BackfillEnumeratorState> observed =
                new ObservedSource<>(source, run.source);
        if (globalFailure) {
            observed = new FailCoordinatorOnce<>(observed, run.checker);
        }
        DataStream<PartitionRecord> stream =
                env.fromSource(observed, WatermarkStrategy.noWatermarks(), "kafka-backfill")
                        .uid("kafka-backfill");
        if (throttlePerSubtask > 0) {
            stream = stream.map(new Throttle<>(throttlePerSubtask)).name("throttle");
        }
        if (failPartition != null) {
            stream =
                    stream.map(FailOnce.atOffset(run.checker, failPartition, failAtOffset))
                            .name("fail-at-handover");
        }
        for (long at : failures) {
            stream = stream.map(new FailOnce(run.checker, at)).name("fail-at-" + at);
        }
        stream.keyBy(PartitionRecord::partitionKey)
                .process(new KafkaExactlyOnceChecker(run.checker, run.unordered))
                .uid("checker")
                .sinkTo(new DiscardingSink<>());
        JobClient job = env.executeAsync("kafka " + run.checker);
        run.jobs.add(Map.entry(job, injected));
        started.add(job);
        return job;
    }

    /**
     * Waits until every job of the runs ended and checks that each restarted exactly as often as
     * the failures injected into it make Flink restart (once per failed attempt): an unexpected
     * failover fails the test.
     */
    void assertRestarts(Run... runs) throws Exception {
        for (Run run : runs) {
            for (Map.Entry<JobClient, Integer> job : run.jobs) {
                long restartCount = restarts.restartsOf(job.getKey(), Duration.ofSeconds(60));
                // task failures of one attempt make one restart
                long merged = FailOnce.mergedFailures(job.getKey().getJobID());
                assertThat(restartCount)
                        .as(
                                "restarts of job %s (failures injected: %d, %d of them in an attempt "
                                        + "that had already failed)",
                                job.getKey().getJobID(), job.getValue(), merged)
                        .isEqualTo(job.getValue() - merged);
            }
        }
    }

    /**
     * Waits for a condition while the job runs; a job that ended meanwhile fails with its cause.
     */
    static void awaitWhileRunning(String what, JobClient job, BooleanSupplier condition)
            throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!condition.getAsBoolean()) {
            if (job.getJobStatus().get().isGloballyTerminalState()) {
                job.getJobExecutionResult().get();
                throw new AssertionError("The job ended before " + what);
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError("Timed out waiting for " + what);
            }
            Thread.sleep(20);
        }
    }

    /** Records [from, from + perPartition) of each partition: value "v<partition>-<i>". */
    void produce(String topic, int partitions, int from, int perPartition) throws Exception {
        kafka.produce(
                partitions,
                from,
                from + perPartition,
                (p, i) -> new ProducerRecord<>(topic, p, "k" + (i % 97), "v" + p + "-" + i));
    }

    static void awaitDigests(Run run, Map<String, PartitionDigest> truth, JobClient job)
            throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (!KafkaExactlyOnceChecker.digests(run.checker).equals(truth)) {
            if (job.getJobStatus().get().isGloballyTerminalState()) {
                job.getJobExecutionResult().get();
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError(
                        "checked "
                                + KafkaExactlyOnceChecker.digests(run.checker)
                                + " but the topic holds "
                                + truth);
            }
            Thread.sleep(50);
        }
    }

    static void assertSound(Run run) {
        assertThat(KafkaExactlyOnceChecker.violations(run.checker))
                .as("order/duplicate violations")
                .isEmpty();
        BackfillTestJobs.assertForwardModeSound(Observations.of(run.source), 0, false);
    }
}
