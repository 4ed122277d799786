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
import dev.sourcebackfill.source.split.BackfillSplit;
import dev.sourcebackfill.source.split.HandoverState;
import dev.sourcebackfill.source.testutils.BackfillTestJobs;
import dev.sourcebackfill.source.testutils.LineUpgrades;
import dev.sourcebackfill.source.testutils.Observations;
import dev.sourcebackfill.source.testutils.RestartCounter;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.test.junit5.MiniClusterExtension;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;

import static dev.sourcebackfill.source.testutils.BackfillTestJobs.assertExactlyOnce;
import static dev.sourcebackfill.source.testutils.BackfillTestJobs.assertForwardModeSound;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A backfill moved from one Flink line to another with a savepoint (README "Flink lines",
 * upgrading): the job is stopped in the middle of its backfill on the line it leaves (some splits
 * FINISHED, some BACKFILLING, chunks of history not ended) and resumed on the line it moves to, at
 * another parallelism; every (partition, offset) is then in checkpointed state exactly once, each
 * chunk in order, and the job neither restarts nor loses a split.
 *
 * <p>The two halves run in two builds, one per line, sharing a directory: {@code
 * -Dbackfill.upgrade.write=DIR} runs the first half (on the line left: {@code .ci/run} runs it on
 * 1.20) and writes the savepoint and what the checker had completed into {@code DIR}; {@code
 * -Dbackfill.upgrade.read=DIR} runs the second half on the line the build is for (the default line
 * in {@code .ci/run}). Without either property the class runs nothing. The datagen log is a
 * function of its settings and its epoch, which the first half writes down: both halves read the
 * same records at the same offsets.
 */
class LineUpgradeITCase {

    private static final String WRITE = LineUpgrades.WRITE;
    private static final String READ = LineUpgrades.READ;
    private static final String MANIFEST = "upgrade.properties";
    private static final long CHUNK = 1_000;

    private static final RestartCounter RESTARTS = new RestartCounter();

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER =
            new MiniClusterExtension(
                    new MiniClusterResourceConfiguration.Builder()
                            .setConfiguration(RESTARTS.addTo(new Configuration()))
                            .setNumberTaskManagers(2)
                            .setNumberSlotsPerTaskManager(2)
                            .build());

    /**
     * Four partitions of very different histories: 300 records (no chunk: it hands over first),
     * 3,300, 6,300 and 9,300 (in chunks of 1,000, read by every reader).
     */
    private static DatagenLog log(long epochMillis) {
        return DatagenLog.builder()
                .partitions(4)
                .historyPerPartition(300)
                .historyStepPerPartition(3_000)
                .liveRatePerSecond(300)
                .boundedAfterLiveRecords(1_200)
                .epochMillis(epochMillis)
                .build();
    }

    private static BackfillTestJobs.Spec spec(DatagenLog log, int parallelism) {
        BackfillTestJobs.Spec spec = new BackfillTestJobs.Spec();
        spec.log = log;
        spec.parallelism = parallelism;
        spec.backfillChunkSize = CHUNK;
        spec.checkerRun = UUID.randomUUID().toString();
        spec.sourceRun = UUID.randomUUID().toString();
        return spec;
    }

    @Test
    @EnabledIfSystemProperty(named = WRITE, matches = ".+")
    void stopsABackfillMidwayWithASavepointForAnotherLine() throws Exception {
        Path dir = Path.of(System.getProperty(WRITE)).toAbsolutePath();
        Files.createDirectories(dir);
        Files.deleteIfExists(dir.resolve(MANIFEST));
        DatagenLog log = log(System.currentTimeMillis());
        BackfillTestJobs.Spec first = spec(log, 2);
        first.throttlePerSubtask = 2_000;
        Observations source = Observations.of(first.sourceRun);
        Observations checker = Observations.of(first.checkerRun);
        String savepoint =
                BackfillTestJobs.stopWithSavepointWhen(
                        first,
                        "a split FINISHED, one BACKFILLING, a chunk not ended and a piece"
                                + " complete",
                        () -> {
                            List<BackfillSplit> splits =
                                    BackfillTestJobs.splitsInLatestSnapshot(source);
                            return hasState(splits, HandoverState.FINISHED)
                                    && hasState(splits, HandoverState.BACKFILLING)
                                    && splits.stream()
                                            .anyMatch(s -> s.chunk().isPresent() && !s.isEnded())
                                    && !checker.completedPieces.isEmpty();
                        },
                        dir.resolve("savepoints"),
                        RESTARTS);
        List<BackfillSplit> snapshot = BackfillTestJobs.splitsInLatestSnapshot(source);
        assertThat(snapshot.stream().map(BackfillSplit::state))
                .as("the savepoint was taken in the middle of the backfill")
                .contains(HandoverState.FINISHED, HandoverState.BACKFILLING);
        Set<String> openChunks =
                snapshot.stream()
                        .filter(s -> s.chunk().isPresent() && !s.isEnded())
                        .map(BackfillSplit::splitId)
                        .collect(Collectors.toSet());
        assertThat(openChunks).as("chunks not ended in the savepoint").isNotEmpty();
        assertThat(checker.completedPieces)
                .as("pieces the checker completed before the stop (the second half counts on them)")
                .isNotEmpty();
        assertThat(checker.violations).as("exactly-once violations before the stop").isEmpty();

        Properties manifest = new Properties();
        manifest.setProperty("savepoint", savepoint);
        manifest.setProperty("epochMillis", Long.toString(log.epochMillis()));
        manifest.setProperty("openChunks", String.join(",", openChunks));
        manifest.setProperty("recordsChecked", Long.toString(checker.recordsChecked.get()));
        checker.completedPieces.forEach(
                (piece, count) -> manifest.setProperty("completed." + piece, Long.toString(count)));
        checker.completedPartitions.forEach(
                (partition, count) ->
                        manifest.setProperty("ended." + partition, Long.toString(count)));
        LineUpgrades.write(dir.resolve(MANIFEST), manifest, "LineUpgradeITCase's first half");
    }

    @Test
    @EnabledIfSystemProperty(named = READ, matches = ".+")
    void resumesTheBackfillFromAnotherLinesSavepoint() throws Exception {
        Path dir = Path.of(System.getProperty(READ)).toAbsolutePath();
        Properties manifest = LineUpgrades.read(dir.resolve(MANIFEST));

        DatagenLog log = log(Long.parseLong(manifest.getProperty("epochMillis")));
        BackfillTestJobs.Spec resumed = spec(log, 3);
        resumed.savepoint = manifest.getProperty("savepoint");
        // the checker's state comes from the savepoint; what it had completed before the stop
        // is in the manifest (a piece or partition completed there gets no record here)
        Observations checker = Observations.of(resumed.checkerRun);
        for (String key : manifest.stringPropertyNames()) {
            if (key.startsWith("completed.")) {
                checker.completedPieces.put(
                        key.substring("completed.".length()),
                        Long.parseLong(manifest.getProperty(key)));
            } else if (key.startsWith("ended.")) {
                checker.completedPartitions.put(
                        Integer.parseInt(key.substring("ended.".length())),
                        Long.parseLong(manifest.getProperty(key)));
            }
        }
        BackfillTestJobs.runToEnd(
                resumed, "resumed from a " + manifest.getProperty("line") + " savepoint", RESTARTS);

        assertExactlyOnce(checker, log);
        assertThat(checker.recordsChecked.get() + recordsCheckedBefore(manifest))
                .as("records checked before and after the move: each offset once")
                .isEqualTo(totalRecords(log));
        assertForwardModeSound(Observations.of(resumed.sourceRun), 3, false);
        Observations source = Observations.of(resumed.sourceRun);
        assertThat(source.enumeratorRestores.get())
                .as("the enumerator was restored from the savepoint")
                .isEqualTo(1);
        assertThat(source.splitAdds.keySet())
                .as("the restored job was given the savepoint's open chunks")
                .containsAll(Arrays.asList(manifest.getProperty("openChunks").split(",")));
    }

    private static boolean hasState(List<BackfillSplit> splits, HandoverState state) {
        return splits.stream().anyMatch(s -> s.state() == state);
    }

    private static long recordsCheckedBefore(Properties manifest) {
        return Long.parseLong(manifest.getProperty("recordsChecked"));
    }

    private static long totalRecords(DatagenLog log) {
        long total = 0;
        for (int p = 0; p < log.totalPartitions(); p++) {
            total += log.recordCount(p);
        }
        return total;
    }
}
