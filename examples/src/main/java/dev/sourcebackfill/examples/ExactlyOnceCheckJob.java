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
package dev.sourcebackfill.examples;

import dev.sourcebackfill.source.BackfillSource;
import dev.sourcebackfill.source.datagen.DatagenLog;
import dev.sourcebackfill.source.datagen.DatagenRecord;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;

import java.time.Duration;

/**
 * The end-to-end check: a bounded job over the datagen log whose keyed, checkpointed checker
 * verifies every (partition, offset) arrives exactly once and in order, and writes one line per
 * completed partition ({@code COMPLETE p count}) and one per violation ({@code VIOLATION ...}) to
 * an exactly-once file sink. Run it, restart it, rescale it: the committed output must hold exactly
 * one correct COMPLETE line per partition and no VIOLATION.
 *
 * <p>Options: {@code --output DIR --epoch MILLIS --partitions 8 --history 400000 --rate 2000
 * --live-records 60000 --checkpoint-interval-ms 1000 --max-rate-per-subtask 0}. All runs of one
 * check (a restore from a savepoint too) must get the same {@code --epoch}, so they see the same
 * log.
 */
public final class ExactlyOnceCheckJob {

    private ExactlyOnceCheckJob() {}

    public static void main(String[] args) throws Exception {
        JobArgs params = JobArgs.of(args);
        DatagenLog log =
                DatagenLog.builder()
                        .partitions(params.getInt("partitions", 8))
                        .historyPerPartition(params.getLong("history", 400_000))
                        .liveRatePerSecond(params.getDouble("rate", 2_000))
                        .boundedAfterLiveRecords(params.getLong("live-records", 60_000))
                        .epochMillis(params.getLong("epoch", System.currentTimeMillis()))
                        .build();
        StreamExecutionEnvironment env = CheckJobs.environment(params);

        BackfillSource<DatagenRecord> source =
                BackfillSource.<DatagenRecord>builder()
                        .setLog(log)
                        .setBounded()
                        .setSplitDiscoveryInterval(Duration.ofSeconds(5))
                        .setListener(new ConsoleProgress(log.epochMillis()))
                        .build();
        DataStream<DatagenRecord> records =
                env.fromSource(source, WatermarkStrategy.noWatermarks(), "datagen-log")
                        .uid("datagen-log");
        CheckJobs.writeAndRun(
                env,
                params,
                CheckJobs.throttled(params, records)
                        .keyBy(r -> r.partition)
                        .process(new Checker(log))
                        .uid("checker"),
                "flink-source-backfill exactly-once check");
    }

    /** Keyed by partition: the next record must be the next existing offset after the last. */
    static final class Checker extends KeyedProcessFunction<Integer, DatagenRecord, String> {
        private final DatagenLog log;
        private transient ValueState<Long> last;
        private transient ValueState<Long> count;

        Checker(DatagenLog log) {
            this.log = log;
        }

        @Override
        public void open(OpenContext openContext) {
            last = getRuntimeContext().getState(new ValueStateDescriptor<>("last", Types.LONG));
            count = getRuntimeContext().getState(new ValueStateDescriptor<>("count", Types.LONG));
        }

        @Override
        public void processElement(DatagenRecord record, Context ctx, Collector<String> out)
                throws Exception {
            int p = record.partition;
            long expected = next(p, last.value() == null ? -1 : last.value());
            if (record.offset != expected
                    || record.payload != DatagenLog.payloadOf(p, record.offset)) {
                out.collect(
                        "VIOLATION partition "
                                + p
                                + " expected "
                                + expected
                                + " got "
                                + record.offset);
            }
            long n = (count.value() == null ? 0 : count.value()) + 1;
            last.update(record.offset);
            count.update(n);
            if (next(p, record.offset) >= log.stoppingOffset(p)) {
                out.collect("COMPLETE " + p + " " + n + " expected " + log.recordCount(p));
            }
        }

        private long next(int partition, long after) {
            long o = after + 1;
            while (o < log.stoppingOffset(partition) && !log.exists(partition, o)) {
                o++;
            }
            return o;
        }
    }
}
