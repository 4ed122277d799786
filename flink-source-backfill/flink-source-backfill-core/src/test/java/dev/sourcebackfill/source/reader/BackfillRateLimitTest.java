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
import dev.sourcebackfill.source.control.BackfillControl;

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

    /**
     * A steered limit reads no history before the enumerator's first control, none while paused,
     * and again once resumed; a control's rate replaces the built limiter, dropping a permission
     * the old rate had not granted; "builder" brings the built limiter back.
     */
    @Test
    void aControlledLimitHoldsUntilTheFirstControlWhilePausedAndTakesTheControlsRate()
            throws Exception {
        CompletableFuture<Void> slow = new CompletableFuture<>();
        java.util.List<Integer> builtAsked = new java.util.ArrayList<>();
        PollLimiter built =
                records -> {
                    builtAsked.add(records);
                    return slow;
                };
        BackfillRateLimit limit = BackfillRateLimit.controlled(built);
        assertThat(limit.mayPoll()).as("before the first control").isFalse();
        assertThat(limit.isHeld()).isTrue();

        limit.apply(BackfillControl.asBuilt().withPaused(true));
        assertThat(limit.mayPoll()).as("paused").isFalse();
        // the control woke the fetcher: its next wait returns at once, the one after that waits
        limit.awaitPermit(Duration.ofSeconds(10));
        long start = System.nanoTime();
        limit.awaitPermit(Duration.ofMillis(50));
        assertThat(System.nanoTime() - start)
                .as("a paused wait lasts its timeout")
                .isGreaterThanOrEqualTo(Duration.ofMillis(40).toNanos());

        limit.apply(BackfillControl.asBuilt());
        assertThat(limit.mayPoll()).as("resumed").isTrue();
        limit.delivered(3, () -> {});
        assertThat(builtAsked).containsExactly(3);
        assertThat(limit.mayPoll()).as("the built limiter's permit is pending").isFalse();

        // a rate of its own: the pending permission of the built limiter is dropped
        limit.apply(BackfillControl.asBuilt().withRate(1_000_000));
        assertThat(limit.mayPoll()).isTrue();
        limit.delivered(1, () -> {});
        assertThat(builtAsked)
                .as("the control's rate grants, not the built one")
                .containsExactly(3);

        limit.apply(BackfillControl.asBuilt().withRate(1_000_000).withPaused(true));
        assertThat(limit.mayPoll()).isFalse();
        limit.apply(BackfillControl.asBuilt().withRate(1_000_000));
        limit.awaitPermit(Duration.ofSeconds(5)); // the wake-up of the control
        limit.awaitPermit(Duration.ofSeconds(5)); // the 1 µs of the last record's permission
        assertThat(limit.mayPoll()).isTrue();

        limit.apply(BackfillControl.asBuilt());
        limit.delivered(2, () -> {});
        assertThat(builtAsked).as("the built limiter is back").containsExactly(3, 2);
    }

    /** Without a control file the limit never waits for a control. */
    @Test
    void anUncontrolledLimitPollsAtOnce() {
        assertThat(BackfillRateLimit.of(PollLimiter.unlimited()).mayPoll()).isTrue();
    }
}
