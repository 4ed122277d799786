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
package dev.sourcebackfill.source;

import dev.sourcebackfill.source.datagen.DatagenLog;
import dev.sourcebackfill.source.datagen.DatagenRecord;
import dev.sourcebackfill.source.spi.BackfillLog;
import dev.sourcebackfill.source.spi.DiscoveredSplit;
import dev.sourcebackfill.source.spi.LogReading;
import dev.sourcebackfill.source.spi.LogSplitDiscoverer;
import dev.sourcebackfill.source.testutils.BackfillTestJobs;
import dev.sourcebackfill.source.testutils.FailureInjector.Trigger;
import dev.sourcebackfill.source.testutils.Observations;
import dev.sourcebackfill.source.testutils.RestartCounter;

import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.test.junit5.MiniClusterExtension;

import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.RepetitionInfo;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import static dev.sourcebackfill.source.testutils.BackfillTestJobs.assertExactlyOnce;
import static dev.sourcebackfill.source.testutils.BackfillTestJobs.assertForwardModeSound;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A bounded job calls the log's forward-mode hook ({@link LogSplitDiscoverer#onForwardMode}) once,
 * as an unbounded one does: the Iceberg adapter removes its snapshot tag there, and a bounded
 * Iceberg job whose splits had all ended never called it, so the tag stayed until its max age.
 * Every split here ends in its backfill and never goes live (as an Iceberg table's history does),
 * or ends after a short live part. Each run checks exactly once, and that the job restarted once
 * per injected failure (none unless a test injects one).
 */
class BoundedForwardModeHookITCase {

    private static final RestartCounter RESTARTS = new RestartCounter();

    /** run id -> the hook's calls, "checkpoint [split ids]", in order. */
    private static final Map<String, List<String>> HOOK_CALLS = new ConcurrentHashMap<>();

    /** run id -> the hook's calls that were interrupted (the worker thread closed under them). */
    private static final Map<String, List<String>> HOOK_INTERRUPTS = new ConcurrentHashMap<>();

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER =
            new MiniClusterExtension(
                    new MiniClusterResourceConfiguration.Builder()
                            .setConfiguration(RESTARTS.addTo(new Configuration()))
                            .setNumberTaskManagers(1)
                            .setNumberSlotsPerTaskManager(4)
                            .build());

    /** Every split ends in its backfill: no split is ever FINISHED, all of them end. */
    @RepeatedTest(3)
    void everySplitEndsInItsBackfill(RepetitionInfo run) throws Exception {
        runBounded(0, List.of(), "history only, run " + run.getCurrentRepetition());
    }

    /** Every split goes live and ends after a few live records. */
    @Test
    void everySplitEndsAfterALivePart() throws Exception {
        runBounded(120, List.of(), "live part");
    }

    /** A failover while splits backfill: the ends come again from the restored readers. */
    @Test
    void everySplitEndsInItsBackfillWithAFailover() throws Exception {
        runBounded(0, List.of(Trigger.at("backfill", 1, 1_500)), "history only, a failover");
    }

    /**
     * A hook that takes a while, as a catalog commit does (the Iceberg tag's removal through a REST
     * or JDBC catalog): the job ends right after the checkpoint that confirmed forward mode, and
     * Flink closed the enumerator's worker thread under the running hook (on the real cluster the
     * tag stayed). The enumerator's close waits for it, so the hook's call completes.
     */
    @Test
    void aHookThatTakesAWhileCompletesBeforeTheJobEnds() throws Exception {
        runBounded(0, List.of(), "history only, a slow hook", 1_500);
    }

    private static void runBounded(long liveRecords, List<Trigger> failures, String name)
            throws Exception {
        runBounded(liveRecords, failures, name, 0);
    }

    private static void runBounded(
            long liveRecords, List<Trigger> failures, String name, long hookMillis)
            throws Exception {
        int partitions = 3;
        DatagenLog log =
                DatagenLog.builder()
                        .partitions(partitions)
                        .historyPerPartition(3_000)
                        .liveRatePerSecond(400)
                        .boundedAfterLiveRecords(liveRecords)
                        .build();
        BackfillTestJobs.Spec spec = new BackfillTestJobs.Spec();
        spec.log = log;
        String hookRun = UUID.randomUUID().toString();
        spec.sourceLog = new HookCountingLog(log, hookRun, hookMillis);
        spec.parallelism = 2;
        spec.keyed = false;
        spec.checkpointIntervalMs = 50;
        spec.throttlePerSubtask = 4_000;
        spec.failures = failures;
        spec.checkerRun = UUID.randomUUID().toString();
        spec.sourceRun = UUID.randomUUID().toString();
        try {
            BackfillTestJobs.runToEnd(spec, name, RESTARTS);
            assertThat(Observations.of(spec.checkerRun).failureEpisodes)
                    .as("failures injected")
                    .hasSize(failures.size());
            assertExactlyOnce(Observations.of(spec.checkerRun), log);
            assertForwardModeSound(Observations.of(spec.sourceRun), spec.parallelism, false);
            String splitIds =
                    IntStream.range(0, partitions)
                            .mapToObj(DatagenLog::splitId)
                            .sorted()
                            .collect(Collectors.joining(", ", "[", "]"));
            // the job's result may come before Flink closed its coordinator, where a hook that
            // still runs completes or is interrupted: wait for either (a call's list is made
            // before its entry is added to it: wait for the entry)
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (HOOK_CALLS.getOrDefault(hookRun, List.of()).isEmpty()
                    && HOOK_INTERRUPTS.getOrDefault(hookRun, List.of()).isEmpty()
                    && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertThat(HOOK_INTERRUPTS.getOrDefault(hookRun, List.of()))
                    .as("hook calls interrupted")
                    .isEmpty();
            assertThat(HOOK_CALLS.getOrDefault(hookRun, List.of()))
                    .as("the log's forward-mode hook, once, with every split")
                    .singleElement()
                    .asString()
                    .endsWith(" " + splitIds);
        } finally {
            HOOK_CALLS.remove(hookRun);
            HOOK_INTERRUPTS.remove(hookRun);
            Observations.forget(spec.checkerRun);
            Observations.forget(spec.sourceRun);
        }
    }

    /** The datagen log, whose discoverer records the forward-mode hook's calls. */
    private static final class HookCountingLog implements BackfillLog<DatagenRecord> {
        private static final long serialVersionUID = 1L;

        private final DatagenLog log;
        private final String runId;

        /** How long the hook takes before it records its call. */
        private final long hookMillis;

        HookCountingLog(DatagenLog log, String runId, long hookMillis) {
            this.log = log;
            this.runId = runId;
            this.hookMillis = hookMillis;
        }

        @Override
        public LogSplitDiscoverer createSplitDiscoverer() {
            LogSplitDiscoverer discoverer = log.createSplitDiscoverer();
            String run = runId;
            long takes = hookMillis;
            return new LogSplitDiscoverer() {
                @Override
                public List<DiscoveredSplit> discoverSplits(boolean initial) throws Exception {
                    return discoverer.discoverSplits(initial);
                }

                @Override
                public boolean mayDiscoverMoreSplits() {
                    return discoverer.mayDiscoverMoreSplits();
                }

                @Override
                public List<Long> cutHistory(
                        DiscoveredSplit split, long from, long to, long chunkSize)
                        throws Exception {
                    return discoverer.cutHistory(split, from, to, chunkSize);
                }

                @Override
                public void onForwardMode(
                        long checkpointId, Set<String> splitIds, Set<String> historyVersions)
                        throws InterruptedException {
                    // a catalog commit's time; interrupted if the worker thread is closed under it
                    try {
                        Thread.sleep(takes);
                    } catch (InterruptedException e) {
                        HOOK_INTERRUPTS
                                .computeIfAbsent(run, k -> new CopyOnWriteArrayList<>())
                                .add(checkpointId + " " + splitIds);
                        throw e;
                    }
                    HOOK_CALLS
                            .computeIfAbsent(run, k -> new CopyOnWriteArrayList<>())
                            .add(checkpointId + " " + splitIds);
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
        public boolean hasStoppingOffsets() {
            return log.hasStoppingOffsets();
        }

        @Override
        public boolean supportsHistoryChunks() {
            return log.supportsHistoryChunks();
        }

        @Override
        public TypeInformation<DatagenRecord> getProducedType() {
            return log.getProducedType();
        }
    }
}
