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

import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.common.serialization.SimpleStringEncoder;
import org.apache.flink.connector.file.sink.FileSink;
import org.apache.flink.core.fs.Path;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * What the end-to-end check jobs ({@link ExactlyOnceCheckJob}, {@link ArchiveCheckJob}, {@link
 * IcebergCheckJob}) share: their options {@code --checkpoint-interval-ms}, {@code
 * --max-rate-per-subtask} (the first two; the Iceberg one limits the table read with the source's
 * own rate limit) and {@code --output}, and the exactly-once file sink their checkers write their
 * lines to.
 */
final class CheckJobs {

    private CheckJobs() {}

    /** The job's environment, checkpointing every {@code --checkpoint-interval-ms} (1,000). */
    static StreamExecutionEnvironment environment(JobArgs params) {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.enableCheckpointing(params.getLong("checkpoint-interval-ms", 1_000));
        return env;
    }

    /**
     * The records, at most {@code --max-rate-per-subtask} a second per subtask if that is above 0
     * (it slows the whole job so that an outside script can act while the history is read).
     */
    static <T> DataStream<T> throttled(JobArgs params, DataStream<T> records) {
        double maxRate = params.getDouble("max-rate-per-subtask", 0);
        return maxRate > 0 ? records.map(new Throttle<>(maxRate)).name("throttle") : records;
    }

    /**
     * Writes the checker's lines to an exactly-once file sink in {@code --output}; runs the job.
     */
    static void writeAndRun(
            StreamExecutionEnvironment env,
            JobArgs params,
            DataStream<String> lines,
            String jobName)
            throws Exception {
        lines.sinkTo(
                        FileSink.forRowFormat(
                                        new Path(params.getRequired("output")),
                                        new SimpleStringEncoder<String>())
                                .build())
                .uid("output");
        env.execute(jobName);
    }

    /** Lets at most {@code recordsPerSecond} records a second through, per subtask. */
    static final class Throttle<T> implements MapFunction<T, T> {
        private final long nanosPerRecord;
        private transient long next;

        Throttle(double recordsPerSecond) {
            this.nanosPerRecord = (long) (1e9 / recordsPerSecond);
        }

        @Override
        public T map(T value) throws Exception {
            long now = System.nanoTime();
            next = Math.max(next, now) + nanosPerRecord;
            long wait = next - now;
            if (wait > 1_000_000) {
                Thread.sleep(wait / 1_000_000);
            }
            return value;
        }
    }
}
