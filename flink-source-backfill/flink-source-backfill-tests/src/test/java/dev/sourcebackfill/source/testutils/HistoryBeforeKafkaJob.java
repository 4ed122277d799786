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
package dev.sourcebackfill.source.testutils;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;

import javax.annotation.Nullable;

import java.time.Duration;
import java.util.Set;

/**
 * The job of a history-before-Kafka ITCase (the archive's, the Iceberg table's), on the test's
 * MiniCluster: the source, a {@link FailOnce} at the given values, a {@link Throttle} if asked for,
 * and a {@link PartitionChecker} keyed by partition; checkpoints every 200 ms; restarts allowed
 * only when failures are injected. The test reads what the checker saw and asserts on it.
 */
public final class HistoryBeforeKafkaJob {

    /** The source's name and uid ("archive-and-topic"); the job is named after it and the run. */
    private final String sourceName;

    private final RecordPosition<String> position;

    /**
     * @param sourceName the source's name and uid
     * @param position where each value of the source comes from
     */
    public HistoryBeforeKafkaJob(String sourceName, RecordPosition<String> position) {
        this.sourceName = sourceName;
        this.position = position;
    }

    /**
     * Starts the job.
     *
     * @param failAt the values to fail once at
     * @param restartAttempts restarts Flink allows when {@code failAt} is not empty (none
     *     otherwise)
     * @param throttle records per second per subtask, or 0 for none
     * @param savepoint a savepoint to start from, or {@code null}
     * @param ordered whether the checker also wants each partition's offsets in order from 0
     */
    public JobClient start(
            String run,
            Source<String, ?, ?> source,
            Set<String> failAt,
            int restartAttempts,
            int parallelism,
            double throttle,
            @Nullable String savepoint,
            boolean ordered)
            throws Exception {
        Configuration conf = new Configuration();
        if (!failAt.isEmpty()) {
            conf.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
            conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, restartAttempts);
            conf.set(
                    RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY,
                    Duration.ofMillis(200));
        } else {
            conf.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
        }
        if (savepoint != null) {
            conf.set(StateRecoveryOptions.SAVEPOINT_PATH, savepoint);
        }
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(parallelism);
        env.enableCheckpointing(200);
        DataStream<String> stream =
                env.fromSource(source, WatermarkStrategy.noWatermarks(), sourceName)
                        .uid(sourceName)
                        .map(new FailOnce<>(run, failAt), Types.STRING)
                        .uid("fail-once");
        if (throttle > 0) {
            stream = stream.map(new Throttle<>(throttle), Types.STRING).uid("throttle");
        }
        RecordPosition<String> position = this.position;
        stream.keyBy(value -> position.of(value).partition(), Types.INT)
                .process(new PartitionChecker<>(run, position, ordered), Types.STRING)
                .uid("checker")
                .sinkTo(new DiscardingSink<>());
        return env.executeAsync(sourceName + " " + run);
    }
}
