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

import dev.sourcebackfill.source.control.BackfillControl;
import dev.sourcebackfill.source.control.ControlFile;
import dev.sourcebackfill.source.datagen.DatagenLog;
import dev.sourcebackfill.source.datagen.DatagenRecord;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.source.lib.NumberSequenceSource;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * Backfill and forward-mode throughput of {@link BackfillSource} over the datagen log, each against
 * Flink's {@link NumberSequenceSource} mapped through the datagen log's own record function: both
 * jobs make the very same records and end in the same counting sink.
 */
final class DatagenThroughput {

    private final BenchCluster cluster;
    private final BenchmarkSettings settings;

    DatagenThroughput(BenchCluster cluster, BenchmarkSettings settings) {
        this.cluster = cluster;
        this.settings = settings;
    }

    /** Every record is history: the job backfills all partitions and ends at their ends. */
    Round backfillRun() throws Exception {
        return backfillRun(WatermarkStrategy.noWatermarks(), "backfill", "backfill throughput");
    }

    /** Our source over the history alone, with these watermarks, into the probe's sink. */
    private Round backfillRun(
            WatermarkStrategy<DatagenRecord> watermarks, String probeName, String name)
            throws Exception {
        DatagenLog log = historyOnlyLog();
        return rateOf(
                probeName,
                name,
                settings.records,
                (env, probe) ->
                        ProbedBackfillJob.addTo(env, log, probe, true, source -> {}, watermarks));
    }

    /** Adds a job to an environment; its records end in the probe's sink. */
    private interface Job {
        void addTo(StreamExecutionEnvironment env, RunProbe probe);
    }

    /**
     * Runs a bounded job to its end: the records/s its probe saw and the CPU time per record, once
     * it delivered {@code expected} records.
     */
    private Round rateOf(String probeName, String name, long expected, Job job) throws Exception {
        try (RunProbe probe = RunProbe.open(probeName)) {
            StreamExecutionEnvironment env = cluster.env(jobConf());
            job.addTo(env, probe);
            JobCpu.Reading cpu = JobCpu.now();
            env.execute("benchmark: " + name);
            Round round = Round.of(probe.recordsPerSecond(), expected, cpu, expected);
            check(probe.totalRecords(), expected, name + " run");
            return round;
        }
    }

    /**
     * A short backfill, then a live log faster than the reader, so the reader always has live
     * records to read: the rate after forward mode is the reader's own.
     *
     * @param backfillRate this machine's backfill records/s, to size the live log
     * @return the rate after forward mode; the CPU time per record of the whole job
     */
    Round forwardRun(double backfillRate) throws Exception {
        int p = settings.partitions;
        double readerRatePerPartition = backfillRate / p;
        double liveRatePerPartition = 2 * readerRatePerPartition;
        // before forward mode come the backfill of the head at discovery (the live log's rate
        // times the job's start-up) and the live records until a checkpoint confirms; at least
        // `records` come after it, as many as a backfill round has
        long liveRecords =
                (long)
                        (settings.records / p
                                + liveRatePerPartition * 1.0
                                + readerRatePerPartition * 2.5);
        DatagenLog log =
                DatagenLog.builder()
                        .partitions(p)
                        .historyPerPartition(1_000)
                        .liveRatePerSecond(liveRatePerPartition)
                        .boundedAfterLiveRecords(liveRecords)
                        .build();
        try (RunProbe probe = RunProbe.open("forward")) {
            StreamExecutionEnvironment env = cluster.env(jobConf());
            ProbedBackfillJob.addTo(env, log, probe, true);
            JobCpu.Reading cpu = JobCpu.now();
            env.execute("benchmark: forward-mode throughput");
            long cpuNanos = cpu.countedNanosSince();
            check(probe.totalRecords(), p * (1_000 + liveRecords), "forward run");
            if (probe.recordsAfterForwardMode() < settings.records / 2) {
                throw new IllegalStateException(
                        "Only " + probe.recordsAfterForwardMode() + " records after forward mode");
            }
            double rate = probe.forwardRecordsPerSecond();
            if (rate > 0.9 * liveRatePerPartition * p) {
                System.out.printf(
                        "[benchmark]    warning: %.0f records/s is near the live log's %.0f: the figure may be the live log's%n",
                        rate, liveRatePerPartition * p);
            }
            return new Round(
                    rate,
                    probe.recordsAfterForwardMode() / rate,
                    (double) cpuNanos / probe.totalRecords());
        }
    }

    /**
     * A backfill limited to {@code perReader} records per second on each reader, over {@code
     * records} records of history: the achieved rate over the requested one.
     */
    double rateLimitedRun(double perReader, long records) throws Exception {
        DatagenLog log = historyOnlyLog(records);
        Round round =
                rateOf(
                        "rate-limited",
                        "rate-limited backfill",
                        records,
                        (env, probe) ->
                                ProbedBackfillJob.addTo(
                                        env,
                                        log,
                                        probe,
                                        true,
                                        source -> source.setBackfillRecordsPerSecond(perReader),
                                        WatermarkStrategy.noWatermarks()));
        return round.recordsPerSecond() / (perReader * settings.parallelism);
    }

    /**
     * A backfill whose rate comes from its control file: built at a quarter of {@code perReader}
     * and started paused through the file; a second after the job was submitted the file sets
     * {@code perReader} and resumes, so every record is read after the change: the achieved rate
     * over the one the change requested.
     */
    double controlledRateRun(double perReader, long records) throws Exception {
        DatagenLog log = historyOnlyLog(records);
        Path dir = Files.createTempDirectory("backfill-control");
        ControlFile control = new ControlFile(dir.resolve("backfill.control").toString());
        control.write(BackfillControl.asBuilt().withPaused(true));
        Thread change =
                new Thread(
                        () -> {
                            try {
                                Thread.sleep(1_000);
                                control.write(BackfillControl.asBuilt().withRate(perReader));
                            } catch (Exception e) {
                                throw new IllegalStateException("Changing the control failed", e);
                            }
                        },
                        "control-change");
        change.setDaemon(true);
        change.start();
        Round round =
                rateOf(
                        "controlled-rate",
                        "backfill at the rate its control file set",
                        records,
                        (env, probe) ->
                                ProbedBackfillJob.addTo(
                                        env,
                                        log,
                                        probe,
                                        true,
                                        source ->
                                                source.setBackfillRecordsPerSecond(perReader / 4)
                                                        .setBackfillControlFile(
                                                                control.path().toString())
                                                        .setBackfillControlInterval(
                                                                Duration.ofMillis(100)),
                                        WatermarkStrategy.noWatermarks()));
        change.join();
        return round.recordsPerSecond() / (perReader * settings.parallelism);
    }

    /**
     * The backfill run with event time: each record's timestamp, per-split watermarks, and with
     * {@code aligned} watermark alignment whose drift is too large to pause anything.
     */
    Round eventTimeRun(boolean aligned) throws Exception {
        return backfillRun(
                eventTime(aligned),
                aligned ? "aligned" : "unaligned",
                "event-time backfill" + (aligned ? ", aligned" : ""));
    }

    /**
     * Flink's own cost of alignment, for reference: {@link NumberSequenceSource} with event time on
     * the sequence number (its one split's watermark), with and without alignment.
     */
    Round eventTimeBaselineRun(boolean aligned) throws Exception {
        WatermarkStrategy<Long> watermarks =
                WatermarkStrategy.<Long>forMonotonousTimestamps()
                        .withTimestampAssigner((n, previous) -> n);
        if (aligned) {
            watermarks = watermarks.withWatermarkAlignment("benchmark", YEAR, UPDATE_INTERVAL);
        }
        return sequenceRun(
                watermarks,
                aligned ? "baseline-aligned" : "baseline",
                "NumberSequenceSource event time" + (aligned ? ", aligned" : ""));
    }

    private static final Duration YEAR = Duration.ofDays(365);
    private static final Duration UPDATE_INTERVAL = Duration.ofMillis(100);

    /** Event time from each record's timestamp; aligned with a drift too large to pause any. */
    private static WatermarkStrategy<DatagenRecord> eventTime(boolean aligned) {
        WatermarkStrategy<DatagenRecord> watermarks =
                WatermarkStrategy.<DatagenRecord>forMonotonousTimestamps()
                        .withTimestampAssigner((r, previous) -> r.timestamp);
        return aligned
                ? watermarks.withWatermarkAlignment("benchmark", YEAR, UPDATE_INTERVAL)
                : watermarks;
    }

    /** The baseline: the same records from Flink's NumberSequenceSource, through a map. */
    Round baselineRun() throws Exception {
        return sequenceRun(
                WatermarkStrategy.noWatermarks(), "baseline", "NumberSequenceSource baseline");
    }

    /** The history's records from NumberSequenceSource, through a map, into the probe's sink. */
    private Round sequenceRun(WatermarkStrategy<Long> watermarks, String probeName, String name)
            throws Exception {
        DatagenLog log = historyOnlyLog();
        return rateOf(
                probeName,
                name,
                settings.records,
                (env, probe) ->
                        env.fromSource(
                                        new NumberSequenceSource(0, settings.records - 1),
                                        watermarks,
                                        "number-sequence")
                                .map(new RecordOfSequenceNumber(log, settings.partitions))
                                .returns(TypeInformation.of(DatagenRecord.class))
                                .sinkTo(new ProbeSink<>(probe.id())));
    }

    /**
     * The reference: the baseline's records made in a fetcher thread of Flink's {@code
     * SourceReaderBase}, with nothing else (see {@link FetcherSequenceSource}).
     */
    Round fetcherReferenceRun() throws Exception {
        DatagenLog log = historyOnlyLog();
        return rateOf(
                "fetcher-reference",
                "SourceReaderBase reference",
                settings.records,
                (env, probe) ->
                        env.fromSource(
                                        new FetcherSequenceSource(
                                                settings.records,
                                                log,
                                                settings.partitions,
                                                log.maxRecordsPerPoll()),
                                        WatermarkStrategy.noWatermarks(),
                                        "fetcher-sequence")
                                .sinkTo(new ProbeSink<>(probe.id())));
    }

    /** {@code records} records of history over the partitions, and nothing live. */
    private DatagenLog historyOnlyLog() {
        return historyOnlyLog(settings.records);
    }

    private DatagenLog historyOnlyLog(long records) {
        return DatagenLog.builder()
                .partitions(settings.partitions)
                .historyPerPartition(records / settings.partitions)
                .liveRatePerSecond(1)
                .boundedAfterLiveRecords(0)
                .build();
    }

    private Configuration jobConf() {
        Configuration conf = new Configuration();
        conf.set(
                CheckpointingOptions.CHECKPOINTING_INTERVAL, settings.throughputCheckpointInterval);
        return conf;
    }

    static void check(long actual, long expected, String what) {
        if (actual != expected) {
            throw new IllegalStateException(
                    "The " + what + " delivered " + actual + " records, expected " + expected);
        }
    }

    /** Sequence number {@code i} is offset {@code i / P} of partition {@code i % P}. */
    static final class RecordOfSequenceNumber implements MapFunction<Long, DatagenRecord> {

        private static final long serialVersionUID = 1L;

        private final DatagenLog log;
        private final int partitions;

        RecordOfSequenceNumber(DatagenLog log, int partitions) {
            this.log = log;
            this.partitions = partitions;
        }

        @Override
        public DatagenRecord map(Long i) {
            return log.record((int) (i % partitions), i / partitions);
        }
    }
}
