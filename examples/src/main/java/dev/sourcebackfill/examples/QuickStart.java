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
import dev.sourcebackfill.source.BackfillSourceBuilder;
import dev.sourcebackfill.source.datagen.DatagenLog;
import dev.sourcebackfill.source.datagen.DatagenLogBuilder;
import dev.sourcebackfill.source.datagen.DatagenRecord;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;

import java.time.Duration;

/**
 * Quick start: a job over the datagen log (a deterministic demo log) that backfills every
 * partition's history, hands each over to the live reader and prints its progress. Run it with no
 * arguments on an embedded MiniCluster, or submit the shaded jar with {@code flink run}, unchanged.
 *
 * <p>Options: {@code --partitions 8 --history 500000 --rate 2000 --live-seconds 20 --parallelism 2
 * --checkpoint-interval-ms 1000 --unbounded}.
 */
public final class QuickStart {

    private QuickStart() {}

    public static void main(String[] args) throws Exception {
        JobArgs params = JobArgs.of(args);
        int partitions = params.getInt("partitions", 8);
        long history = params.getLong("history", 500_000);
        double rate = params.getDouble("rate", 2_000);
        long liveSeconds = params.getLong("live-seconds", 20);
        int parallelism = params.getInt("parallelism", 2);
        long checkpointInterval = params.getLong("checkpoint-interval-ms", 1_000);
        boolean unbounded = params.has("unbounded");

        DatagenLogBuilder log =
                DatagenLog.builder()
                        .partitions(partitions)
                        .historyPerPartition(history)
                        .liveRatePerSecond(rate);
        if (!unbounded) {
            // the live part lasts about live-seconds after the backfill's start
            log.boundedAfterLiveRecords((long) (rate * liveSeconds));
        }
        DatagenLog datagen = log.build();

        BackfillSourceBuilder<DatagenRecord> builder =
                BackfillSource.<DatagenRecord>builder()
                        .setLog(datagen)
                        .setSplitDiscoveryInterval(Duration.ofSeconds(5))
                        .setListener(new ConsoleProgress(datagen.epochMillis()));
        if (!unbounded) {
            builder.setBounded();
        }

        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(parallelism);
        env.enableCheckpointing(checkpointInterval);

        System.out.printf(
                "QuickStart: %s, parallelism %d, checkpoints every %d ms%n",
                datagen, parallelism, checkpointInterval);
        env.fromSource(builder.build(), WatermarkStrategy.noWatermarks(), "datagen-log")
                .uid("datagen-log")
                .map(new ProgressPrinter(datagen, Duration.ofSeconds(1)))
                .name("progress")
                .sinkTo(new DiscardingSink<>())
                .name("discard");
        env.execute("flink-source-backfill quick start");
        System.out.println("QuickStart: done, every partition reached its stopping offset");
    }
}
