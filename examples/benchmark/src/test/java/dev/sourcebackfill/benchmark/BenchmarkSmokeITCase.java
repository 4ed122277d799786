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

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A tiny run of the whole harness: it checks that every figure is produced and written, never what
 * the figures are (speed is for the real run, see docs/benchmarks.md).
 */
class BenchmarkSmokeITCase {

    /** The system property that runs section 11 alone ({@code iceberg}). */
    private static final String ONLY = "benchmark.smoke.only";

    private static final String ICEBERG_ONLY = "iceberg";

    @Test
    void theHarnessProducesEveryFigure(@TempDir Path dir) throws Throwable {
        Path json = dir.resolve("results.json");
        BenchmarkSettings settings = BenchmarkSettings.smoke();
        // section 11 alone where asked (.ci/run: on 1.20, for the IcebergSource baseline that
        // line alone builds; every section runs on the default line)
        boolean icebergOnly = ICEBERG_ONLY.equals(System.getProperty(ONLY));
        if (System.getProperty(ONLY) != null && !icebergOnly) {
            throw new IllegalArgumentException(
                    ONLY
                            + " must be '"
                            + ICEBERG_ONLY
                            + "' or unset, was "
                            + System.getProperty(ONLY));
        }
        if (icebergOnly) {
            BenchmarkMain.runOnly(
                    settings, json, BenchmarkMain.sections(settings).get("only-iceberg"));
        } else {
            BenchmarkMain.run(settings, json, true);
        }

        JsonNode root = new ObjectMapper().readTree(json.toFile());
        assertThat(root.path("environment").path("cores").asInt()).isPositive();
        Map<String, JsonNode> figures = new HashMap<>();
        root.path("figures").forEach(f -> figures.put(f.path("id").asText(), f));

        List<String> paired =
                new ArrayList<>(
                        List.of(
                                "backfill.throughput",
                                "backfill.referenceThroughput",
                                "backfill.againstReference",
                                "forward.throughput",
                                "forward.againstReference",
                                "kafka.equalSettings.throughput",
                                "kafka.equalSettings.caughtUp",
                                "kafka.throughput",
                                "kafka.caughtUp",
                                "kafka.liveThroughput",
                                "kafka.onePartition.chunks.caughtUp",
                                "kafka.onePartition.caughtUp",
                                "kafka.onePartition.chunks.throughput",
                                "archive.throughput",
                                "iceberg.throughput",
                                "iceberg.orderedThroughput",
                                "iceberg.largeFile",
                                "iceberg.everyPartitionLive",
                                "iceberg.everyPartitionLive.cpuPerRecord",
                                "alignment.throughput",
                                "alignment.flinkThroughput",
                                "skewed.smallPartitionsLive",
                                "skewed.everyPartitionLive",
                                "skewed.chunks.everyPartitionCaughtUp",
                                "skewed.chunks.vsOursWithout.everyPartitionCaughtUp"));
        if (IcebergLiveTime.hasIcebergSource()) {
            // section 11's third baseline, on the lines with Iceberg's Flink source (1.20)
            paired.add("iceberg.everyPartitionLive.icebergSource");
            paired.add("iceberg.everyPartitionLive.icebergSource.cpuPerRecord");
        }
        List<String> expected = new ArrayList<>(paired);
        for (var interval : settings.handoverIntervals) {
            expected.add("handover.latency." + interval.toMillis() + "ms.intervals");
            expected.add("handover.latency." + interval.toMillis() + "ms.seconds");
        }
        for (int splits : settings.memorySplitCounts) {
            for (String live : List.of("slow", "fast")) {
                for (String figure :
                        List.of(
                                "liveHeap",
                                "liveHeapPerSplit",
                                "handoverLatency",
                                "peakHeap",
                                "enumeratorState",
                                "readerState")) {
                    expected.add("memory." + splits + "." + live + "." + figure);
                }
            }
        }
        for (int splits : settings.enumeratorSplitCounts) {
            for (String figure :
                    List.of("snapshotState", "serialize", "statusReport", "stateBytes")) {
                expected.add("enumerator." + splits + "." + figure);
            }
        }
        expected.add("ratelimit.accuracy");
        expected.add("ratelimit.afterControl");
        // the HybridSource baseline's own derivation of its offsets (section 11), its time alone
        expected.add("iceberg.everyPartitionLive.hybridDerivation");
        // beside each throughput row: the CPU time per record of the same runs
        List<String> cpuPerRecord =
                List.of(
                                "backfill.throughput",
                                "backfill.referenceThroughput",
                                "backfill.againstReference",
                                "forward.throughput",
                                "forward.againstReference",
                                "kafka.equalSettings.throughput",
                                "kafka.throughput",
                                "kafka.liveThroughput",
                                "kafka.onePartition.chunks.throughput",
                                "archive.throughput",
                                "iceberg.throughput",
                                "iceberg.orderedThroughput",
                                "iceberg.largeFile",
                                "alignment.throughput",
                                "alignment.flinkThroughput")
                        .stream()
                        .map(id -> id + ".cpuPerRecord")
                        .collect(Collectors.toCollection(ArrayList::new));

        List<String> all = new ArrayList<>(expected);
        all.addAll(cpuPerRecord);
        if (icebergOnly) {
            all.removeIf(id -> !id.startsWith("iceberg."));
            expected.removeIf(id -> !id.startsWith("iceberg."));
            paired.removeIf(id -> !id.startsWith("iceberg."));
            cpuPerRecord.removeIf(id -> !id.startsWith("iceberg."));
        }
        assertThat(figures.keySet()).containsExactlyInAnyOrderElementsOf(all);
        for (String id : expected) {
            JsonNode ours = figures.get(id).path("ours");
            assertThat(ours.path("samples").size()).as(id).isPositive();
            assertThat(ours.path("median").asDouble()).as(id).isGreaterThanOrEqualTo(0);
        }
        for (String id : paired) {
            assertThat(figures.get(id).path("ours").path("median").asDouble()).as(id).isPositive();
            assertThat(figures.get(id).path("baseline").path("median").asDouble())
                    .as(id)
                    .isPositive();
            assertThat(figures.get(id).path("ratio").path("median").asDouble()).as(id).isPositive();
        }
        for (String id : cpuPerRecord) {
            for (String samples : List.of("ours", "baseline", "ratio")) {
                assertThat(figures.get(id).path(samples).path("samples").size())
                        .as(id + " " + samples)
                        .isEqualTo(settings.rounds);
            }
        }
    }
}
