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
import org.apache.flink.configuration.ExternalizedCheckpointRetention;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

/**
 * Heap and checkpoint size for a given number of splits: the same history spread over them, and an
 * live either slow or several times faster than the backfill reads. Runs until forward mode and one
 * more checkpoint, then cancels, keeping that checkpoint to weigh it.
 */
final class MemoryAndState {

    /** What one run measured. */
    static final class Result {
        final double liveHeapMegabytes;
        final double peakHeapMegabytes;
        final CheckpointSizes checkpoint;

        /** From the last split becoming FINISHED to the last reader in forward mode. */
        final double handoverLatencySeconds;

        Result(
                double liveHeapMegabytes,
                double peakHeapMegabytes,
                CheckpointSizes checkpoint,
                double handoverLatencySeconds) {
            this.liveHeapMegabytes = liveHeapMegabytes;
            this.peakHeapMegabytes = peakHeapMegabytes;
            this.checkpoint = checkpoint;
            this.handoverLatencySeconds = handoverLatencySeconds;
        }
    }

    private static final Duration CHECKPOINT_INTERVAL = Duration.ofSeconds(1);

    private final BenchCluster cluster;
    private final BenchmarkSettings settings;
    private final Path checkpointRoot;

    /** The idle cluster's live heap, measured before the first run. */
    private final long idleBytes;

    MemoryAndState(BenchCluster cluster, BenchmarkSettings settings, Path checkpointRoot) {
        this.cluster = cluster;
        this.settings = settings;
        this.checkpointRoot = checkpointRoot;
        this.idleBytes = HeapProbe.liveHeapBytes();
    }

    /**
     * @param liveRecordsPerSecond what the live log produces, over all splits
     */
    Result run(int splits, double liveRecordsPerSecond) throws Exception {
        long history = settings.memoryHistory;
        DatagenLog log =
                DatagenLog.builder()
                        .partitions(splits)
                        .historyPerPartition(history / splits)
                        .liveRatePerSecond(liveRecordsPerSecond / splits)
                        .build();
        try (RunProbe probe = RunProbe.open("memory-" + splits);
                HeapProbe heap = new HeapProbe(idleBytes)) {
            Path checkpoints = Files.createDirectories(checkpointRoot.resolve(probe.id()));
            Configuration conf = new Configuration();
            conf.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, CHECKPOINT_INTERVAL);
            conf.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY, checkpoints.toUri().toString());
            conf.set(
                    CheckpointingOptions.EXTERNALIZED_CHECKPOINT_RETENTION,
                    ExternalizedCheckpointRetention.RETAIN_ON_CANCELLATION);
            StreamExecutionEnvironment env = cluster.env(conf);
            ProbedBackfillJob.addTo(env, log, probe, false);
            JobClient job = env.executeAsync("benchmark: memory with " + splits + " splits");
            Duration timeout = Duration.ofSeconds(120);
            BenchCluster.await(
                    job,
                    () -> probe.publishedRecords() >= history / 2,
                    timeout,
                    "half the backfill");
            heap.sampleLive();
            BenchCluster.await(
                    job,
                    () -> probe.allInForwardMode(cluster.parallelism),
                    timeout,
                    "forward mode");
            heap.sampleLive();
            Path jobDirectory = checkpoints.resolve(job.getJobID().toHexString());
            long confirmedBy = probe.forwardCheckpoint();
            BenchCluster.await(
                    job,
                    () -> latestId(jobDirectory) > confirmedBy,
                    timeout,
                    "a checkpoint after forward mode");
            heap.sampleLive();
            BenchCluster.cancel(job);
            Path retained =
                    CheckpointSizes.latest(jobDirectory)
                            .orElseThrow(() -> new IllegalStateException("No retained checkpoint"));
            return new Result(
                    heap.peakLiveMegabytes(),
                    heap.peakAfterAnyGcMegabytes(),
                    CheckpointSizes.read(retained),
                    probe.handoverLatencyNanos() / 1e9);
        }
    }

    private static long latestId(Path jobDirectory) {
        try {
            Optional<Path> latest = CheckpointSizes.latest(jobDirectory);
            return latest.map(CheckpointSizes::idOf).orElse(-1L);
        } catch (IOException e) {
            return -1;
        }
    }
}
