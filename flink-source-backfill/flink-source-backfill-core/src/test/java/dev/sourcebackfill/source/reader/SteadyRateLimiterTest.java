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

import org.junit.jupiter.api.Test;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/** The steady limiter's schedule, on a clock the test moves. */
class SteadyRateLimiterTest {

    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

    private final AtomicLong now = new AtomicLong(1_000 * MS);

    /** 1,000 records per second: one millisecond per record. */
    private final SteadyRateLimiter limiter = new SteadyRateLimiter(1_000, now::get);

    @Test
    void eachAcquisitionMovesTheNextGrantByItsRecordsOverTheRate() {
        assertThat(limiter.reserve(100)).isEqualTo(100 * MS);
        now.addAndGet(100 * MS);
        assertThat(limiter.reserve(50)).isEqualTo(50 * MS);
        // asked early: the wait includes what is still owed
        now.addAndGet(20 * MS);
        assertThat(limiter.reserve(10)).isEqualTo(40 * MS);
    }

    @Test
    void aPollTakingAWhileKeepsTheScheduleAndAWaitBanksNoBurst() {
        assertThat(limiter.reserve(100)).isEqualTo(100 * MS);
        // 5 ms late (the poll took that long): still on schedule
        now.addAndGet(105 * MS);
        assertThat(limiter.reserve(100)).isEqualTo(95 * MS);
        // a long wait (nothing to read for a second): no permits were stored meanwhile
        now.addAndGet(95 * MS + 1_000 * MS);
        assertThat(limiter.reserve(100)).isEqualTo(100 * MS);
    }

    @Test
    void aGrantThatMustWaitCompletesLater() throws Exception {
        // 1 s per record: not done a moment later even on a loaded machine (10 ms was not)
        SteadyRateLimiter real = new SteadyRateLimiter(1);
        assertThat(real.acquire(1).toCompletableFuture().isDone()).isFalse();
        real.acquire(1).toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    /** Each wait is rounded up: a long run of tiny polls at a high rate is not faster. */
    @Test
    void aLongRunOfSmallPollsIsNoFasterThanAsked() {
        double rate = 3e8; // 3.33 ns a record
        SteadyRateLimiter fast = new SteadyRateLimiter(rate, now::get);
        long start = now.get();
        long records = 3_000_000;
        for (long i = 0; i < records; i++) {
            now.addAndGet(Math.max(0, fast.reserve(1)));
        }
        double seconds = (now.get() - start) / 1e9;
        assertThat(records / seconds).as("records per second granted").isLessThanOrEqualTo(rate);
    }

    @Test
    void theSmallestRatesAndLargestPollsStillWait() {
        assertThat(new SteadyRateLimiter(1e-9, now::get).reserve(10)).isPositive();
        assertThat(new SteadyRateLimiter(0.1, now::get).reserve(Integer.MAX_VALUE)).isPositive();
    }
}
