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

import org.apache.flink.metrics.SimpleCounter;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

class WindowedRateTest {

    private final AtomicLong nanos = new AtomicLong();
    private final SimpleCounter counter = new SimpleCounter();
    private final WindowedRate rate = new WindowedRate(counter, Duration.ofSeconds(10), nanos::get);

    /** Advances the clock by {@code seconds}, counting {@code perSecond} records a second. */
    private void run(double seconds, long perSecond) {
        nanos.addAndGet((long) (seconds * 1e9));
        counter.inc((long) (seconds * perSecond));
    }

    @Test
    void theRateOverTheLastWindowWhateverHowOftenItIsRead() {
        assertThat(rate.getValue()).as("no time passed").isZero();
        // read every half second: the last 10 s
        for (int i = 0; i < 40; i++) {
            run(0.5, 1_000);
            rate.getValue();
        }
        run(0.5, 3_000);
        // 9.5 s at 1,000 and 0.5 s at 3,000 over the last 10 s
        assertThat(rate.getValue()).isCloseTo(1_100, within(1.0));
        // read every 10 s (Flink's REST API by default): the last 10 s, not a fixed tick
        run(10, 2_000);
        assertThat(rate.getValue()).isCloseTo(2_000, within(1.0));
        run(10, 500);
        assertThat(rate.getValue()).isCloseTo(500, within(1.0));
        // read again a moment later: over the window that ends now
        run(1, 0);
        assertThat(rate.getValue()).isCloseTo(5_000 / 11.0, within(1.0));
    }

    @Test
    void pausedTheRateFallsToZeroWithinTheWindow() {
        run(10, 1_000);
        assertThat(rate.getValue()).isCloseTo(1_000, within(1.0));
        run(10, 0);
        assertThat(rate.getValue()).isZero();
    }
}
