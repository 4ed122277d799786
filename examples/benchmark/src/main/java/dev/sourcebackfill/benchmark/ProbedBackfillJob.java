package dev.sourcebackfill.benchmark;

import dev.sourcebackfill.source.BackfillSource;
import dev.sourcebackfill.source.BackfillSourceBuilder;
import dev.sourcebackfill.source.datagen.DatagenLog;
import dev.sourcebackfill.source.datagen.DatagenRecord;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

import java.time.Duration;

/** The job every datagen-log benchmark runs: our source into the probe's sink, observed. */
final class ProbedBackfillJob {

    private ProbedBackfillJob() {}

    /**
     * @param bounded ends at the log's stopping offsets (one discovery at start); else runs
     *     until cancelled
     */
    static void addTo(StreamExecutionEnvironment env, DatagenLog log, RunProbe probe, boolean bounded) {
        BackfillSourceBuilder<DatagenRecord> source =
                BackfillSource.<DatagenRecord>builder()
                        .setLog(log)
                        .setListener(new ProbeListener(probe.id()));
        if (bounded) {
            source.setBounded().setSplitDiscoveryInterval(Duration.ZERO);
        }
        env.fromSource(source.build(), WatermarkStrategy.noWatermarks(), "backfill-source")
                .sinkTo(new ProbeSink<>(probe.id()));
    }
}
