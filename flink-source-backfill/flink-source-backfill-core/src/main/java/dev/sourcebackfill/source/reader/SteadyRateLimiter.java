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
package dev.sourcebackfill.source.reader;

import dev.sourcebackfill.source.PollLimiter;

import org.apache.flink.annotation.Internal;
import org.apache.flink.annotation.VisibleForTesting;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * A {@link PollLimiter} that paces records at a steady rate, for {@code
 * setBackfillRecordsPerSecond}: each acquisition of {@code n} records moves the time the next one
 * is granted by {@code n / rate}. Unlike Flink's {@code RateLimiterStrategy.perSecond} (Guava's
 * limiter) it stores no burst of permits while the reader starts or waits (a backfill's first
 * second would run at any speed) and needs no thread of its own per reader: a grant that must wait
 * completes on the JDK's shared delayed executor.
 *
 * <p>Being late by up to {@link #CATCH_UP_NANOS} keeps the schedule, so the time a poll itself
 * takes is not lost from the rate; being later does not bank permits for a burst.
 */
@Internal
public final class SteadyRateLimiter implements PollLimiter {

    /** How late a poll may come and still keep the schedule (no more is ever made up at once). */
    static final long CATCH_UP_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

    private static final CompletableFuture<Void> GRANTED = CompletableFuture.completedFuture(null);

    private final double nanosPerRecord;
    private final LongSupplier clock;
    private boolean started;
    private long nextGrantNanos;

    public SteadyRateLimiter(double recordsPerSecond) {
        this(recordsPerSecond, System::nanoTime);
    }

    @VisibleForTesting
    SteadyRateLimiter(double recordsPerSecond, LongSupplier nanoClock) {
        this.nanosPerRecord = 1e9 / recordsPerSecond;
        this.clock = nanoClock;
    }

    @Override
    public CompletionStage<Void> acquire(int records) {
        long waitNanos = reserve(records);
        if (waitNanos <= 0) {
            return GRANTED;
        }
        return CompletableFuture.runAsync(
                () -> {}, CompletableFuture.delayedExecutor(waitNanos, TimeUnit.NANOSECONDS));
    }

    /** Reserves {@code records}; how long until the next grant, from now. */
    @VisibleForTesting
    long reserve(int records) {
        long now = clock.getAsLong();
        if (!started || now - nextGrantNanos > CATCH_UP_NANOS) {
            // the first records, or late past catching up: the schedule starts again now
            nextGrantNanos = now;
            started = true;
        }
        // rounded up: many small polls at a high rate must not add up to more than the rate
        nextGrantNanos += (long) Math.ceil(records * nanosPerRecord);
        return nextGrantNanos - now;
    }
}
