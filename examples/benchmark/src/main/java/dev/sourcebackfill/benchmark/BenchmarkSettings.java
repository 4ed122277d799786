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

import java.time.Duration;
import java.util.List;

/** The sizes of a benchmark run: the full one of docs/benchmarks.md, or a small smoke run. */
final class BenchmarkSettings {

    final String name;
    final int parallelism = 2;
    final int partitions = 8;

    /** Alternating contender/baseline pairs per throughput figure. */
    final int rounds;

    /**
     * How long the records of a throughput round should last at least: the harness warns of a
     * shorter one (its figure is more start-up and noise than rate).
     */
    final double minRoundSeconds;

    /**
     * Records of the backfill throughput job and its baseline; as many after forward mode, on top
     * of those before it.
     */
    final long records;

    final Duration throughputCheckpointInterval = Duration.ofSeconds(1);
    final List<Duration> handoverIntervals;
    final int handoverRuns;
    final List<Integer> memorySplitCounts;

    /** History of the memory runs, spread over however many splits. */
    final long memoryHistory;

    /** The split counts the enumerator's cost is measured at. */
    final List<Integer> enumeratorSplitCounts;

    final int enumeratorIterations;

    /** Records of each Kafka topic of section 6 (the history's and the live one). */
    final long kafkaRecords;

    /**
     * Rows of section 11's Iceberg table (the Iceberg adapter against Iceberg's generic reader), as
     * many records in the topic.
     */
    final long icebergRecords;

    /** Archived lines of section 7 (the archive against FileSource). */
    final long archiveRecords;

    /** Archived lines of section 8 (the skewed archive), over its 4 partitions. */
    final long skewedRecords;

    /** The backfill rate limit of the accuracy runs, per reader, and how long a run lasts. */
    final double rateLimitPerReader;

    final double rateLimitSeconds;

    private BenchmarkSettings(
            String name,
            int rounds,
            double minRoundSeconds,
            long records,
            List<Duration> handoverIntervals,
            int handoverRuns,
            List<Integer> memorySplitCounts,
            long memoryHistory,
            List<Integer> enumeratorSplitCounts,
            int enumeratorIterations,
            long kafkaRecords,
            long archiveRecords,
            long skewedRecords,
            long icebergRecords,
            double rateLimitPerReader,
            double rateLimitSeconds) {
        this.rateLimitPerReader = rateLimitPerReader;
        this.rateLimitSeconds = rateLimitSeconds;
        this.name = name;
        this.rounds = rounds;
        this.minRoundSeconds = minRoundSeconds;
        this.records = records;
        this.handoverIntervals = handoverIntervals;
        this.handoverRuns = handoverRuns;
        this.memorySplitCounts = memorySplitCounts;
        this.memoryHistory = memoryHistory;
        this.enumeratorSplitCounts = enumeratorSplitCounts;
        this.enumeratorIterations = enumeratorIterations;
        this.kafkaRecords = kafkaRecords;
        this.archiveRecords = archiveRecords;
        this.skewedRecords = skewedRecords;
        this.icebergRecords = icebergRecords;
    }

    /**
     * The run of docs/benchmarks.md. Each throughput round's records last at least 5 s at the
     * fastest rate the 2-core machine of the latest figures measured in that section: 200 million
     * datagen records (NumberSequenceSource's 35.9M records/s at most: 5.6 s), 75 million Kafka
     * records (KafkaSource at our settings 14.0M/s at most: 5.4 s; live 9.9M/s at most: 7.6 s), 120
     * million archived lines (ours 21.2M/s at most: 5.7 s), and the rate limit for 5 s. The harness
     * warns of a round that lasted less. The skewed archive of section 8 has 30 million lines, its
     * big partition 23 million: one reader reads them in seconds, long enough for chunks to show
     * what many readers bring (6 million before issue 25: under a second). Section 11's Iceberg
     * table has 100 million rows (ours, reading a batch of rows at a time, 18.5M/s at most with 60
     * million: 3.2 s; 100 million: 5.4 s).
     */
    static BenchmarkSettings full() {
        return new BenchmarkSettings(
                "full",
                5,
                5,
                200_000_000,
                List.of(Duration.ofSeconds(1), Duration.ofSeconds(5)),
                3,
                List.of(8, 1_000, 10_000, 100_000),
                4_000_000,
                List.of(8, 10_000, 100_000),
                1_000,
                75_000_000,
                120_000_000,
                30_000_000,
                100_000_000,
                250_000,
                5);
    }

    /** Every figure, tiny: for the smoke test, which checks only that each was produced. */
    static BenchmarkSettings smoke() {
        return new BenchmarkSettings(
                "smoke",
                1,
                0,
                200_000,
                List.of(Duration.ofMillis(300)),
                1,
                List.of(8, 200),
                200_000,
                List.of(8, 500),
                20,
                20_000,
                20_000,
                20_000,
                20_000,
                20_000,
                1);
    }

    /**
     * Short rounds to run under a profiler (async-profiler, see docs/benchmarks.md): the full run's
     * sections with a fifth of their records and 3 rounds; its figures are not the benchmark's.
     */
    static BenchmarkSettings profile() {
        BenchmarkSettings full = full();
        return new BenchmarkSettings(
                "profile",
                3,
                0,
                full.records / 5,
                full.handoverIntervals,
                1,
                List.of(8),
                full.memoryHistory,
                List.of(8),
                full.enumeratorIterations,
                full.kafkaRecords / 5,
                full.archiveRecords / 5,
                full.skewedRecords,
                full.icebergRecords / 5,
                full.rateLimitPerReader,
                1);
    }

    static BenchmarkSettings named(String name) {
        switch (name) {
            case "full":
                return full();
            case "profile":
                return profile();
            case "smoke":
                return smoke();
            default:
                throw new IllegalArgumentException(
                        "--scale must be full, profile or smoke, was " + name);
        }
    }
}
