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
import dev.sourcebackfill.source.datagen.DatagenLogBuilder;
import dev.sourcebackfill.source.datagen.DatagenRecord;
import dev.sourcebackfill.source.spi.BackfillLog;
import dev.sourcebackfill.source.spi.LogReader;
import dev.sourcebackfill.source.spi.LogReading;
import dev.sourcebackfill.source.spi.LogRecordCollector;
import dev.sourcebackfill.source.spi.LogSplitDiscoverer;
import dev.sourcebackfill.source.testutils.FailureInjector;
import dev.sourcebackfill.source.testutils.FailureInjector.Trigger;
import dev.sourcebackfill.source.testutils.Observations;
import dev.sourcebackfill.source.testutils.ObservedSource;
import dev.sourcebackfill.source.testutils.RestartCounter;
import dev.sourcebackfill.source.testutils.Throttle;

import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.api.common.accumulators.LongCounter;
import org.apache.flink.api.common.accumulators.LongMaximum;
import org.apache.flink.api.common.eventtime.Watermark;
import org.apache.flink.api.common.eventtime.WatermarkGenerator;
import org.apache.flink.api.common.eventtime.WatermarkOutput;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.connector.base.source.reader.SourceReaderOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.streaming.api.functions.windowing.ProcessWindowFunction;
import org.apache.flink.streaming.api.windowing.assigners.TumblingEventTimeWindows;
import org.apache.flink.streaming.api.windowing.windows.TimeWindow;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.CloseableIterator;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Event time across readers and splits: watermark alignment pauses and resumes splits in whichever
 * log reader reads them, and a reader holding no split does not hold the job's watermark back.
 *
 * <p>The alignment jobs run at parallelism 1, so every split is in one reader and the alignment is
 * split-level (without {@code allow-unaligned-source-splits}). Partition 0's event time runs ten
 * times faster than the others'. A chained map sees the records in the order the source emits them
 * and measures, at every record, how far its event time is ahead of the latest event time of every
 * other split still being read: the spread comes from the records themselves, not from timing.
 */
class EventTimeITCase {

    private static final RestartCounter RESTARTS = new RestartCounter();

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER =
            new MiniClusterExtension(
                    new MiniClusterResourceConfiguration.Builder()
                            .setConfiguration(RESTARTS.addTo(new Configuration()))
                            .setNumberTaskManagers(1)
                            .setNumberSlotsPerTaskManager(4)
                            .build());

    private static final int PARTITIONS = 4;

    /**
     * History of partition 0, the fast one; each further partition has {@link #HISTORY_STEP} more.
     * The fast partition is soon live, read by the live reader while the others backfill, so that
     * alignment must pause it there.
     */
    private static final long HISTORY = 200;

    private static final long HISTORY_STEP = 1_000;

    /** Live records of each partition, 1,000 a second, read by the live reader. */
    private static final long LIVE = 4_000;

    /** Every record of the alignment jobs' logs. */
    private static final long ALIGNMENT_RECORDS =
            PARTITIONS * (HISTORY + LIVE) + HISTORY_STEP * PARTITIONS * (PARTITIONS - 1) / 2;

    private static final int RECORDS_PER_POLL = 64;
    private static final int QUEUE_CAPACITY = 2;

    /** Event time per offset: the fast partition's runs ten times faster. */
    private static final long SLOW_MS = 1;

    private static final long FAST_MS = 10;

    /**
     * Offsets of every partition before the fast partition speeds up: Flink's alignment starts with
     * the coordinator's first announcement, after the reader's first watermark report; until then
     * every split may run freely, so all run at one speed.
     */
    private static final long WARM_UP = 1_000;

    private static final Duration DRIFT = Duration.ofMillis(1_000);

    /**
     * What may be emitted after a split is paused: what the fetcher had read before, at most the
     * element queue's batches, the batch being emitted and the one the fetcher holds, each a poll
     * of the fast split alone; and the record whose watermark paused it.
     */
    private static final long SLACK_MS =
            (QUEUE_CAPACITY + 2) * RECORDS_PER_POLL * FAST_MS + FAST_MS;

    static long eventTime(int partition, long offset) {
        if (partition != 0 || offset <= WARM_UP) {
            return offset * SLOW_MS;
        }
        return WARM_UP * SLOW_MS + (offset - WARM_UP) * FAST_MS;
    }

    @Test
    void alignedSplitsNeverDriftFurtherApartThanTheDriftPlusWhatWasFetched() throws Exception {
        String run = UUID.randomUUID().toString();
        assertAligned(runAlignmentJob(true, false, false, run), run);
    }

    @Test
    void alignedSplitsOfAFeedLiveArePausedInBothReaders() throws Exception {
        String run = UUID.randomUUID().toString();
        assertAligned(runAlignmentJob(true, true, false, run), run);
    }

    private static void assertAligned(JobExecutionResult result, String run) {
        assertThat(result.<Long>getAccumulatorResult(SpreadChecker.CHECKED))
                .as("records checked")
                .isEqualTo(ALIGNMENT_RECORDS);
        assertThat(result.<Long>getAccumulatorResult(SpreadChecker.MAX_SPREAD))
                .as("largest event-time lead of a split over another still read, ms")
                .isLessThanOrEqualTo(DRIFT.toMillis() + SLACK_MS);
        // the pauses reached the live reader too, which read a good share of the records
        assertThat(LiveCounts.PAUSES.get(run).get()).as("pauses of the live reader").isPositive();
        assertThat(LiveCounts.RECORDS.get(run).get())
                .as("records the live reader delivered")
                .isGreaterThan(PARTITIONS * LIVE / 2);
    }

    /** The measure sees a live reader that does not pause: the live fast split runs away. */
    @Test
    void aLiveThatIgnoresPausesLetsTheFastSplitRunAway() throws Exception {
        JobExecutionResult result =
                runAlignmentJob(true, false, true, UUID.randomUUID().toString());
        assertThat(result.<Long>getAccumulatorResult(SpreadChecker.MAX_SPREAD))
                .isGreaterThan(2 * (DRIFT.toMillis() + SLACK_MS));
    }

    /** The same job without alignment: the measure does see a runaway split. */
    @Test
    void withoutAlignmentTheFastSplitRunsAway() throws Exception {
        JobExecutionResult result =
                runAlignmentJob(false, false, false, UUID.randomUUID().toString());
        assertThat(result.<Long>getAccumulatorResult(SpreadChecker.MAX_SPREAD))
                .isGreaterThan(3 * (DRIFT.toMillis() + SLACK_MS));
    }

    /**
     * Tumbling one-second windows per partition over the history and the live records, with a
     * failure during the backfill and one at the first live record of a partition: every window's
     * count equals the count computed from the log itself, and no record is late (a split's
     * watermark lives in its own split output through the handover, so partitions racing each other
     * make no record late). With chunks of history (1,000 records: partition 1's failure is in its
     * third chunk), each chunk has a split watermark of its own from the start: the windows are the
     * same and no record is late either.
     */
    @ParameterizedTest(name = "chunk size {0} (0: no chunks)")
    @ValueSource(longs = {0, 1_000})
    void windowCountsOverHistoryAndLiveEqualTheLogsWithFailuresAndNoLateRecord(long chunkSize)
            throws Exception {
        DatagenLog log =
                DatagenLog.builder()
                        .partitions(4)
                        .historyPerPartition(6_000)
                        // the backfill ends exactly at 6,000: offset 6,000 is the first live
                        .archiveBackfill(true)
                        .liveRatePerSecond(400)
                        .boundedAfterLiveRecords(1_200)
                        .build();
        String run = UUID.randomUUID().toString();
        String sourceRun = UUID.randomUUID().toString();
        Configuration conf = new Configuration();
        conf.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
        conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 5);
        conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofMillis(100));
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(2);
        env.enableCheckpointing(100);
        BackfillSourceBuilder<DatagenRecord> builder =
                BackfillSource.<DatagenRecord>builder()
                        .setLog(log)
                        .setBounded()
                        .setPollTimeout(Duration.ofMillis(20));
        if (chunkSize > 0) {
            builder.setBackfillChunkSize(chunkSize);
        }
        BackfillSource<DatagenRecord> source = builder.build();
        OutputTag<DatagenRecord> lateTag = new OutputTag<>("late") {};
        SingleOutputStreamOperator<WindowCount> counts =
                env.fromSource(
                                new ObservedSource<>(source, sourceRun),
                                WatermarkStrategy.<DatagenRecord>forMonotonousTimestamps()
                                        .withTimestampAssigner((r, previous) -> r.timestamp),
                                "backfill-source")
                        .map(new Throttle<>(6_000))
                        .map(
                                new FailureInjector(
                                        run,
                                        sourceRun,
                                        List.of(
                                                // during the backfill
                                                Trigger.at("backfill", 1, 2_001),
                                                // the first live record: at the handover
                                                Trigger.at("handover", 2, 6_000)),
                                        true))
                        .keyBy(r -> r.partition)
                        .window(TumblingEventTimeWindows.of(Duration.ofSeconds(1)))
                        .sideOutputLateData(lateTag)
                        .process(new CountPerWindow());
        counts.map(new RecordWindowCount(run)).sinkTo(new DiscardingSink<>());
        counts.getSideOutput(lateTag).map(new RecordLate(run)).sinkTo(new DiscardingSink<>());
        JobClient job = env.executeAsync("event-time windows");
        try {
            job.getJobExecutionResult().get();
            assertThat(RESTARTS.failoversOf(job, Duration.ofSeconds(60)))
                    .as("restarts (one per injected failure)")
                    .isEqualTo(Observations.of(run).failureEpisodes.size());
            assertThat(Observations.of(run).failuresInjected.get()).isEqualTo(2);
            assertThat(WINDOW_CONFLICTS.getOrDefault(run, new ConcurrentLinkedQueue<>()))
                    .as("windows fired again with another count")
                    .isEmpty();
            assertThat(LATE.getOrDefault(run, new AtomicLong()).get()).as("late records").isZero();
            assertThat(WINDOWS.get(run)).isEqualTo(expectedWindowCounts(log));
        } finally {
            Observations.forget(run);
            Observations.forget(sourceRun);
            WINDOWS.remove(run);
            LATE.remove(run);
            WINDOW_CONFLICTS.remove(run);
        }
    }

    /**
     * Issue 34, defect 2: chunks waiting for their turn under a watermark strategy with idleness
     * ({@code withIdleness}, the usual advice for Kafka sources). A waiting chunk's split output is
     * marked idle by the strategy, so it no longer holds the reader's watermark back; older splits
     * read first (a log split's chunks in offset order, then its own last part, which goes live),
     * so the split that reads holds it below every waiting chunk's records, and a chunk whose turn
     * starts is marked active before the one before it lets go. One partition, two chunks and its
     * own part, its backfill rate-limited so that every part reads for longer than the idle
     * timeout, the records counted behind the watermark where they arrive: at parallelism 1 every
     * chunk waits on the reader that also has the partition's own part, at 2 the chunks wait on the
     * other reader. No record is late, none is lost, no restart. (Before: the partition's own part
     * read first and went live, and the rows of the chunks after it came late.)
     */
    @ParameterizedTest(name = "parallelism {0}")
    @ValueSource(ints = {1, 2})
    void chunksWaitingForTheirTurnUnderIdlenessMakeNoRecordLate(int parallelism) throws Exception {
        DatagenLog log =
                DatagenLog.builder()
                        .partitions(1)
                        .historyPerPartition(3_000)
                        .archiveBackfill(true)
                        .liveRatePerSecond(400)
                        .boundedAfterLiveRecords(400)
                        // small polls: the chunk that reads emits every few milliseconds
                        .maxRecordsPerPoll(20)
                        .build();
        String run = UUID.randomUUID().toString();
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(parallelism);
        env.enableCheckpointing(100);
        BackfillSource<DatagenRecord> source =
                BackfillSource.<DatagenRecord>builder()
                        .setLog(log)
                        .setBounded()
                        .setPollTimeout(Duration.ofMillis(20))
                        .setBackfillChunkSize(1_000)
                        // a chunk reads for a second, so the waiting ones are idle long before
                        // their turn (the idle timeout is 100 ms, checked every 200 ms)
                        .setBackfillRecordsPerSecond(1_000)
                        .build();
        env.fromSource(
                        source,
                        WatermarkStrategy.<DatagenRecord>forMonotonousTimestamps()
                                .withTimestampAssigner((r, previous) -> r.timestamp)
                                .withIdleness(Duration.ofMillis(100)),
                        "backfill-source")
                .process(new CountBehindTheWatermark(run))
                .sinkTo(new DiscardingSink<>());
        JobClient job = env.executeAsync("chunks under idleness");
        try {
            job.getJobExecutionResult().get();
            assertThat(RESTARTS.restartsOf(job, Duration.ofSeconds(60))).as("restarts").isZero();
            assertThat(SEEN.get(run).get()).as("records").isEqualTo(3_400);
            assertThat(LATE.getOrDefault(run, new AtomicLong()).get())
                    .as("records behind the watermark")
                    .isZero();
        } finally {
            SEEN.remove(run);
            LATE.remove(run);
        }
    }

    private static final Map<String, AtomicLong> SEEN = new ConcurrentHashMap<>();

    /** Counts the records, and those behind the watermark (late for any event-time operator). */
    static final class CountBehindTheWatermark extends ProcessFunction<DatagenRecord, Long> {
        private final String run;

        CountBehindTheWatermark(String run) {
            this.run = run;
        }

        @Override
        public void processElement(DatagenRecord record, Context ctx, Collector<Long> out) {
            SEEN.computeIfAbsent(run, k -> new AtomicLong()).incrementAndGet();
            if (record.timestamp < ctx.timerService().currentWatermark()) {
                LATE.computeIfAbsent(run, k -> new AtomicLong()).incrementAndGet();
            }
        }
    }

    /** Per partition and window start, the count of the log's records, from the log itself. */
    private static Map<String, Long> expectedWindowCounts(DatagenLog log) {
        Map<String, Long> expected = new TreeMap<>();
        for (int p = 0; p < log.totalPartitions(); p++) {
            for (long o = 0; o < log.stoppingOffset(p); o++) {
                if (log.exists(p, o)) {
                    long start = Math.floorDiv(log.record(p, o).timestamp, 1000L) * 1000L;
                    expected.merge(p + "@" + start, 1L, Long::sum);
                }
            }
        }
        return expected;
    }

    /** What the windows emitted, by run; a window emitted twice must have one count. */
    private static final Map<String, Map<String, Long>> WINDOWS = new ConcurrentHashMap<>();

    private static final Map<String, Queue<String>> WINDOW_CONFLICTS = new ConcurrentHashMap<>();
    private static final Map<String, AtomicLong> LATE = new ConcurrentHashMap<>();

    /** A window's count of one partition. */
    public static final class WindowCount {
        public int partition;
        public long windowStart;
        public long count;

        public WindowCount() {}

        WindowCount(int partition, long windowStart, long count) {
            this.partition = partition;
            this.windowStart = windowStart;
            this.count = count;
        }
    }

    static final class CountPerWindow
            extends ProcessWindowFunction<DatagenRecord, WindowCount, Integer, TimeWindow> {
        @Override
        public void process(
                Integer partition,
                Context context,
                Iterable<DatagenRecord> records,
                Collector<WindowCount> out) {
            long n = 0;
            for (DatagenRecord ignored : records) {
                n++;
            }
            out.collect(new WindowCount(partition, context.window().getStart(), n));
        }
    }

    static final class RecordWindowCount implements MapFunction<WindowCount, WindowCount> {
        private final String run;

        RecordWindowCount(String run) {
            this.run = run;
        }

        @Override
        public WindowCount map(WindowCount w) {
            Long before =
                    WINDOWS.computeIfAbsent(run, k -> new ConcurrentSkipListMap<>())
                            .put(w.partition + "@" + w.windowStart, w.count);
            if (before != null && before != w.count) {
                WINDOW_CONFLICTS
                        .computeIfAbsent(run, k -> new ConcurrentLinkedQueue<>())
                        .add(
                                w.partition
                                        + "@"
                                        + w.windowStart
                                        + ": "
                                        + before
                                        + " then "
                                        + w.count);
            }
            return w;
        }
    }

    static final class RecordLate implements MapFunction<DatagenRecord, DatagenRecord> {
        private final String run;

        RecordLate(String run) {
            this.run = run;
        }

        @Override
        public DatagenRecord map(DatagenRecord r) {
            LATE.computeIfAbsent(run, k -> new AtomicLong()).incrementAndGet();
            return r;
        }
    }

    /**
     * Three readers, one split: the two readers without a split are idle, so the job's watermark
     * follows the split's. If they held it at its start, no watermark would pass a record's time.
     */
    @Test
    void readersWithoutSplitsAreIdleAndTheWatermarkAdvances() throws Exception {
        DatagenLog log =
                DatagenLog.builder()
                        .partitions(1)
                        .historyPerPartition(2_000)
                        .liveRatePerSecond(1_000)
                        .build();
        Configuration conf = new Configuration();
        conf.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
        conf.set(PipelineOptions.AUTO_WATERMARK_INTERVAL, Duration.ofMillis(20));
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(3);
        env.enableCheckpointing(200);
        BackfillSource<DatagenRecord> source =
                BackfillSource.<DatagenRecord>builder()
                        .setLog(log)
                        .setUnbounded()
                        .setPollTimeout(Duration.ofMillis(20))
                        .build();
        long passed = log.record(0, 1_000).timestamp;
        try (CloseableIterator<Long> watermarks =
                env.fromSource(
                                source,
                                WatermarkStrategy.<DatagenRecord>forMonotonousTimestamps()
                                        .withTimestampAssigner((r, previous) -> r.timestamp),
                                "backfill-source")
                        .keyBy(r -> 0)
                        .process(new WatermarkAtRecord())
                        .setParallelism(1)
                        .collectAsync()) {
            JobClient job = env.executeAsync("idle readers");
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            long latest = Long.MIN_VALUE;
            while (latest < passed && System.nanoTime() < deadline && watermarks.hasNext()) {
                latest = Math.max(latest, watermarks.next());
            }
            job.cancel().get(30, TimeUnit.SECONDS);
            assertThat(latest)
                    .as("the watermark seen downstream of two idle readers and one with the split")
                    .isGreaterThanOrEqualTo(passed);
            assertThat(RESTARTS.restartsOf(job, Duration.ofSeconds(60))).as("restarts").isZero();
        }
    }

    /** The operator's watermark when each record arrives. */
    static final class WatermarkAtRecord
            extends KeyedProcessFunction<Integer, DatagenRecord, Long> {
        @Override
        public void processElement(DatagenRecord record, Context ctx, Collector<Long> out) {
            out.collect(ctx.timerService().currentWatermark());
        }
    }

    /**
     * @param ignoreLivePauses the live reader ignores pauses, to show the measure sees it
     * @param run names the counts of the live reader in {@link LiveCounts}
     */
    private static JobExecutionResult runAlignmentJob(
            boolean aligned, boolean feed, boolean ignoreLivePauses, String run) throws Exception {
        String name =
                (aligned ? "alignment" : "no alignment")
                        + (feed ? ", feed" : ", seekable live reader")
                        + (ignoreLivePauses ? ", live ignores pauses" : "");
        DatagenLogBuilder logBuilder =
                DatagenLog.builder()
                        .partitions(PARTITIONS)
                        .historyPerPartition(HISTORY)
                        .historyStepPerPartition(HISTORY_STEP)
                        .liveRatePerSecond(1_000)
                        .boundedAfterLiveRecords(LIVE)
                        .maxRecordsPerPoll(RECORDS_PER_POLL);
        if (feed) {
            logBuilder.feedLive(0);
        }
        DatagenLog log = logBuilder.build();
        Configuration conf = new Configuration();
        conf.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
        conf.set(PipelineOptions.AUTO_WATERMARK_INTERVAL, Duration.ofMillis(10));
        conf.set(SourceReaderOptions.ELEMENT_QUEUE_CAPACITY, QUEUE_CAPACITY);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(1);
        env.enableCheckpointing(100);
        WatermarkStrategy<DatagenRecord> strategy =
                WatermarkStrategy.<DatagenRecord>forGenerator(ctx -> new PerRecordWatermarks())
                        .withTimestampAssigner((r, previous) -> eventTime(r.partition, r.offset));
        if (aligned) {
            strategy = strategy.withWatermarkAlignment("backfill", DRIFT, Duration.ofMillis(20));
        }
        BackfillSource<DatagenRecord> source =
                BackfillSource.<DatagenRecord>builder()
                        .setLog(new LiveCounts(log, run, ignoreLivePauses))
                        .setBounded()
                        .setPollTimeout(Duration.ofMillis(20))
                        .build();
        env.fromSource(source, strategy, "backfill-source")
                .map(new SpreadChecker(log))
                // slows the source (by back pressure) so that alignment acts within the warm-up
                .map(new Throttle<>(20_000))
                .sinkTo(new DiscardingSink<>());
        JobClient job = env.executeAsync(name);
        JobExecutionResult result = job.getJobExecutionResult().get();
        assertThat(RESTARTS.restartsOf(job, Duration.ofSeconds(60))).as("restarts").isZero();
        System.out.printf(
                "%s: largest event-time lead %d ms over %d records (bound with alignment %d ms);"
                        + " the live reader delivered %d records and was asked to pause %d times%n",
                name,
                result.<Long>getAccumulatorResult(SpreadChecker.MAX_SPREAD),
                result.<Long>getAccumulatorResult(SpreadChecker.CHECKED),
                DRIFT.toMillis() + SLACK_MS,
                LiveCounts.RECORDS.get(run).get(),
                LiveCounts.PAUSES.get(run).get());
        return result;
    }

    /**
     * The datagen log, counting what its live reader delivers and how often it is paused (by run,
     * in this JVM), and with {@code ignorePauses} a live reader that does not pause at all.
     */
    static final class LiveCounts implements BackfillLog<DatagenRecord> {
        static final Map<String, AtomicLong> RECORDS = new ConcurrentHashMap<>();
        static final Map<String, AtomicLong> PAUSES = new ConcurrentHashMap<>();

        private final DatagenLog log;
        private final String run;
        private final boolean ignorePauses;

        LiveCounts(DatagenLog log, String run, boolean ignorePauses) {
            this.log = log;
            this.run = run;
            this.ignorePauses = ignorePauses;
            RECORDS.put(run, new AtomicLong());
            PAUSES.put(run, new AtomicLong());
        }

        @Override
        public LogSplitDiscoverer createSplitDiscoverer() {
            return log.createSplitDiscoverer();
        }

        @Override
        public LogReading<?, DatagenRecord> backfillReading() {
            return log.backfillReading();
        }

        @Override
        public LogReading<Integer, DatagenRecord> liveReading() {
            LogReading<Integer, DatagenRecord> reading = log.liveReading();
            return LogReading.of(
                    context -> counting(reading.createReader(context)),
                    reading::createDeserializer);
        }

        /** The live reader, counting its records and its pauses. */
        private LogReader<Integer> counting(LogReader<Integer> live) {
            AtomicLong records = RECORDS.get(run);
            AtomicLong pauses = PAUSES.get(run);
            return new LogReader<>() {
                @Override
                public void addSplit(String splitId, long startOffset) throws IOException {
                    live.addSplit(splitId, startOffset);
                }

                @Override
                public void removeSplit(String splitId) throws IOException {
                    live.removeSplit(splitId);
                }

                @Override
                public void poll(Duration maxWait, LogRecordCollector<Integer> collector)
                        throws IOException {
                    live.poll(
                            maxWait,
                            (split, offset, timestamp, value) -> {
                                records.incrementAndGet();
                                collector.collect(split, offset, timestamp, value);
                            });
                }

                @Override
                public void pauseOrResumeSplits(
                        Collection<String> toPause, Collection<String> toResume)
                        throws IOException {
                    pauses.addAndGet(toPause.size());
                    if (!ignorePauses) {
                        live.pauseOrResumeSplits(toPause, toResume);
                    }
                }

                @Override
                public long position(String splitId) throws IOException {
                    return live.position(splitId);
                }

                @Override
                public long earliestOffset(String splitId) throws IOException {
                    return live.earliestOffset(splitId);
                }

                @Override
                public void wakeUp() {
                    live.wakeUp();
                }

                @Override
                public void close() throws Exception {
                    live.close();
                }
            };
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
        public TypeInformation<DatagenRecord> getProducedType() {
            return log.getProducedType();
        }
    }

    /** A watermark at every record: a split's watermark is its latest event time. */
    static final class PerRecordWatermarks implements WatermarkGenerator<DatagenRecord> {
        @Override
        public void onEvent(DatagenRecord event, long eventTimestamp, WatermarkOutput output) {
            output.emitWatermark(new Watermark(eventTimestamp));
        }

        @Override
        public void onPeriodicEmit(WatermarkOutput output) {}
    }

    /**
     * At every record, its event time minus the latest event time of each other split that has not
     * reached its last offset yet (a split that ended no longer holds anyone back); the largest
     * such lead over the run is an accumulator.
     */
    static final class SpreadChecker extends RichMapFunction<DatagenRecord, DatagenRecord> {
        static final String MAX_SPREAD = "max-spread-ms";
        static final String CHECKED = "records-checked";

        private final long[] lastOffsets;
        private transient long[] latest;
        private transient boolean[] ended;
        private transient LongMaximum maxSpread;
        private transient LongCounter checked;

        SpreadChecker(DatagenLog log) {
            this.lastOffsets = new long[log.totalPartitions()];
            for (int p = 0; p < lastOffsets.length; p++) {
                lastOffsets[p] = log.stoppingOffset(p) - 1;
            }
        }

        @Override
        public void open(OpenContext openContext) {
            latest = new long[lastOffsets.length];
            ended = new boolean[lastOffsets.length];
            maxSpread = new LongMaximum(0);
            checked = new LongCounter();
            getRuntimeContext().addAccumulator(MAX_SPREAD, maxSpread);
            getRuntimeContext().addAccumulator(CHECKED, checked);
        }

        @Override
        public DatagenRecord map(DatagenRecord record) {
            int p = record.partition;
            long time = eventTime(p, record.offset);
            latest[p] = Math.max(latest[p], time);
            for (int other = 0; other < latest.length; other++) {
                if (other != p && !ended[other]) {
                    maxSpread.add(time - latest[other]);
                }
            }
            if (record.offset == lastOffsets[p]) {
                ended[p] = true;
            }
            checked.add(1);
            return record;
        }
    }
}
