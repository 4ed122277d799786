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

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

class WindowedRateTest {

    private static final long STEP_NANOS = 500_000_000L;
    private static final long UPDATE_NANOS = 5_000_000_000L;

    private long nanos;
    private long sinceUpdate;
    private final SimpleCounter counter = new SimpleCounter();
    private final WindowedRate rate =
            new WindowedRate(counter, Duration.ofSeconds(10), () -> nanos);

    /**
     * {@code seconds} pass in half seconds at {@code perSecond} records a second, with Flink's view
     * updates every 5 s.
     */
    private void run(double seconds, long perSecond) {
        for (long step = 0; step < (long) (seconds * 2); step++) {
            nanos += STEP_NANOS;
            counter.inc(perSecond / 2);
            sinceUpdate += STEP_NANOS;
            if (sinceUpdate >= UPDATE_NANOS) {
                sinceUpdate = 0;
                rate.update();
            }
        }
    }

    @Test
    void theRateOverTheLastWindowWhenEverItIsRead() {
        assertThat(rate.getValue()).as("no time passed").isZero();
        run(30, 1_000);
        assertThat(rate.getValue()).isCloseTo(1_000, within(1.0));
        run(30, 2_000);
        assertThat(rate.getValue()).isCloseTo(2_000, within(1.0));
        // between two updates: over the window from the newest sample at least 10 s old
        run(2.5, 4_000);
        // 12.5 s back: 10 s at 2,000 and 2.5 s at 4,000
        assertThat(rate.getValue()).isCloseTo((20_000 + 10_000) / 12.5, within(1.0));
    }

    /** An hour at 2,000 a second, then a minute paused: 0, however seldom it was read. */
    @Test
    void pausedAfterALongRunTheRateIsZeroOnceAWindowPassed() {
        run(3_600, 2_000);
        run(60, 0);
        assertThat(rate.getValue()).isZero();
    }

    /** Read once, paused for 20 minutes, then 30 s at 2,000 a second: 2,000, not an average. */
    @Test
    void resumedAfterALongPauseTheRateIsTheLastWindows() {
        rate.getValue();
        run(1_200, 0);
        run(30, 2_000);
        assertThat(rate.getValue()).isCloseTo(2_000, within(1.0));
        run(5, 2_000);
        assertThat(rate.getValue()).isCloseTo(2_000, within(1.0));
    }

    @Test
    void theSamplesKeptStayWithinAWindow() {
        run(3_600, 1_000);
        // a window of 10 s at one update every 5 s: the sample at least 10 s old and the newer ones
        assertThat(rate.getValue()).isCloseTo(1_000, within(1.0));
    }
}
