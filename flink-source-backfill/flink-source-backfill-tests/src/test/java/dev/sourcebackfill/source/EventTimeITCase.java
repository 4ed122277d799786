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
import dev.sourcebackfill.source.testutils.RestartCounter;
import dev.sourcebackfill.source.testutils.Throttle;

import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.api.common.accumulators.LongCounter;
import org.apache.flink.api.common.accumulators.LongMaximum;
import org.apache.flink.api.common.eventtime.Watermark;
import org.apache.flink.api.common.eventtime.WatermarkGenerator;
import org.apache.flink.api.common.eventtime.WatermarkOutput;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.connector.base.source.reader.SourceReaderOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.CloseableIterator;
import org.apache.flink.util.Collector;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

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
    private static final long HISTORY = 6_000;
    private static final long LIVE = 100;
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
        JobExecutionResult result = runAlignmentJob(true, false, "alignment, seekable upstream");
        assertThat(result.<Long>getAccumulatorResult(SpreadChecker.CHECKED))
                .as("records checked")
                .isEqualTo(PARTITIONS * (HISTORY + LIVE));
        assertThat(result.<Long>getAccumulatorResult(SpreadChecker.MAX_SPREAD))
                .as("largest event-time lead of a split over another still read, ms")
                .isLessThanOrEqualTo(DRIFT.toMillis() + SLACK_MS);
    }

    @Test
    void alignedSplitsOfAFeedUpstreamArePausedInBothReaders() throws Exception {
        JobExecutionResult result = runAlignmentJob(true, true, "alignment, feed upstream");
        assertThat(result.<Long>getAccumulatorResult(SpreadChecker.CHECKED))
                .as("records checked")
                .isEqualTo(PARTITIONS * (HISTORY + LIVE));
        assertThat(result.<Long>getAccumulatorResult(SpreadChecker.MAX_SPREAD))
                .as("largest event-time lead of a split over another still read, ms")
                .isLessThanOrEqualTo(DRIFT.toMillis() + SLACK_MS);
    }

    /** The same job without alignment: the measure does see a runaway split. */
    @Test
    void withoutAlignmentTheFastSplitRunsAway() throws Exception {
        JobExecutionResult result = runAlignmentJob(false, false, "no alignment");
        assertThat(result.<Long>getAccumulatorResult(SpreadChecker.MAX_SPREAD))
                .isGreaterThan(10 * (DRIFT.toMillis() + SLACK_MS));
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

    private static JobExecutionResult runAlignmentJob(boolean aligned, boolean feed, String name)
            throws Exception {
        DatagenLogBuilder logBuilder =
                DatagenLog.builder()
                        .partitions(PARTITIONS)
                        .historyPerPartition(HISTORY)
                        .liveRatePerSecond(500)
                        .boundedAfterLiveRecords(LIVE)
                        .maxRecordsPerPoll(RECORDS_PER_POLL);
        if (feed) {
            logBuilder.feedUpstream(0);
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
                        .setLog(log)
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
                "%s: largest event-time lead %d ms over %d records (bound with alignment %d ms)%n",
                name,
                result.<Long>getAccumulatorResult(SpreadChecker.MAX_SPREAD),
                result.<Long>getAccumulatorResult(SpreadChecker.CHECKED),
                DRIFT.toMillis() + SLACK_MS);
        return result;
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
