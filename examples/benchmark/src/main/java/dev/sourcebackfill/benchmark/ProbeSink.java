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

import org.apache.flink.api.connector.sink2.SinkWriter;

/**
 * A discarding sink that counts: the time of a subtask's first record, of every 1,024th and of its
 * end of input, into the run's {@link RunProbe}. The same sink ends every contender and every
 * baseline job, so its cost is in both.
 */
final class ProbeSink<T> extends SubtaskSink<T> {

    private static final long serialVersionUID = 1L;

    private final String runId;

    ProbeSink(String runId) {
        this.runId = runId;
    }

    @Override
    SinkWriter<T> createWriter(int subtask) {
        return new Writer<>(RunProbe.of(runId).subtask(subtask));
    }

    private static final class Writer<T> implements SinkWriter<T> {

        private final RunProbe.SubtaskProbe probe;

        Writer(RunProbe.SubtaskProbe probe) {
            this.probe = probe;
        }

        @Override
        public void write(T element, Context context) {
            long n = ++probe.records;
            if (n == 1) {
                probe.firstNanos = System.nanoTime();
            } else if ((n & 1023) == 0) {
                probe.lastNanos = System.nanoTime();
                probe.publishedRecords = n;
            }
        }

        @Override
        public void flush(boolean endOfInput) {
            if (endOfInput) {
                probe.lastNanos = System.nanoTime();
                probe.publishedRecords = probe.records;
            }
        }

        @Override
        public void close() {}
    }
}
