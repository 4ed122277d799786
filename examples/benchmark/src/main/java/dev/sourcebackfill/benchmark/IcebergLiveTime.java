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

import dev.sourcebackfill.source.iceberg.IcebergBackfill;
import dev.sourcebackfill.source.iceberg.IcebergLayout;
import dev.sourcebackfill.source.kafka.KafkaBackfill;
import dev.sourcebackfill.source.kafka.KafkaBackfillSourceBuilder;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.api.common.serialization.SimpleStringSchema;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.base.source.hybrid.HybridSource;
import org.apache.flink.connector.file.src.FileSource;
import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.connector.kafka.source.KafkaSourceBuilder;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.avro.AvroSchemaUtil;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.kafka.common.TopicPartition;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Section 11, the time until every partition is live: the Iceberg table of {@link
 * IcebergThroughput} (Redpanda's layout, files mixing the 8 partitions) whose topic also holds
 * records past the table ({@link #LIVE_SHARE} of each partition's rows), the live records already
 * there. Each run reads every partition up to a fixed end offset (the topic's end, the same for
 * both), bounded there; its figure is the time from its start until every partition has delivered
 * its last record up to that end, and the CPU time per record of the run.
 *
 * <ul>
 *   <li>Ours: {@link IcebergBackfill} (the table, then the topic from each partition's highest
 *       offset in the table plus one), the Kafka builder with nothing set but the servers, the
 *       topic, {@code SimpleStringSchema} and the end offsets.
 *   <li>The baseline, as a tuned user builds it with Flink's own sources: before the job, pins the
 *       table's current snapshot, reads each partition's highest offset in it with Iceberg's API
 *       (the partition and offset columns of the files whose column bounds can raise a partition's
 *       highest offset, as our enumerator does, {@link #prunedStarts}; every file's, with {@link
 *       IcebergGenerics}, with {@code BENCHMARK_HYBRID_FULL_DERIVATION} set) and lists its data
 *       files; then a {@link HybridSource}: a {@link FileSource} over those Parquet files ({@link
 *       ParquetValueFormat}: flink-parquet's Avro reader, the value column only; every column with
 *       {@code BENCHMARK_HYBRID_ALL_COLUMNS} set in the environment), then a {@link KafkaSource}
 *       from those offsets plus one, with its defaults, which are our live consumer's (checked key
 *       by key in the warm-up runs, {@link ConsumerSettings}). The derivation is counted in its
 *       time and its CPU time.
 * </ul>
 *
 * Both make a string of each value's bytes, at parallelism 2, with the same map and sink after the
 * source (a map that notes when each partition's latest record arrived: a clock read per record,
 * alike in both). Every run checks per partition that it delivered each offset from 0 to the end
 * once (the count, sum and sum of squares of the offsets the values carry): a wrong one fails the
 * run.
 */
final class IcebergLiveTime {

    /** Records past the table in each partition: this share of its rows (at least 1,000). */
    static final double LIVE_SHARE = 0.01;

    private static final int PARTITIONS = IcebergThroughput.PARTITIONS;

    /** run -> what its subtasks delivered, per partition (published as each subtask closes). */
    private static final Map<String, Tally> TALLIES = new ConcurrentHashMap<>();

    private final BenchCluster cluster;
    private final BenchmarkSettings settings;
    private final IcebergThroughput table;
    private final long liveRecords;

    /**
     * What one run measured.
     *
     * @param everyPartitionLive seconds from the run's start (the job's submission; for the
     *     baseline the derivation's start) until the last partition delivered its last record
     * @param cpuNanosPerRecord the run's CPU time ({@link JobCpu}) over every record it delivered
     * @param derivationSeconds the baseline's derivation of its starting offsets and file list
     *     (within {@code everyPartitionLive}); 0 for ours
     * @param consumers the properties of every Kafka consumer of the run, if it was asked to note
     *     them
     */
    record Times(
            double everyPartitionLive,
            double cpuNanosPerRecord,
            double derivationSeconds,
            List<Map<String, String>> consumers) {}

    /**
     * Appends the records past the table to the topic: afterwards {@code table}'s throughput runs
     * can no longer run.
     */
    static IcebergLiveTime start(
            BenchCluster cluster, BenchmarkSettings settings, IcebergThroughput table)
            throws Exception {
        long live = Math.max(1_000, Math.round(table.rowsPerPartition() * LIVE_SHARE));
        table.appendPastTheTable(live);
        return new IcebergLiveTime(cluster, settings, table, live);
    }

    private IcebergLiveTime(
            BenchCluster cluster,
            BenchmarkSettings settings,
            IcebergThroughput table,
            long liveRecords) {
        this.cluster = cluster;
        this.settings = settings;
        this.table = table;
        this.liveRecords = liveRecords;
    }

    long liveRecordsPerPartition() {
        return liveRecords;
    }

    /** Each partition's end: the offset after its last record, the topic's end. */
    private long end() {
        return table.rowsPerPartition() + liveRecords;
    }

    private Map<TopicPartition, Long> ends() {
        Map<TopicPartition, Long> ends = new HashMap<>();
        for (int p = 0; p < PARTITIONS; p++) {
            ends.put(new TopicPartition(table.topic(), p), end());
        }
        return ends;
    }

    long records() {
        return end() * PARTITIONS;
    }

    /**
     * Our source, the table then the topic.
     *
     * @param noteConsumers whether to note every Kafka consumer's properties (warm-up runs only)
     */
    Times oursRun(boolean noteConsumers) throws Exception {
        JobCpu.Reading cpu = JobCpu.now();
        long started = System.nanoTime();
        KafkaBackfillSourceBuilder<String> live =
                KafkaBackfill.<String>sourceBuilder()
                        .setBootstrapServers(table.kafka().bootstrapServers())
                        .setTopics(table.topic())
                        .setValueOnlyDeserializer(new SimpleStringSchema())
                        .setBounded(OffsetsInitializer.offsets(ends()));
        if (noteConsumers) {
            live.setProperty(ConsumerSettings.INTERCEPTOR, ConsumerSettings.Probe.class.getName());
        }
        return run(
                "Iceberg backfill source",
                IcebergBackfill.<String>sourceBuilder()
                        .setCatalog("bench", table.catalog())
                        .setTable(IcebergThroughput.TABLE)
                        .setLayout(IcebergLayout.redpanda())
                        .setLive(live)
                        .build(),
                cpu,
                started,
                0,
                noteConsumers);
    }

    /**
     * The baseline: the user's derivation of the starting offsets and the file list, then {@code
     * HybridSource} of {@code FileSource} and {@code KafkaSource}.
     *
     * @param noteConsumers whether to note every Kafka consumer's properties (warm-up runs only)
     */
    Times hybridRun(boolean noteConsumers) throws Exception {
        JobCpu.Reading cpu = JobCpu.now();
        long started = System.nanoTime();
        Pinned pinned = pinAndDerive();
        List<org.apache.flink.core.fs.Path> files = new ArrayList<>();
        try (CloseableIterable<FileScanTask> tasks =
                pinned.table().newScan().useSnapshot(pinned.snapshot()).planFiles()) {
            for (FileScanTask task : tasks) {
                files.add(new org.apache.flink.core.fs.Path(task.file().location()));
            }
        }
        double derivation = (System.nanoTime() - started) / 1e9;
        ParquetValueFormat format =
                new ParquetValueFormat(
                        AvroSchemaUtil.convert(pinned.table().schema(), "table"),
                        System.getenv("BENCHMARK_HYBRID_ALL_COLUMNS") != null
                                ? null
                                : AvroSchemaUtil.convert(
                                        pinned.table().schema().select("value"), "table"));
        return run(
                "HybridSource",
                HybridSource.builder(
                                FileSource.forRecordStreamFormat(
                                                format,
                                                files.toArray(new org.apache.flink.core.fs.Path[0]))
                                        .build())
                        .addSource(kafkaFrom(pinned.starts(), noteConsumers).build())
                        .build(),
                cpu,
                started,
                derivation,
                noteConsumers);
    }

    /** Whether this Flink line has the third baseline, {@link #icebergSourceRun}. */
    static boolean hasIcebergSource() {
        return IcebergSourceBaseline.AVAILABLE;
    }

    /**
     * The baseline Iceberg users run (issue 35): the same derivation of the starting offsets as
     * {@link #hybridRun} (no file list: Iceberg's source plans its splits itself, in its job), then
     * {@code HybridSource} of Iceberg's own {@code IcebergSource} over the pinned snapshot (the
     * value column alone, each value's bytes made a string) and the same {@code KafkaSource}. On
     * the lines iceberg-flink is published for and the benchmark compiles it on ({@link
     * #hasIcebergSource}).
     *
     * @param noteConsumers whether to note every Kafka consumer's properties (warm-up runs only)
     */
    Times icebergSourceRun(boolean noteConsumers) throws Exception {
        JobCpu.Reading cpu = JobCpu.now();
        long started = System.nanoTime();
        Pinned pinned = pinAndDerive();
        double derivation = (System.nanoTime() - started) / 1e9;
        return run(
                "HybridSource(IcebergSource)",
                HybridSource.builder(
                                IcebergSourceBaseline.values(
                                        "bench",
                                        table.catalog(),
                                        IcebergThroughput.TABLE,
                                        pinned.snapshot(),
                                        pinned.table().schema().select("value")))
                        .addSource(kafkaFrom(pinned.starts(), noteConsumers).build())
                        .build(),
                cpu,
                started,
                derivation,
                noteConsumers);
    }

    /** The table, its snapshot the baselines pin, and the offsets they derive from it. */
    private record Pinned(Table table, long snapshot, Map<TopicPartition, Long> starts) {}

    /** What both baselines do first, before their jobs: load, pin, derive the starting offsets. */
    private Pinned pinAndDerive() throws Exception {
        Table iceberg =
                CatalogUtil.buildIcebergCatalog(
                                "bench",
                                table.catalog(),
                                new org.apache.hadoop.conf.Configuration())
                        .loadTable(TableIdentifier.parse(IcebergThroughput.TABLE));
        long snapshot = iceberg.currentSnapshot().snapshotId();
        return new Pinned(iceberg, snapshot, derivedStarts(iceberg, snapshot));
    }

    /** The {@code KafkaSource} both baselines end with: from {@code starts} to the topic's end. */
    private KafkaSourceBuilder<String> kafkaFrom(
            Map<TopicPartition, Long> starts, boolean noteConsumers) {
        KafkaSourceBuilder<String> kafka =
                KafkaSource.<String>builder()
                        .setBootstrapServers(table.kafka().bootstrapServers())
                        .setTopics(table.topic())
                        .setValueOnlyDeserializer(new SimpleStringSchema())
                        .setStartingOffsets(OffsetsInitializer.offsets(starts))
                        .setBounded(OffsetsInitializer.offsets(ends()));
        if (noteConsumers) {
            kafka.setProperty(ConsumerSettings.INTERCEPTOR, ConsumerSettings.Probe.class.getName());
        }
        return kafka;
    }

    /**
     * Each partition's highest offset in the pinned snapshot plus one, as the baselines' user
     * derives it before the job.
     */
    private Map<TopicPartition, Long> derivedStarts(Table iceberg, long snapshot) throws Exception {
        // tuned: the files pruned by their column bounds as our enumerator prunes them;
        // BENCHMARK_HYBRID_FULL_DERIVATION=1 reads every file's two columns instead
        Map<TopicPartition, Long> starts =
                System.getenv("BENCHMARK_HYBRID_FULL_DERIVATION") == null
                        ? prunedStarts(iceberg, snapshot)
                        : new HashMap<>();
        if (starts.isEmpty()) {
            try (CloseableIterable<Record> rows =
                    IcebergGenerics.read(iceberg)
                            .useSnapshot(snapshot)
                            .select("redpanda.partition", "redpanda.offset")
                            .build()) {
                for (Record row : rows) {
                    Record kafka = (Record) row.getField("redpanda");
                    starts.merge(
                            new TopicPartition(
                                    table.topic(), (Integer) kafka.getField("partition")),
                            (Long) kafka.getField("offset") + 1,
                            Math::max);
                }
            }
        }
        if (starts.size() != PARTITIONS) {
            throw new IllegalStateException("The table has rows of partitions " + starts.keySet());
        }
        return starts;
    }

    /**
     * Each partition's highest offset plus one, as a tuned user derives it with the column bounds
     * our enumerator uses: files taken highest offset upper bound first; a file is read (its
     * partition and offset columns only) unless every partition in its partition bounds already has
     * a highest offset at least its offset upper bound. (This table has no delete files.)
     */
    private Map<TopicPartition, Long> prunedStarts(Table iceberg, long snapshot) throws Exception {
        org.apache.iceberg.Schema projected =
                iceberg.schema().select("redpanda.partition", "redpanda.offset");
        int partitionId = iceberg.schema().findField("redpanda.partition").fieldId();
        int offsetId = iceberg.schema().findField("redpanda.offset").fieldId();
        List<FileScanTask> files = new ArrayList<>();
        try (CloseableIterable<FileScanTask> tasks =
                iceberg.newScan().useSnapshot(snapshot).includeColumnStats().planFiles()) {
            for (FileScanTask task : tasks) {
                files.add(task);
            }
        }
        java.util.function.ToLongFunction<FileScanTask> upper =
                t ->
                        org.apache.iceberg.types.Conversions.<Long>fromByteBuffer(
                                org.apache.iceberg.types.Types.LongType.get(),
                                t.file().upperBounds().get(offsetId));
        files.sort(java.util.Comparator.comparingLong(upper).reversed());
        Map<Integer, Long> highest = new HashMap<>();
        for (FileScanTask task : files) {
            int lo =
                    org.apache.iceberg.types.Conversions.<Integer>fromByteBuffer(
                            org.apache.iceberg.types.Types.IntegerType.get(),
                            task.file().lowerBounds().get(partitionId));
            int hi =
                    org.apache.iceberg.types.Conversions.<Integer>fromByteBuffer(
                            org.apache.iceberg.types.Types.IntegerType.get(),
                            task.file().upperBounds().get(partitionId));
            long up = upper.applyAsLong(task);
            boolean canRaise = false;
            for (int q = lo; q <= hi && !canRaise; q++) {
                canRaise = highest.getOrDefault(q, -1L) < up;
            }
            if (!canRaise) {
                continue;
            }
            try (CloseableIterable<Record> rows =
                    org.apache.iceberg.parquet.Parquet.read(iceberg.io().newInputFile(task.file()))
                            .project(projected)
                            .createReaderFunc(
                                    fileSchema ->
                                            org.apache.iceberg.data.parquet.GenericParquetReaders
                                                    .buildReader(projected, fileSchema))
                            .build()) {
                for (Record row : rows) {
                    Record kafka = (Record) row.getField("redpanda");
                    highest.merge(
                            (Integer) kafka.getField("partition"),
                            (Long) kafka.getField("offset"),
                            Math::max);
                }
            }
        }
        Map<TopicPartition, Long> starts = new HashMap<>();
        highest.forEach((p, o) -> starts.put(new TopicPartition(table.topic(), p), o + 1));
        return starts;
    }

    private Times run(
            String name,
            Source<String, ?, ?> source,
            JobCpu.Reading cpu,
            long started,
            double derivation,
            boolean noteConsumers)
            throws Exception {
        try (RunProbe probe = RunProbe.open("iceberg-live-" + name)) {
            Configuration conf = new Configuration();
            conf.set(
                    CheckpointingOptions.CHECKPOINTING_INTERVAL,
                    settings.throughputCheckpointInterval);
            StreamExecutionEnvironment env = cluster.env(conf);
            env.fromSource(source, WatermarkStrategy.noWatermarks(), name, Types.STRING)
                    .map(new PartitionsLive(probe.id()))
                    .sinkTo(new ProbeSink<>(probe.id()));
            ConsumerSettings.clear();
            env.execute("benchmark: " + name + ", every partition live");
            long cpuNanos = cpu.countedNanosSince();
            List<Map<String, String>> consumers =
                    noteConsumers ? ConsumerSettings.seen() : List.of();
            Tally tally = TALLIES.remove(probe.id());
            if (tally == null) {
                throw new IllegalStateException(name + ": no subtask published its records");
            }
            long last = check(name, tally);
            DatagenThroughput.check(probe.totalRecords(), records(), name + " live run");
            return new Times(
                    (last - started) / 1e9, (double) cpuNanos / records(), derivation, consumers);
        }
    }

    /**
     * Checks that every partition delivered each offset from 0 to the end once (count, sum and sum
     * of squares, the latter modulo 2^64: errors that cancel in the sum do not in the squares).
     *
     * @return when the last partition delivered its last record (System.nanoTime)
     */
    private long check(String name, Tally tally) {
        long end = end();
        long last = Long.MIN_VALUE;
        for (int p = 0; p < PARTITIONS; p++) {
            long squares =
                    BigInteger.valueOf(end - 1)
                            .multiply(BigInteger.valueOf(end))
                            .multiply(BigInteger.valueOf(2 * end - 1))
                            .divide(BigInteger.valueOf(6))
                            .longValue();
            if (tally.count[p] != end
                    || tally.offsetSum[p] != end * (end - 1) / 2
                    || tally.offsetSquares[p] != squares) {
                throw new IllegalStateException(
                        String.format(
                                Locale.ROOT,
                                "%s: partition %d delivered %d records (offsets summing to %d), expected each offset of 0-%d once (%d, summing to %d)",
                                name,
                                p,
                                tally.count[p],
                                tally.offsetSum[p],
                                end - 1,
                                end,
                                end * (end - 1) / 2));
            }
            last = Math.max(last, tally.last[p]);
        }
        return last;
    }

    /** Per partition: records, the sum of their offsets, when the latest arrived. */
    private static final class Tally {
        final long[] count = new long[PARTITIONS];
        final long[] offsetSum = new long[PARTITIONS];
        final long[] offsetSquares = new long[PARTITIONS];
        final long[] last = new long[PARTITIONS];

        Tally() {
            Arrays.fill(last, Long.MIN_VALUE);
        }

        synchronized void add(long[] count, long[] offsetSum, long[] offsetSquares, long[] last) {
            for (int p = 0; p < PARTITIONS; p++) {
                this.count[p] += count[p];
                this.offsetSum[p] += offsetSum[p];
                this.offsetSquares[p] += offsetSquares[p];
                this.last[p] = Math.max(this.last[p], last[p]);
            }
        }
    }

    /**
     * Notes, per partition, the records that arrive, the sum of their offsets and when the latest
     * arrived; the partition and offset come from the value ({@link IcebergThroughput#value}).
     * Published as the subtask closes. The same in both jobs.
     */
    static final class PartitionsLive extends RichMapFunction<String, String> {
        private static final long serialVersionUID = 1L;
        private final String runId;
        private transient long[] count;
        private transient long[] offsetSum;
        private transient long[] offsetSquares;
        private transient long[] last;

        PartitionsLive(String runId) {
            this.runId = runId;
        }

        @Override
        public void open(OpenContext openContext) {
            count = new long[PARTITIONS];
            offsetSum = new long[PARTITIONS];
            offsetSquares = new long[PARTITIONS];
            last = new long[PARTITIONS];
            Arrays.fill(last, Long.MIN_VALUE);
        }

        @Override
        public String map(String value) {
            long index = 0;
            for (int i = 0; i < 9; i++) {
                index = index * 10 + (value.charAt(i) - '0');
            }
            int partition = (int) (index % PARTITIONS);
            count[partition]++;
            long offset = index / PARTITIONS;
            offsetSum[partition] += offset;
            offsetSquares[partition] += offset * offset;
            last[partition] = System.nanoTime();
            return value;
        }

        @Override
        public void close() {
            TALLIES.computeIfAbsent(runId, id -> new Tally())
                    .add(count, offsetSum, offsetSquares, last);
        }
    }
}
