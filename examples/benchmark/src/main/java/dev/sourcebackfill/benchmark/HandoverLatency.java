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

import dev.sourcebackfill.source.datagen.DatagenLog;

import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

import java.time.Duration;

/**
 * How long the switch to forward mode takes: from the moment the last split becomes {@code
 * FINISHED} on its reader to the moment the last reader is in forward mode. Forward mode needs a
 * checkpoint that starts after the last report and completes, so the expected figure is between the
 * report's round trip and one interval plus a checkpoint's duration.
 */
final class HandoverLatency {

    private final BenchCluster cluster;
    private final BenchmarkSettings settings;

    HandoverLatency(BenchCluster cluster, BenchmarkSettings settings) {
        this.cluster = cluster;
        this.settings = settings;
    }

    /** One run; the latency in seconds. */
    double run(Duration checkpointInterval) throws Exception {
        DatagenLog log =
                DatagenLog.builder()
                        .partitions(settings.partitions)
                        .historyPerPartition(50_000)
                        .liveRatePerSecond(1_000)
                        .build();
        try (RunProbe probe = RunProbe.open("handover")) {
            Configuration conf = new Configuration();
            conf.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, checkpointInterval);
            StreamExecutionEnvironment env = cluster.env(conf);
            ProbedBackfillJob.addTo(env, log, probe, false);
            JobClient job = env.executeAsync("benchmark: handover latency " + checkpointInterval);
            BenchCluster.await(
                    job,
                    () -> probe.allInForwardMode(cluster.parallelism),
                    Duration.ofSeconds(60).plus(checkpointInterval.multipliedBy(10)),
                    "forward mode on every reader");
            BenchCluster.cancel(job);
            return probe.handoverLatencyNanos() / 1e9;
        }
    }
}
