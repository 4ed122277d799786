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

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The fetcher's waits for a backfill permission. */
class BackfillRateLimitTest {

    /**
     * A long wait (every split backfilling, a low rate): waits that time out again and again leave
     * nothing behind on the permit until it is granted.
     */
    @Test
    void waitingForAPermitAgainAndAgainLeavesNoCompletionsBehind() throws Exception {
        CompletableFuture<Void> pending = new CompletableFuture<>();
        PollLimiter never = records -> pending;
        BackfillRateLimit limit = BackfillRateLimit.of(never);
        limit.delivered(1, () -> {});
        for (int i = 0; i < 2_000; i++) {
            limit.awaitPermit(Duration.ofNanos(1));
        }
        assertThat(pending.getNumberOfDependents())
                .as("completions left on the permit after 2,000 timed-out waits")
                .isLessThan(3);
        assertThat(limit.mayPoll()).isFalse();
        pending.complete(null);
        assertThat(limit.mayPoll()).isTrue();
    }

    /** A limiter that fails fails the fetch: the backfill neither goes on unlimited nor hangs. */
    @Test
    void aFailedPermitFailsTheNextPollLoudly() {
        CompletableFuture<Void> failing = new CompletableFuture<>();
        BackfillRateLimit limit = BackfillRateLimit.of(records -> failing);
        limit.delivered(5, () -> {});
        assertThat(limit.mayPoll()).isFalse();
        failing.completeExceptionally(new IllegalArgumentException("limiter broke"));
        assertThatThrownBy(limit::mayPoll)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("backfill rate limiter failed")
                .hasRootCauseMessage("limiter broke");
    }
}
