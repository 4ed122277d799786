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
package dev.sourcebackfill.benchmark;

import org.apache.flink.api.common.JobStatus;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.util.TestStreamEnvironment;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * One MiniCluster for every job of a benchmark, so that no job pays for a cluster's start and
 * contender and baseline run on the same, warm, JVM.
 */
final class BenchCluster implements AutoCloseable {

    private final MiniCluster cluster;
    final int parallelism;

    private BenchCluster(MiniCluster cluster, int parallelism) {
        this.cluster = cluster;
        this.parallelism = parallelism;
    }

    static BenchCluster start(int parallelism) throws Exception {
        Configuration conf = new Configuration();
        conf.set(TaskManagerOptions.MANAGED_MEMORY_SIZE, MemorySize.parse("64m"));
        // no job of the harness injects failures: a failover fails the run instead of hiding
        conf.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
        MiniCluster cluster =
                new MiniCluster(
                        new MiniClusterConfiguration.Builder()
                                .setConfiguration(conf)
                                .setNumTaskManagers(1)
                                .setNumSlotsPerTaskManager(parallelism)
                                .build());
        cluster.start();
        return new BenchCluster(cluster, parallelism);
    }

    /** An environment whose jobs run on this cluster, with {@code jobConf} as job settings. */
    StreamExecutionEnvironment env(Configuration jobConf) {
        return new TestStreamEnvironment(cluster, jobConf, parallelism, List.of(), List.of());
    }

    /** Waits for {@code condition}; cancels the job and fails, naming {@code what}, on timeout. */
    static void await(JobClient job, BooleanSupplier condition, Duration timeout, String what)
            throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        for (int polls = 0; !condition.getAsBoolean(); polls++) {
            // the condition is cheap and checked every 5 ms; the job's status is an RPC: 100 ms
            JobStatus status =
                    polls % 20 == 0
                            ? job.getJobStatus().get(10, TimeUnit.SECONDS)
                            : JobStatus.RUNNING;
            if (status.isGloballyTerminalState()) {
                job.getJobExecutionResult().get(10, TimeUnit.SECONDS); // throws the job's failure
                throw new IllegalStateException("The job ended (" + status + ") before " + what);
            }
            if (System.nanoTime() > deadline) {
                job.cancel().get(30, TimeUnit.SECONDS);
                throw new IllegalStateException(
                        "Timed out after " + timeout + " waiting for " + what);
            }
            Thread.sleep(5);
        }
    }

    /** Cancels a running job and waits until it is gone, so the next job finds free slots. */
    static void cancel(JobClient job) throws Exception {
        job.cancel().get(60, TimeUnit.SECONDS);
        try {
            job.getJobExecutionResult().get(60, TimeUnit.SECONDS);
        } catch (ExecutionException expected) {
            // a cancelled job's result is its cancellation
        }
    }

    @Override
    public void close() throws Exception {
        cluster.close();
    }
}
