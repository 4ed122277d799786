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

import dev.sourcebackfill.source.BackfillSource;
import dev.sourcebackfill.source.BackfillSourceBuilder;
import dev.sourcebackfill.source.datagen.DatagenLog;
import dev.sourcebackfill.source.datagen.DatagenRecord;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

import java.time.Duration;
import java.util.function.Consumer;

/** The job every datagen-log benchmark runs: our source into the probe's sink, observed. */
final class ProbedBackfillJob {

    private ProbedBackfillJob() {}

    /**
     * @param bounded ends at the log's stopping offsets (one discovery at start); else runs until
     *     cancelled
     */
    static void addTo(
            StreamExecutionEnvironment env, DatagenLog log, RunProbe probe, boolean bounded) {
        addTo(env, log, probe, bounded, source -> {}, WatermarkStrategy.noWatermarks());
    }

    /**
     * @param options sets further options of the source
     * @param watermarks the job's watermark strategy
     */
    static void addTo(
            StreamExecutionEnvironment env,
            DatagenLog log,
            RunProbe probe,
            boolean bounded,
            Consumer<BackfillSourceBuilder<DatagenRecord>> options,
            WatermarkStrategy<DatagenRecord> watermarks) {
        BackfillSourceBuilder<DatagenRecord> source =
                BackfillSource.<DatagenRecord>builder()
                        .setLog(log)
                        .setListener(new ProbeListener(probe.id()));
        if (bounded) {
            source.setBounded().setSplitDiscoveryInterval(Duration.ZERO);
        }
        options.accept(source);
        env.fromSource(source.build(), watermarks, "backfill-source")
                .sinkTo(new ProbeSink<>(probe.id()));
    }
}
