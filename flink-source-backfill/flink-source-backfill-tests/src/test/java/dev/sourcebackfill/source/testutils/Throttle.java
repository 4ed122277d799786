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

import org.apache.flink.api.common.functions.MapFunction;

/**
 * Slows a pipeline to about {@code recordsPerSecond} per subtask, so that a test can act while
 * splits are still backfilling; back pressure reaches the source.
 */
public final class Throttle<T> implements MapFunction<T, T> {

    private final long nanosPerRecord;
    private transient long next;

    public Throttle(double recordsPerSecond) {
        this.nanosPerRecord = (long) (1e9 / recordsPerSecond);
    }

    @Override
    public T map(T value) throws Exception {
        long now = System.nanoTime();
        if (next == 0) {
            next = now;
        }
        next += nanosPerRecord;
        long wait = next - now;
        if (wait > 1_000_000) {
            Thread.sleep(wait / 1_000_000);
        }
        return value;
    }
}
