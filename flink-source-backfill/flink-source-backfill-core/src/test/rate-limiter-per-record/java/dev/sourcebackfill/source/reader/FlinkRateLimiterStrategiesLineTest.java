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

import org.apache.flink.api.connector.source.util.ratelimit.RateLimiter;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;

import org.junit.jupiter.api.Test;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Flink 1.20 to 2.1: a poll of n records takes n permits of Flink's limiter, each asked once the
 * one before was granted; a failed permit fails the poll's.
 */
class FlinkRateLimiterStrategiesLineTest {

    /** Grants what the test releases; counts the permits asked for. */
    private static final class Manual implements RateLimiter {
        final Deque<CompletableFuture<Void>> pending = new ArrayDeque<>();
        int asked;
        boolean grantAtOnce;

        @Override
        public CompletionStage<Void> acquire() {
            asked++;
            if (grantAtOnce) {
                return CompletableFuture.completedFuture(null);
            }
            CompletableFuture<Void> permit = new CompletableFuture<>();
            pending.add(permit);
            return permit;
        }
    }

    private static PollLimiter limiterOver(Manual manual) {
        RateLimiterStrategy strategy = parallelism -> manual;
        return FlinkRateLimiterStrategies.perPoll(strategy).create(1);
    }

    @Test
    void aPollOfNRecordsTakesNPermitsOneAfterAnother() {
        Manual manual = new Manual();
        CompletableFuture<Void> poll = limiterOver(manual).acquire(3).toCompletableFuture();
        for (int granted = 0; granted < 3; granted++) {
            assertThat(poll).isNotDone();
            assertThat(manual.asked)
                    .as("permits asked before %s granted", granted)
                    .isEqualTo(granted + 1);
            manual.pending.poll().complete(null);
        }
        assertThat(poll).isCompletedWithValue(null);
        assertThat(manual.asked).isEqualTo(3);
    }

    @Test
    void permitsGrantedAtOnceAreTakenWithoutWaiting() {
        Manual manual = new Manual();
        manual.grantAtOnce = true;
        assertThat(limiterOver(manual).acquire(100_000).toCompletableFuture())
                .isCompletedWithValue(null);
        assertThat(manual.asked).isEqualTo(100_000);
    }

    @Test
    void aFailedPermitFailsThePoll() {
        Manual manual = new Manual();
        CompletableFuture<Void> poll = limiterOver(manual).acquire(2).toCompletableFuture();
        manual.pending.poll().completeExceptionally(new IllegalStateException("limiter broke"));
        assertThat(poll).isCompletedExceptionally();
        assertThat(manual.asked).isEqualTo(1);
    }

    @Test
    void perCheckpointCountsEveryRecordOfAPoll() {
        PollLimiter limiter =
                FlinkRateLimiterStrategies.perPoll(RateLimiterStrategy.perCheckpoint(3)).create(1);
        CompletableFuture<Void> poll = limiter.acquire(5).toCompletableFuture();
        assertThat(poll).as("5 records, 3 per checkpoint").isNotDone();
        limiter.checkpointComplete(1);
        assertThat(poll).isCompletedWithValue(null);
    }

    /** A permit asked for from the callback of the one before, where Flink's limiter throws. */
    @Test
    void aLimiterThatThrowsWhileAPollWaitsFailsThePollInsteadOfHangingIt() {
        CompletableFuture<Void> first = new CompletableFuture<>();
        int[] asked = {0};
        RateLimiter throwing =
                () -> {
                    if (asked[0]++ == 0) {
                        return first;
                    }
                    throw new IllegalStateException("limiter broke");
                };
        RateLimiterStrategy strategy = parallelism -> throwing;
        BackfillRateLimit limit =
                BackfillRateLimit.of(FlinkRateLimiterStrategies.perPoll(strategy).create(1));
        limit.delivered(2, () -> {});
        first.complete(null);
        assertThat(asked[0]).isEqualTo(2);
        assertThatThrownBy(limit::mayPoll).hasRootCauseMessage("limiter broke");
    }

    /** Flink's perCheckpoint on these lines lets through its count of records per checkpoint. */
    @Test
    void perCheckpointLetsThroughItsCountPerCheckpoint() {
        BackfillRateLimit limit =
                BackfillRateLimit.of(
                        FlinkRateLimiterStrategies.perPoll(RateLimiterStrategy.perCheckpoint(10))
                                .create(1));
        // a poll's records are emitted before its permits are asked: the poll that finds the
        // capacity used up waits, so the first cycle lets one poll more through
        assertThat(deliveredOverTenCheckpoints(limit)).isEqualTo(15 + 9 * 10);
    }

    static int deliveredOverTenCheckpoints(BackfillRateLimit limit) {
        int delivered = 0;
        for (long checkpoint = 1; checkpoint <= 10; checkpoint++) {
            while (limit.mayPoll()) {
                limit.delivered(5, () -> {});
                delivered += 5;
            }
            limit.notifyCheckpointComplete(checkpoint);
        }
        return delivered;
    }
}
