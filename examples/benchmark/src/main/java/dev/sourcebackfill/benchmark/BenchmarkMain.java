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

import dev.sourcebackfill.examples.JobArgs;

import org.apache.flink.runtime.util.EnvironmentInformation;
import org.apache.flink.util.FileUtils;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * The benchmark of docs/benchmarks.md: every figure in this one JVM, on one MiniCluster, each
 * contender alternating with its baseline round by round so that drift hits both alike.
 *
 * <p>Options: {@code --scale full|profile|smoke} (default full; profile: short rounds to run under
 * a profiler), {@code --output <json file>} (default {@code target/benchmark-results.json}), {@code
 * --skip-kafka} (no broker: sections 1-5), {@code --only-archive} (sections 7 and 8 alone), {@code
 * --only-flow-control} (sections 9 and 10 alone), {@code --only-kafka} (section 6 alone), {@code
 * --only-chunks} (the chunks of history: section 6's one-partition rows and section 8), {@code
 * --only-throughput} (sections 1 and 2 alone), {@code --only-iceberg} (section 11 alone), {@code
 * --only-iceberg-throughput} (its history throughput alone), {@code --only-iceberg-large-file} (one
 * large file read in chunks by every reader against one reader), {@code --only-iceberg-live} (its
 * time until every partition is live alone), {@code --only-iceberg-default-mode} (both, in one run,
 * on one table: section 11 without the ordered mode's rows), {@code --only-scaling} (sections 4 and
 * 5 alone, with the backfill rate of a short section 1 run).
 */
public final class BenchmarkMain {

    private BenchmarkMain() {}

    public static void main(String[] args) throws Throwable {
        JobArgs params = JobArgs.of(args);
        BenchmarkSettings settings = BenchmarkSettings.named(params.get("scale", "full"));
        Path output = Paths.get(params.get("output", "target/benchmark-results.json"));
        Map<String, Sections> only = sections(settings);
        Report report = null;
        for (Map.Entry<String, Sections> sections : only.entrySet()) {
            if (report == null && params.has(sections.getKey())) {
                report = runOnly(settings, output, sections.getValue());
            }
        }
        if (report == null) {
            report = run(settings, output, !params.has("skip-kafka"));
        }
        report.printTable(System.out);
        System.out.println("[benchmark] figures written to " + output.toAbsolutePath());
        System.exit(0); // the broker's and the cluster's non-daemon threads must not hold the JVM
    }

    /** The sections one option runs alone, by the option's name ({@code only-iceberg}, ...). */
    static Map<String, Sections> sections(BenchmarkSettings settings) {
        Map<String, Sections> only = new LinkedHashMap<>();
        only.put(
                "only-archive",
                (r, cluster) -> {
                    archive(r, cluster, settings);
                    skewedLiveTime(r, cluster, settings);
                });
        only.put(
                "only-flow-control",
                (r, cluster) -> {
                    DatagenThroughput throughput = new DatagenThroughput(cluster, settings);
                    rateLimitAccuracy(r, throughput, settings);
                    alignmentCost(r, throughput, settings);
                });
        only.put(
                "only-throughput",
                (r, cluster) -> {
                    DatagenThroughput throughput = new DatagenThroughput(cluster, settings);
                    double backfillRate = backfillThroughput(r, throughput, settings);
                    forwardThroughput(r, throughput, settings, backfillRate);
                });
        only.put("only-scaling", (r, cluster) -> scaling(r, cluster, settings));
        only.put("only-kafka", (r, cluster) -> kafka(r, cluster, settings));
        only.put("only-iceberg", (r, cluster) -> iceberg(r, cluster, settings));
        only.put("only-iceberg-large-file", (r, cluster) -> icebergLargeFile(r, cluster, settings));
        only.put(
                "only-iceberg-throughput", (r, cluster) -> icebergThroughput(r, cluster, settings));
        only.put(
                "only-iceberg-default-mode",
                (r, cluster) -> {
                    try (IcebergThroughput iceberg = IcebergThroughput.start(cluster, settings)) {
                        historyThroughput(r, settings, iceberg);
                        icebergLiveTime(
                                r, IcebergLiveTime.start(cluster, settings, iceberg), settings);
                    }
                });
        only.put(
                "only-iceberg-live",
                (r, cluster) -> {
                    try (IcebergThroughput iceberg = IcebergThroughput.start(cluster, settings)) {
                        icebergLiveTime(
                                r, IcebergLiveTime.start(cluster, settings, iceberg), settings);
                    }
                });
        only.put(
                "only-chunks",
                (r, cluster) -> {
                    try (KafkaThroughput kafka =
                            KafkaThroughput.startWithoutTopics(cluster, settings)) {
                        onePartition(r, settings, kafka);
                    }
                    skewedLiveTime(r, cluster, settings);
                });
        return only;
    }

    /** Sections 4 and 5, with the backfill rate of one run of section 1's job. */
    private static void scaling(Report report, BenchCluster cluster, BenchmarkSettings settings)
            throws Throwable {
        Path checkpoints = Files.createTempDirectory("backfill-benchmark");
        try {
            double backfillRate =
                    new DatagenThroughput(cluster, settings).backfillRun().recordsPerSecond();
            memoryAndState(
                    report,
                    new MemoryAndState(cluster, settings, checkpoints),
                    settings,
                    backfillRate);
            enumeratorCost(report, settings);
        } finally {
            FileUtils.deleteDirectory(checkpoints.toFile());
        }
    }

    /** Some sections on one cluster. */
    interface Sections {
        void run(Report report, BenchCluster cluster) throws Throwable;
    }

    /**
     * Only some sections: 7 and 8 (the archive adapter against FileSource and HybridSource), 6
     * (Kafka against KafkaSource), or 9 and 10 (the backfill rate limit, the cost of alignment).
     */
    static Report runOnly(BenchmarkSettings settings, Path output, Sections sections)
            throws Throwable {
        long started = System.nanoTime();
        Report report = reportOf(settings);
        try (BenchCluster cluster = BenchCluster.start(settings.parallelism)) {
            sections.run(report, cluster);
        }
        report.environment("durationSeconds", Math.round((System.nanoTime() - started) / 1e9));
        report.writeJson(output);
        return report;
    }

    /** A report with the environment every run states. */
    private static Report reportOf(BenchmarkSettings settings) {
        Report report = new Report();
        report.environment("scale", settings.name);
        report.environment("cores", Runtime.getRuntime().availableProcessors());
        report.environment("flink", EnvironmentInformation.getVersion());
        report.environment("parallelism", settings.parallelism);
        report.environment("date", Instant.now().toString());
        return report;
    }

    static Report run(BenchmarkSettings settings, Path output, boolean withKafka) throws Throwable {
        long started = System.nanoTime();
        Report report = reportOf(settings);
        report.environment("maxHeapMegabytes", Runtime.getRuntime().maxMemory() / 1_000_000);
        report.environment(
                "java",
                System.getProperty("java.vm.name") + " " + System.getProperty("java.version"));
        say(
                "%s scale: %d cores, heap %d MB, Flink %s, parallelism %d",
                settings.name,
                Runtime.getRuntime().availableProcessors(),
                Runtime.getRuntime().maxMemory() / 1_000_000,
                EnvironmentInformation.getVersion(),
                settings.parallelism);
        Path checkpoints = Files.createTempDirectory("backfill-benchmark");
        try (BenchCluster cluster = BenchCluster.start(settings.parallelism)) {
            DatagenThroughput throughput = new DatagenThroughput(cluster, settings);
            double backfillRate = backfillThroughput(report, throughput, settings);
            forwardThroughput(report, throughput, settings, backfillRate);
            handoverLatency(report, new HandoverLatency(cluster, settings), settings);
            rateLimitAccuracy(report, throughput, settings);
            alignmentCost(report, throughput, settings);
            memoryAndState(
                    report,
                    new MemoryAndState(cluster, settings, checkpoints),
                    settings,
                    backfillRate);
            enumeratorCost(report, settings);
            if (withKafka) {
                kafka(report, cluster, settings);
                archive(report, cluster, settings);
                skewedLiveTime(report, cluster, settings);
                iceberg(report, cluster, settings);
            }
        } finally {
            FileUtils.deleteDirectory(checkpoints.toFile());
        }
        double seconds = (System.nanoTime() - started) / 1e9;
        report.environment("durationSeconds", Math.round(seconds));
        report.writeJson(output);
        say("done in %.0f s", seconds);
        return report;
    }

    private static double backfillThroughput(
            Report report, DatagenThroughput throughput, BenchmarkSettings settings)
            throws Exception {
        say(
                "1. backfill throughput: %d records over %d partitions, %d rounds against NumberSequenceSource",
                settings.records, settings.partitions, settings.rounds);
        if (settings.rounds > 1) {
            throughput.backfillRun(); // warm-up, not counted
            throughput.baselineRun();
        }
        Samples ours =
                compare(
                        report,
                        settings,
                        "backfill.throughput",
                        "1. backfill throughput, " + settings.partitions + " partitions",
                        throughput::backfillRun,
                        "NumberSequenceSource",
                        throughput::baselineRun,
                        "ratio >= 0.90");
        say(
                "   for reference: the same records from a minimal source on Flink's SourceReaderBase, against NumberSequenceSource, and ours against it");
        compare(
                report,
                settings,
                "backfill.referenceThroughput",
                "1. for reference: a minimal source on Flink's SourceReaderBase, the same records",
                throughput::fetcherReferenceRun,
                "NumberSequenceSource",
                throughput::baselineRun,
                "(the cost of Flink's fetcher design)");
        compare(
                report,
                settings,
                "backfill.againstReference",
                "1. backfill throughput against the minimal SourceReaderBase source",
                throughput::backfillRun,
                "minimal SourceReaderBase source",
                throughput::fetcherReferenceRun,
                "ratio >= 0.95");
        return ours.median();
    }

    private static void forwardThroughput(
            Report report,
            DatagenThroughput throughput,
            BenchmarkSettings settings,
            double backfillRate)
            throws Exception {
        say(
                "2. forward-mode throughput: live records after forward mode, live 2x the backfill's rate");
        compare(
                report,
                settings,
                "forward.throughput",
                "2. forward-mode throughput",
                () -> throughput.forwardRun(backfillRate),
                "NumberSequenceSource",
                throughput::baselineRun,
                "ratio >= 0.90");
        compare(
                report,
                settings,
                "forward.againstReference",
                "2. forward-mode throughput against the minimal SourceReaderBase source",
                () -> throughput.forwardRun(backfillRate),
                "minimal SourceReaderBase source",
                throughput::fetcherReferenceRun,
                "ratio >= 0.95");
    }

    private static void rateLimitAccuracy(
            Report report, DatagenThroughput throughput, BenchmarkSettings settings)
            throws Exception {
        double perReader = settings.rateLimitPerReader;
        long records = (long) (perReader * settings.parallelism * settings.rateLimitSeconds);
        say(
                "9. backfill rate limit: %s records at %s records/s per reader, %d rounds",
                Report.format(records), Report.format(perReader), settings.rounds);
        report.add(
                "ratelimit.accuracy",
                "9. backfill rate limit, achieved / requested, "
                        + Report.format(perReader)
                        + " records/s per reader",
                "ratio",
                ratioRounds(settings, () -> throughput.rateLimitedRun(perReader, records)),
                "0.95-1.05");
        say(
                "9. the same rate set while the job runs: started paused at a quarter of it, then"
                        + " the control file sets it");
        report.add(
                "ratelimit.afterControl",
                "9. backfill rate set through the control file, achieved / requested, "
                        + Report.format(perReader)
                        + " records/s per reader",
                "ratio",
                ratioRounds(settings, () -> throughput.controlledRateRun(perReader, records)),
                "0.95-1.05");
    }

    /** A run returning achieved / requested. */
    @FunctionalInterface
    private interface RatioRun {
        double run() throws Exception;
    }

    private static Samples ratioRounds(BenchmarkSettings settings, RatioRun run) throws Exception {
        Samples ratios = new Samples();
        for (int round = 0; round < settings.rounds; round++) {
            ratios.add(run.run());
            say("   round %d: achieved / requested %.3f", round + 1, ratios.get(round));
        }
        return ratios;
    }

    private static void alignmentCost(
            Report report, DatagenThroughput throughput, BenchmarkSettings settings)
            throws Exception {
        say(
                "10. watermark alignment with nothing to pause: event-time backfill, aligned against unaligned");
        if (settings.rounds > 1) {
            throughput.eventTimeRun(true); // warm-up, not counted
            throughput.eventTimeRun(false);
        }
        compare(
                report,
                settings,
                "alignment.throughput",
                "10. event-time backfill throughput with watermark alignment",
                () -> throughput.eventTimeRun(true),
                "the same without alignment",
                () -> throughput.eventTimeRun(false),
                "ratio >= 0.97");
        say("    for reference, Flink's own: NumberSequenceSource, aligned against unaligned");
        compare(
                report,
                settings,
                "alignment.flinkThroughput",
                "10. for reference: NumberSequenceSource with watermark alignment",
                () -> throughput.eventTimeBaselineRun(true),
                "the same without alignment",
                () -> throughput.eventTimeBaselineRun(false),
                "(Flink's own cost)");
    }

    private static void handoverLatency(
            Report report, HandoverLatency latency, BenchmarkSettings settings) throws Exception {
        say("3. handover latency: last split FINISHED -> every reader in forward mode");
        for (Duration interval : settings.handoverIntervals) {
            Samples intervals = new Samples();
            Samples seconds = new Samples();
            for (int run = 0; run < settings.handoverRuns; run++) {
                double s = latency.run(interval);
                seconds.add(s);
                intervals.add(s / (interval.toMillis() / 1e3));
                say("   checkpoint interval %s, run %d: %.2f s", interval, run + 1, s);
            }
            double targetIntervals = 1 + 1.0 / (interval.toMillis() / 1e3);
            String name = interval.toMillis() + " ms";
            report.add(
                    "handover.latency." + interval.toMillis() + "ms.intervals",
                    "3. handover latency, checkpoints every " + name,
                    "intervals",
                    intervals,
                    String.format(
                            Locale.ROOT, "<= %.2f intervals (1 interval + 1 s)", targetIntervals));
            report.add(
                    "handover.latency." + interval.toMillis() + "ms.seconds",
                    "3. handover latency, checkpoints every " + name,
                    "s",
                    seconds,
                    String.format(Locale.ROOT, "<= %.1f s", interval.toMillis() / 1e3 + 1));
        }
    }

    private static void memoryAndState(
            Report report, MemoryAndState memory, BenchmarkSettings settings, double backfillRate)
            throws Exception {
        say(
                "4. memory and state: %d records of history over %s splits, a slow live log and one 10x the backfill's rate",
                settings.memoryHistory, settings.memorySplitCounts);
        double slow = 8_000;
        double fast = 10 * backfillRate;
        for (int splits : settings.memorySplitCounts) {
            for (double live : new double[] {slow, fast}) {
                String label =
                        String.format(
                                Locale.ROOT,
                                "%,d splits, live %s records/s",
                                splits,
                                Report.format(live));
                MemoryAndState.Result r = memory.run(splits, live);
                String key = "memory." + splits + (live == slow ? ".slow" : ".fast");
                say(
                        "   %s: live heap %.1f MB (%.2f KB a split), peak %.1f MB, enumerator state %d B, readers' state %d B (checkpoint %d), last FINISHED to forward mode %.2f s",
                        label,
                        r.liveHeapMegabytes,
                        r.liveHeapMegabytes * 1e3 / splits,
                        r.peakHeapMegabytes,
                        r.checkpoint.enumeratorBytes,
                        r.checkpoint.readerBytes,
                        r.checkpoint.checkpointId,
                        r.handoverLatencySeconds);
                String flat = "flat within 10% (apart from the status table)";
                report.add(
                        key + ".liveHeap",
                        "4. live heap above idle, " + label,
                        "MB",
                        Samples.of(r.liveHeapMegabytes),
                        flat);
                report.add(
                        key + ".liveHeapPerSplit",
                        "4. live heap above idle per split, " + label,
                        "KB",
                        Samples.of(r.liveHeapMegabytes * 1e3 / splits),
                        "at 100,000 splits no higher than at 10,000");
                report.add(
                        key + ".handoverLatency",
                        "4. last split FINISHED to every reader in forward mode, checkpoints every 1 s, "
                                + label,
                        "s",
                        Samples.of(r.handoverLatencySeconds),
                        "<= 2.0 s");
                report.add(
                        key + ".peakHeap",
                        "4. peak heap after any GC above idle, " + label,
                        "MB",
                        Samples.of(r.peakHeapMegabytes),
                        flat);
                report.add(
                        key + ".enumeratorState",
                        "4. enumerator checkpoint state, " + label,
                        "bytes",
                        Samples.of(r.checkpoint.enumeratorBytes),
                        "grows with splits only");
                report.add(
                        key + ".readerState",
                        "4. readers' checkpoint state (all), " + label,
                        "bytes",
                        Samples.of(r.checkpoint.readerBytes),
                        "grows with splits only");
            }
        }
    }

    private static void enumeratorCost(Report report, BenchmarkSettings settings) throws Throwable {
        for (int splits : settings.enumeratorSplitCounts) {
            say(
                    "5. enumerator cost with %d splits, %d calls after as many warm-up calls",
                    splits, settings.enumeratorIterations);
            EnumeratorCost.Result r = EnumeratorCost.measure(splits, settings.enumeratorIterations);
            String n = String.format(Locale.ROOT, "%,d splits", splits);
            String key = "enumerator." + splits;
            report.add(
                    key + ".snapshotState",
                    "5. enumerator snapshotState, " + n,
                    "us",
                    r.snapshotMicros,
                    "< 50,000 us (50 ms)");
            report.add(
                    key + ".serialize",
                    "5. enumerator state serialization, " + n,
                    "us",
                    r.serializeMicros,
                    "(with snapshotState) < 50 ms");
            report.add(
                    key + ".statusReport",
                    "5. handling one status report, " + n,
                    "us",
                    r.reportMicros,
                    "not growing with the split count");
            report.add(
                    key + ".stateBytes",
                    "5. serialized enumerator state, " + n,
                    "bytes",
                    Samples.of(r.stateBytes),
                    "");
        }
    }

    private static void kafka(Report report, BenchCluster cluster, BenchmarkSettings settings)
            throws Exception {
        say(
                "6. Kafka: %d records in 8 partitions on an in-process broker, earliest to latest; ours against KafkaSource with our backfill consumer's settings %s and with its defaults",
                settings.kafkaRecords,
                new TreeMap<>(KafkaThroughput.OUR_BACKFILL_CONSUMER_SETTINGS));
        Path savepoints = Files.createTempDirectory("backfill-benchmark-savepoints");
        try (KafkaThroughput kafka = KafkaThroughput.start(cluster, settings)) {
            if (settings.rounds > 1) {
                kafka.oursRun(); // warm-up, not counted
                kafka.kafkaSourceRun(true);
                kafka.kafkaSourceRun(false);
            }
            // one run of ours per round, paired with both baselines of that round
            Samples oursCaughtUp = new Samples();
            Samples equalCaughtUp = new Samples();
            Samples defaultsCaughtUp = new Samples();
            Series ours = new Series("ours", () -> kafka.oursRun().noteCaughtUp(oursCaughtUp));
            Series equal =
                    new Series(
                            "KafkaSource with our backfill consumer's settings",
                            () -> kafka.kafkaSourceRun(true).noteCaughtUp(equalCaughtUp));
            Series defaults =
                    new Series(
                            "KafkaSource with its defaults",
                            () -> kafka.kafkaSourceRun(false).noteCaughtUp(defaultsCaughtUp));
            rounds(settings, ours, equal, defaults);
            addThroughput(
                    report,
                    "kafka.equalSettings.throughput",
                    "6. Kafka throughput, 8 partitions, KafkaSource at equal settings",
                    ours,
                    equal,
                    "ratio >= 1.0",
                    "ratio <= 1.05");
            addThroughput(
                    report,
                    "kafka.throughput",
                    "6. Kafka throughput, 8 partitions, KafkaSource with its defaults",
                    ours,
                    defaults,
                    "(for reference: KafkaSource as shipped)");
            report.add(
                    new Report.Row(
                            "kafka.equalSettings.caughtUp",
                            "6. Kafka: time from submitting the job until every partition caught up (lower is better), KafkaSource at equal settings",
                            "s",
                            oursCaughtUp,
                            equal.name,
                            equalCaughtUp,
                            "ratio <= 1.0"));
            report.add(
                    new Report.Row(
                            "kafka.caughtUp",
                            "6. Kafka: time from submitting the job until every partition caught up (lower is better), KafkaSource with its defaults",
                            "s",
                            oursCaughtUp,
                            defaults.name,
                            defaultsCaughtUp,
                            "(for reference: KafkaSource as shipped)"));
            say(
                    "6. Kafka live: our job resumed with every split FINISHED, its live consumer against KafkaSource on the same records, both with Kafka's defaults");
            kafka.prepareLive(savepoints);
            if (settings.rounds > 1) {
                kafka.oursLiveRun(); // warm-up, not counted
                kafka.kafkaSourceLiveRun();
            }
            // our live consumer keeps Kafka's defaults: KafkaSource's are equal settings
            compare(
                    report,
                    settings,
                    "kafka.liveThroughput",
                    "6. Kafka live throughput (every split FINISHED), 8 partitions, KafkaSource at equal settings",
                    kafka::oursLiveRun,
                    "KafkaSource with its defaults (our live consumer's too)",
                    kafka::kafkaSourceLiveRun,
                    "ratio >= 0.97");
            onePartition(report, settings, kafka);
        } finally {
            FileUtils.deleteDirectory(savepoints.toFile());
        }
    }

    /**
     * One partition at parallelism 2: KafkaSource reads it with one reader (one split a partition),
     * ours with its history in chunks read by both, and ours without chunks.
     */
    private static void onePartition(
            Report report, BenchmarkSettings settings, KafkaThroughput kafka) throws Exception {
        say(
                "6. Kafka, one partition: %d records; ours with its history in %d chunks (of %d records) and without, against KafkaSource with our backfill consumer's settings; time until caught up",
                kafka.onePartitionRecords(),
                KafkaThroughput.ONE_PARTITION_CHUNKS,
                kafka.onePartitionChunkSize());
        kafka.prepareOnePartition();
        if (settings.rounds > 1) {
            kafka.oursOnePartitionRun(true); // warm-up, not counted
            kafka.kafkaSourceOnePartitionRun();
            kafka.oursOnePartitionRun(false);
        }
        Samples chunkedCaughtUp = new Samples();
        Samples plainCaughtUp = new Samples();
        Samples equalCaughtUp = new Samples();
        Series chunked =
                new Series(
                        "ours, chunks",
                        () -> kafka.oursOnePartitionRun(true).noteCaughtUp(chunkedCaughtUp));
        Series equal =
                new Series(
                        "KafkaSource with our backfill consumer's settings",
                        () -> kafka.kafkaSourceOnePartitionRun().noteCaughtUp(equalCaughtUp));
        Series plain =
                new Series(
                        "ours without chunks",
                        () -> kafka.oursOnePartitionRun(false).noteCaughtUp(plainCaughtUp));
        rounds(settings, chunked, equal, plain);
        report.add(
                new Report.Row(
                        "kafka.onePartition.chunks.caughtUp",
                        "6. Kafka, one partition at parallelism 2: time from submitting the job until caught up (lower is better), ours with chunks against KafkaSource at equal settings",
                        "s",
                        chunkedCaughtUp,
                        equal.name,
                        equalCaughtUp,
                        "ratio <= 0.65"));
        report.add(
                new Report.Row(
                        "kafka.onePartition.caughtUp",
                        "6. Kafka, one partition at parallelism 2: time until caught up (lower is better), ours without chunks against KafkaSource at equal settings",
                        "s",
                        plainCaughtUp,
                        equal.name,
                        equalCaughtUp,
                        "(for reference: chunks off)"));
        addThroughput(
                report,
                "kafka.onePartition.chunks.throughput",
                "6. Kafka throughput, one partition at parallelism 2, ours with chunks against KafkaSource at equal settings",
                chunked,
                equal,
                "(for reference: the caught-up row is the target)");
    }

    private static void archive(Report report, BenchCluster cluster, BenchmarkSettings settings)
            throws Exception {
        try (ArchiveThroughput archive = ArchiveThroughput.start(cluster, settings)) {
            say(
                    "7. archive: %d records in 8 partitions of files (Kafka Connect layout); ours against FileSource, same files and format",
                    archive.records());
            if (settings.rounds > 1) {
                archive.oursRun(); // warm-up, not counted
                archive.fileSourceRun();
            }
            compare(
                    report,
                    settings,
                    "archive.throughput",
                    "7. archive backfill throughput, 8 partitions",
                    archive::oursRun,
                    "FileSource",
                    archive::fileSourceRun,
                    "ratio >= 1.0");
        }
    }

    /** Section 11's history throughput alone (to profile it, or to measure a change to it). */
    private static void icebergThroughput(
            Report report, BenchCluster cluster, BenchmarkSettings settings) throws Exception {
        try (IcebergThroughput iceberg = IcebergThroughput.start(cluster, settings)) {
            historyThroughput(report, settings, iceberg);
        }
    }

    private static void historyThroughput(
            Report report, BenchmarkSettings settings, IcebergThroughput iceberg) throws Exception {
        say(
                "11. Iceberg: %d records of a topic's history in an Iceberg table (Redpanda's layout, files of 1,000,000 rows mixing 8 partitions); ours against the same files read with Iceberg's generic reader in a plain Flink job",
                iceberg.records());
        if (settings.rounds > 1) {
            iceberg.oursRun(); // warm-up, not counted
            iceberg.genericReaderRun();
        }
        compare(
                report,
                settings,
                "iceberg.throughput",
                "11. Iceberg history throughput, 8 partitions",
                iceberg::oursRun,
                "Iceberg's generic reader in a plain Flink job",
                iceberg::genericReaderRun,
                "ratio >= 1.1 (issue 38; CPU per record <= 0.95)");
    }

    private static void iceberg(Report report, BenchCluster cluster, BenchmarkSettings settings)
            throws Exception {
        try (IcebergThroughput iceberg = IcebergThroughput.start(cluster, settings)) {
            historyThroughput(report, settings, iceberg);
            // issue 34, item 3: what order costs where files mix partitions (each file read once
            // per partition it holds, 8 times here)
            say(
                    "11. Iceberg ordered mode: the same table read in ordered mode against the default mode (chunks of whole files, each file read once)");
            iceberg.oursOrderedRun(); // warm-up, not counted
            compare(
                    report,
                    settings,
                    "iceberg.orderedThroughput",
                    "11. Iceberg history throughput in ordered mode, files mixing 8 partitions",
                    iceberg::oursOrderedRun,
                    "ours in the default mode",
                    iceberg::oursRun,
                    "(the cost of order)");
            icebergLiveTime(report, IcebergLiveTime.start(cluster, settings, iceberg), settings);
        }
        icebergLargeFile(report, cluster, settings);
    }

    /**
     * Section 11, one large data file: half the table's rows in one file of row groups of 1,000,000
     * rows (a tenth of the file at the smaller scales), read with chunks of a row group's rows (the
     * default chunk size at full scale: the file cut where its row groups start, its chunks read by
     * every reader) against one chunk for the whole file (one reader reads it, as a file was read
     * before files were cut inside).
     */
    private static void icebergLargeFile(
            Report report, BenchCluster cluster, BenchmarkSettings settings) throws Exception {
        long records = settings.icebergRecords / 2;
        // row groups of 1,000,000 rows; at least 10 of them at the smaller scales, so that the
        // file is cut there too
        long chunk = Math.min(IcebergThroughput.ROWS_PER_ROW_GROUP, Math.max(1, records / 10));
        try (IcebergThroughput iceberg =
                IcebergThroughput.startOneFile(cluster, settings, records, chunk)) {
            say(
                    "11. Iceberg, one large file: %d rows in %d data file(s) of %d row groups; ours with chunks of %d rows (the file cut where its row groups start, read by every reader) against one chunk of the whole file (one reader)",
                    iceberg.records(), iceberg.dataFiles(), iceberg.rowGroups(), chunk);
            if (settings.rounds > 1) {
                iceberg.oursRun(chunk); // warm-up, not counted
                iceberg.oursRun(iceberg.records());
            }
            compare(
                    report,
                    settings,
                    "iceberg.largeFile",
                    "11. Iceberg history throughput, one large file",
                    () -> iceberg.oursRun(chunk),
                    "ours with the whole file one chunk",
                    () -> iceberg.oursRun(iceberg.records()),
                    "(a large file read by every reader)");
        }
    }

    /**
     * Section 11, the time until every partition is live: ours against HybridSource (FileSource
     * over the pinned snapshot's Parquet files, then KafkaSource from the offsets the user derived
     * from the table, the derivation counted), in alternating rounds after a warm-up pair that also
     * compares the two sources' Kafka consumers key by key.
     */
    private static void icebergLiveTime(
            Report report, IcebergLiveTime live, BenchmarkSettings settings) throws Exception {
        say(
                "11. Iceberg, every partition live: the table's %d rows and %d records past it in the topic (%d a partition); ours (the table, then the topic) against HybridSource (FileSource over the pinned snapshot's Parquet files with flink-parquet's Avro reader, then KafkaSource from each partition's highest offset in the table plus one, derived with Iceberg's API before the job and counted); time until every partition delivered its last record up to the topic's end",
                live.records() - IcebergThroughput.PARTITIONS * live.liveRecordsPerPartition(),
                IcebergThroughput.PARTITIONS * live.liveRecordsPerPartition(),
                live.liveRecordsPerPartition());
        boolean icebergSource = IcebergLiveTime.hasIcebergSource();
        say(
                icebergSource
                        ? "   and against HybridSource of Iceberg's own IcebergSource (the value column, the pinned snapshot), then the same KafkaSource from the same derived offsets"
                        : "   (HybridSource of Iceberg's own IcebergSource: not on this Flink line; iceberg-flink is published for 1.20, 2.0 and 2.1, the benchmark has it with -Pflink-1.20)");
        // warm-up, not counted, also at one round: its consumers are compared key by key
        IcebergLiveTime.Times oursWarm = live.oursRun(true);
        IcebergLiveTime.Times theirsWarm = live.hybridRun(true);
        say(
                "   equal settings: ours' %d Kafka consumers and HybridSource's %d differ only in %s",
                oursWarm.consumers().size(),
                theirsWarm.consumers().size(),
                ConsumerSettings.compare(
                        "ours", oursWarm.consumers(), "KafkaSource", theirsWarm.consumers()));
        if (icebergSource) {
            IcebergLiveTime.Times icebergWarm = live.icebergSourceRun(true);
            say(
                    "   equal settings: ours' %d Kafka consumers and HybridSource(IcebergSource)'s %d differ only in %s",
                    oursWarm.consumers().size(),
                    icebergWarm.consumers().size(),
                    ConsumerSettings.compare(
                            "ours", oursWarm.consumers(), "KafkaSource", icebergWarm.consumers()));
        }
        Samples ours = new Samples();
        Samples theirs = new Samples();
        Samples iceberg = new Samples();
        Samples oursCpu = new Samples();
        Samples theirsCpu = new Samples();
        Samples icebergCpu = new Samples();
        Samples derivation = new Samples();
        // the contenders in turn, who goes first rotating round by round
        List<String> contenders =
                icebergSource ? List.of("ours", "hybrid", "iceberg") : List.of("ours", "hybrid");
        for (int round = 0; round < settings.rounds; round++) {
            Map<String, IcebergLiveTime.Times> times = new HashMap<>();
            for (int i = 0; i < contenders.size(); i++) {
                String who = contenders.get((round + i) % contenders.size());
                switch (who) {
                    case "ours":
                        times.put(who, live.oursRun(false));
                        break;
                    case "hybrid":
                        times.put(who, live.hybridRun(false));
                        break;
                    default:
                        times.put(who, live.icebergSourceRun(false));
                }
            }
            IcebergLiveTime.Times o = times.get("ours");
            IcebergLiveTime.Times t = times.get("hybrid");
            ours.add(o.everyPartitionLive());
            theirs.add(t.everyPartitionLive());
            oursCpu.add(o.cpuNanosPerRecord());
            theirsCpu.add(t.cpuNanosPerRecord());
            derivation.add(t.derivationSeconds());
            IcebergLiveTime.Times ice = times.get("iceberg");
            if (ice != null) {
                iceberg.add(ice.everyPartitionLive());
                icebergCpu.add(ice.cpuNanosPerRecord());
            }
            say(
                    "   round %d: every partition live after %.2f s (HybridSource %.2f s, %.2f s of it deriving its offsets and files%s); CPU %s ns a record (HybridSource %s ns%s)",
                    round + 1,
                    o.everyPartitionLive(),
                    t.everyPartitionLive(),
                    t.derivationSeconds(),
                    ice == null
                            ? ""
                            : String.format(
                                    Locale.ROOT,
                                    "; HybridSource(IcebergSource) %.2f s, %.2f s of it deriving its offsets",
                                    ice.everyPartitionLive(),
                                    ice.derivationSeconds()),
                    Report.format(o.cpuNanosPerRecord()),
                    Report.format(t.cpuNanosPerRecord()),
                    ice == null
                            ? ""
                            : ", HybridSource(IcebergSource) "
                                    + Report.format(ice.cpuNanosPerRecord())
                                    + " ns");
            for (IcebergLiveTime.Times run : times.values()) {
                if (run.everyPartitionLive() < settings.minRoundSeconds) {
                    say(
                            "   warning: a run lasted %.1f s, less than the %.0f s a round should: raise the records of this section (BenchmarkSettings)",
                            run.everyPartitionLive(), settings.minRoundSeconds);
                }
            }
        }
        String figure =
                "11. Iceberg table then topic: time from the job's start until every partition delivered its last record up to the topic's end (lower is better), against HybridSource (FileSource, then KafkaSource from offsets derived from the table, the derivation counted)";
        report.add(
                new Report.Row(
                        "iceberg.everyPartitionLive",
                        figure,
                        "s",
                        ours,
                        "HybridSource",
                        theirs,
                        "ratio <= 0.8 (issue 38)"));
        report.add(
                new Report.Row(
                        "iceberg.everyPartitionLive.cpuPerRecord",
                        figure + ": CPU time per record (lower is better)",
                        "ns",
                        oursCpu,
                        "HybridSource",
                        theirsCpu,
                        "(the same runs)"));
        if (icebergSource) {
            String against =
                    "11. Iceberg table then topic: time from the job's start until every partition delivered its last record up to the topic's end (lower is better), against HybridSource (Iceberg's IcebergSource, then KafkaSource from offsets derived from the table, the derivation counted)";
            report.add(
                    new Report.Row(
                            "iceberg.everyPartitionLive.icebergSource",
                            against,
                            "s",
                            ours,
                            "HybridSource(IcebergSource)",
                            iceberg,
                            "ratio <= 1.0 (issue 38)"));
            report.add(
                    new Report.Row(
                            "iceberg.everyPartitionLive.icebergSource.cpuPerRecord",
                            against + ": CPU time per record (lower is better)",
                            "ns",
                            oursCpu,
                            "HybridSource(IcebergSource)",
                            icebergCpu,
                            "(the same runs)"));
        }
        report.add(
                "iceberg.everyPartitionLive.hybridDerivation",
                "11. for reference: HybridSource's derivation of its starting offsets and file list with Iceberg's API, before its job (in its time above)",
                "s",
                derivation,
                "");
    }

    private static void skewedLiveTime(
            Report report, BenchCluster cluster, BenchmarkSettings settings) throws Exception {
        try (SkewedLiveTime skewed = SkewedLiveTime.start(cluster, settings)) {
            say(
                    "8. skewed archive: %d records in 4 partitions, partition 0's archive (%d) ten times each other's, live records after each; time until partitions are live, ours against HybridSource (FileSource then KafkaSource)",
                    skewed.archivedRecords(), skewed.bigArchive());
            if (settings.rounds > 1) {
                skewed.oursRun(); // warm-up, not counted
                skewed.hybridRun();
                skewed.oursChunkedRun();
            }
            Samples oursSmall = new Samples();
            Samples oursEvery = new Samples();
            Samples oursCaughtUp = new Samples();
            Samples theirsSmall = new Samples();
            Samples theirsEvery = new Samples();
            Samples theirsCaughtUp = new Samples();
            Samples chunkedCaughtUp = new Samples();
            for (int round = 0; round < settings.rounds; round++) {
                SkewedLiveTime.Times ours = null;
                SkewedLiveTime.Times theirs = null;
                SkewedLiveTime.Times chunked = null;
                // who goes first rotates over the three
                for (int i = 0; i < 3; i++) {
                    switch ((round + i) % 3) {
                        case 0:
                            ours = skewed.oursRun();
                            break;
                        case 1:
                            theirs = skewed.hybridRun();
                            break;
                        default:
                            chunked = skewed.oursChunkedRun();
                    }
                }
                oursSmall.add(ours.smallPartitionsLive());
                oursEvery.add(ours.everyPartitionLive());
                oursCaughtUp.add(ours.everyPartitionCaughtUp());
                theirsSmall.add(theirs.smallPartitionsLive());
                theirsEvery.add(theirs.everyPartitionLive());
                theirsCaughtUp.add(theirs.everyPartitionCaughtUp());
                chunkedCaughtUp.add(chunked.everyPartitionCaughtUp());
                say(
                        "   round %d: small partitions live after %.2f s (HybridSource %.2f s), every partition after %.2f s (HybridSource %.2f s); every partition caught up after %.2f s with chunks, %.2f s without, HybridSource %.2f s",
                        round + 1,
                        ours.smallPartitionsLive(),
                        theirs.smallPartitionsLive(),
                        ours.everyPartitionLive(),
                        theirs.everyPartitionLive(),
                        chunked.everyPartitionCaughtUp(),
                        ours.everyPartitionCaughtUp(),
                        theirs.everyPartitionCaughtUp());
            }
            report.add(
                    new Report.Row(
                            "skewed.smallPartitionsLive",
                            "8. skewed archive: time until the small partitions are live (lower is better)",
                            "s",
                            oursSmall,
                            "HybridSource",
                            theirsSmall,
                            "ratio < 1"));
            report.add(
                    new Report.Row(
                            "skewed.everyPartitionLive",
                            "8. skewed archive: time until every partition is live (lower is better)",
                            "s",
                            oursEvery,
                            "HybridSource",
                            theirsEvery,
                            "ratio <= 1.05"));
            report.add(
                    new Report.Row(
                            "skewed.chunks.everyPartitionCaughtUp",
                            String.format(
                                    Locale.ROOT,
                                    "8. skewed archive with chunks of %d lines: time until every partition caught up, its history read and its live records arriving (lower is better), against HybridSource",
                                    skewed.chunkSize()),
                            "s",
                            chunkedCaughtUp,
                            "HybridSource",
                            theirsCaughtUp,
                            "ratio <= 0.9"));
            report.add(
                    new Report.Row(
                            "skewed.chunks.vsOursWithout.everyPartitionCaughtUp",
                            "8. skewed archive: time until every partition caught up (lower is better), ours with chunks against ours without",
                            "s",
                            chunkedCaughtUp,
                            "ours without chunks",
                            oursCaughtUp,
                            "ratio <= 0.7"));
        }
    }

    /**
     * Runs contender and baseline in alternating rounds (see {@link #rounds}) and adds their
     * throughput and CPU time per record to the report ({@link #addThroughput}).
     *
     * @return the contender's rates
     */
    private static Samples compare(
            Report report,
            BenchmarkSettings settings,
            String id,
            String figure,
            Run contender,
            String baselineName,
            Run baseline,
            String target)
            throws Exception {
        Series ours = new Series("ours", contender);
        Series theirs = new Series(baselineName, baseline);
        rounds(settings, ours, theirs);
        addThroughput(report, id, figure, ours, theirs, target);
        return ours.rates;
    }

    /**
     * Adds the throughput row {@code id} and, right after it, the CPU time per record of the same
     * runs ({@code id.cpuPerRecord}).
     */
    private static void addThroughput(
            Report report, String id, String figure, Series ours, Series baseline, String target) {
        addThroughput(report, id, figure, ours, baseline, target, "(the same runs)");
    }

    /** As above, with a target for the CPU time per record. */
    private static void addThroughput(
            Report report,
            String id,
            String figure,
            Series ours,
            Series baseline,
            String target,
            String cpuTarget) {
        report.add(
                new Report.Row(
                        id,
                        figure,
                        "records/s",
                        ours.rates,
                        baseline.name,
                        baseline.rates,
                        target));
        report.add(
                new Report.Row(
                        id + ".cpuPerRecord",
                        figure + ": CPU time per record (lower is better)",
                        "ns",
                        ours.cpuPerRecord,
                        baseline.name,
                        baseline.cpuPerRecord,
                        cpuTarget));
    }

    /** One measured run of a throughput job. */
    private interface Run {
        Round run() throws Exception;
    }

    /** The runs of one contender or baseline: its rates and its CPU time per record. */
    private static final class Series {
        final String name;
        final Run run;
        final Samples rates = new Samples();
        final Samples cpuPerRecord = new Samples();

        Series(String name, Run run) {
            this.name = name;
            this.run = run;
        }

        Round runOnce() throws Exception {
            Round round = run.run();
            rates.add(round.recordsPerSecond());
            cpuPerRecord.add(round.cpuNanosPerRecord());
            return round;
        }

        String last() {
            int i = rates.size() - 1;
            return String.format(
                    Locale.ROOT,
                    "%s %s/s, %s ns a record",
                    name,
                    Report.format(rates.get(i)),
                    Report.format(cpuPerRecord.get(i)));
        }
    }

    /**
     * Runs each series once per round; who goes first rotates (with two, it alternates), so that
     * drift within a round hits all alike. Warns of a run whose records lasted less than {@link
     * BenchmarkSettings#minRoundSeconds}.
     */
    private static void rounds(BenchmarkSettings settings, Series... series) throws Exception {
        int n = series.length;
        for (int round = 0; round < settings.rounds; round++) {
            for (int i = 0; i < n; i++) {
                Series s = series[(round + i) % n];
                double seconds = s.runOnce().seconds();
                if (seconds < settings.minRoundSeconds) {
                    say(
                            "   warning: the records of %s lasted %.1f s, less than the %.0f s a round should: raise the records of this section (BenchmarkSettings)",
                            s.name, seconds, settings.minRoundSeconds);
                }
            }
            StringBuilder line = new StringBuilder();
            for (Series s : series) {
                line.append(line.length() == 0 ? "" : "; ").append(s.last());
            }
            say("   round %d: %s", round + 1, line);
        }
    }

    private static void say(String format, Object... args) {
        System.out.println("[benchmark] " + String.format(Locale.ROOT, format, args));
    }
}
