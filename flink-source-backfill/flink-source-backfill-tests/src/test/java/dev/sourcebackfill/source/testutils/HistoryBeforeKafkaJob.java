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
 * only when failures are injected (one more than there are: an unexpected failure shows in the
 * test's restart count, not as a failed job). The test reads what the checker saw and asserts on
 * it.
 *
 * <pre>{@code
 * JOB.run(run, source).failingOnceAt("A|0|350").parallelism(3).fromSavepoint(path).start();
 * }</pre>
 */
public final class HistoryBeforeKafkaJob {

    /** The source's name and uid ("archive-and-topic"); the job is named after it and the run. */
    private final String sourceName;

    private final RecordPosition<String> position;

    /** Whether the checker wants each partition's offsets in order, unless a run says otherwise. */
    private final boolean inOrder;

    /**
     * @param sourceName the source's name and uid
     * @param position where each value of the source comes from
     * @param inOrder whether the checker wants each partition's offsets in order from 0 (a history
     *     read in order before the partition's live records), unless a run says otherwise
     */
    public HistoryBeforeKafkaJob(
            String sourceName, RecordPosition<String> position, boolean inOrder) {
        this.sourceName = sourceName;
        this.position = position;
        this.inOrder = inOrder;
    }

    /** A run of the job over {@code source}, checked under the name {@code run}. */
    public Run run(String run, Source<String, ?, ?> source) {
        return new Run(run, source);
    }

    /** One run: what differs between the ITCases' jobs, then {@link #start()}. */
    public final class Run {
        private final String run;
        private final Source<String, ?, ?> source;
        private Set<String> failAt = Set.of();
        private int parallelism = 2;
        private double throttle;
        @Nullable private String savepoint;
        private boolean ordered = inOrder;

        private Run(String run, Source<String, ?, ?> source) {
            this.run = run;
            this.source = source;
        }

        /** Fails the job once at each of the values (their string form: "A|0|350"). */
        public Run failingOnceAt(String... values) {
            this.failAt = Set.of(values);
            return this;
        }

        public Run parallelism(int parallelism) {
            this.parallelism = parallelism;
            return this;
        }

        /** At most {@code recordsPerSecond} per subtask, after the failure injection. */
        public Run throttle(double recordsPerSecond) {
            this.throttle = recordsPerSecond;
            return this;
        }

        public Run fromSavepoint(String savepoint) {
            this.savepoint = savepoint;
            return this;
        }

        /** The checker wants each partition's offsets in order from 0. */
        public Run inOrder() {
            this.ordered = true;
            return this;
        }

        /** The checker takes each partition's offsets in any order (once each). */
        public Run unordered() {
            this.ordered = false;
            return this;
        }

        public JobClient start() throws Exception {
            Configuration conf = new Configuration();
            if (!failAt.isEmpty()) {
                conf.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
                conf.set(
                        RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS,
                        failAt.size() + 1);
                conf.set(
                        RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY,
                        Duration.ofMillis(200));
            } else {
                conf.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
            }
            if (savepoint != null) {
                conf.set(StateRecoveryOptions.SAVEPOINT_PATH, savepoint);
            }
            StreamExecutionEnvironment env =
                    StreamExecutionEnvironment.getExecutionEnvironment(conf);
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
            RecordPosition<String> position = HistoryBeforeKafkaJob.this.position;
            stream.keyBy(value -> position.of(value).partition(), Types.INT)
                    .process(new PartitionChecker<>(run, position, ordered), Types.STRING)
                    .uid("checker")
                    .sinkTo(new DiscardingSink<>());
            return env.executeAsync(sourceName + " " + run);
        }
    }
}
