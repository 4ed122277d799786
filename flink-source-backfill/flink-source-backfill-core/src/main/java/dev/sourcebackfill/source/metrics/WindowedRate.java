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
package dev.sourcebackfill.source.metrics;

import org.apache.flink.annotation.Internal;
import org.apache.flink.annotation.VisibleForTesting;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.View;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.function.LongSupplier;

/**
 * A counter's rate per second over the last window, as a gauge. Flink calls {@link #update()} on
 * every {@link View} every {@value View#UPDATE_INTERVAL_SECONDS} seconds, and each update takes a
 * sample (the time, the count); a read answers the count's change since the newest sample at least
 * a window old, over the time that really passed (not a fixed tick, as Flink's {@code MeterView}
 * assumes), so the figure is the last window's whoever reads it and however seldom. Updates and
 * reads come from Flink's metric threads, hence the lock.
 */
@Internal
final class WindowedRate implements Gauge<Double>, View {

    private final Counter counter;
    private final long windowNanos;
    private final LongSupplier nanoClock;

    /** {time, count}, oldest first; the first is the newest at least a window old, if any is. */
    private final ArrayDeque<long[]> samples = new ArrayDeque<>();

    WindowedRate(Counter counter, Duration window) {
        this(counter, window, System::nanoTime);
    }

    @VisibleForTesting
    WindowedRate(Counter counter, Duration window, LongSupplier nanoClock) {
        this.counter = counter;
        this.windowNanos = window.toNanos();
        this.nanoClock = nanoClock;
        samples.addLast(new long[] {nanoClock.getAsLong(), counter.getCount()});
    }

    @Override
    public synchronized void update() {
        long now = nanoClock.getAsLong();
        // drop the oldest while the one after it is a window old too
        while (samples.size() > 1) {
            Iterator<long[]> it = samples.iterator();
            it.next();
            if (now - it.next()[0] < windowNanos) {
                break;
            }
            samples.removeFirst();
        }
        samples.addLast(new long[] {now, counter.getCount()});
    }

    @Override
    public synchronized Double getValue() {
        long now = nanoClock.getAsLong();
        long count = counter.getCount();
        // the newest sample at least a window old, else the oldest there is
        long[] from = samples.peekFirst();
        for (long[] sample : samples) {
            if (now - sample[0] < windowNanos) {
                break;
            }
            from = sample;
        }
        long elapsed = now - from[0];
        return elapsed <= 0 ? 0.0 : Math.max(0, count - from[1]) * 1e9 / elapsed;
    }
}
