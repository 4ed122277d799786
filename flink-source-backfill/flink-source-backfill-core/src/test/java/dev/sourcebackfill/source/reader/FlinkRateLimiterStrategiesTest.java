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

import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.util.InstantiationUtil;

import org.junit.jupiter.api.Test;

import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Flink's rate limiter strategies as the reader's per-poll limiters, on every Flink line (what
 * differs between lines is tested in the lines' own folders).
 */
class FlinkRateLimiterStrategiesTest {

    @Test
    void aPollBeyondTheCheckpointsCapacityWaitsForTheNextCompletedCheckpoint() {
        PollLimiter limiter =
                FlinkRateLimiterStrategies.perPoll(RateLimiterStrategy.perCheckpoint(1)).create(1);
        assertThat(limiter.acquire(1).toCompletableFuture()).isDone();
        CompletableFuture<Void> second = limiter.acquire(1).toCompletableFuture();
        assertThat(second).as("the second record in one checkpoint's cycle").isNotDone();
        limiter.checkpointComplete(7);
        assertThat(second).isCompletedWithValue(null);
    }

    /** A reader that read no backfill yet (live only, or idle) sees checkpoints complete. */
    @Test
    void aCheckpointCompletedBeforeTheFirstPollIsNoFailure() {
        BackfillRateLimit limit =
                BackfillRateLimit.of(
                        FlinkRateLimiterStrategies.perPoll(RateLimiterStrategy.perCheckpoint(10))
                                .create(1));
        assertThatCode(() -> limit.notifyCheckpointComplete(1)).doesNotThrowAnyException();
        limit.delivered(10, () -> {});
        CompletableFuture<Void> waited = new CompletableFuture<>();
        limit.delivered(1, () -> waited.complete(null));
        assertThat(limit.mayPoll()).as("the capacity of checkpoint 2's cycle is used").isFalse();
        limit.notifyCheckpointComplete(2);
        assertThat(limit.mayPoll()).isTrue();
        assertThat(waited).isDone();
    }

    @Test
    void theAdaptedStrategyTravelsWithTheSourceAndIsNamedInItsSettings() throws Exception {
        PollLimiter.Factory factory =
                FlinkRateLimiterStrategies.perPoll(RateLimiterStrategy.perSecond(100));
        PollLimiter.Factory copy = InstantiationUtil.clone(factory, getClass().getClassLoader());
        assertThat(copy.create(2).acquire(1).toCompletableFuture().get()).isNull();
        assertThat(factory.toString()).startsWith("Flink's ");
    }

    @Test
    void noStrategyIsRefusedWhereItIsSet() {
        assertThatThrownBy(() -> FlinkRateLimiterStrategies.perPoll(null))
                .isInstanceOf(NullPointerException.class)
                .hasMessageContaining("backfill rate limiter strategy");
    }

    @Test
    void theUnlimitedFactoryGrantsAtOnceAndSaysSo() throws Exception {
        PollLimiter.Factory unlimited = PollLimiter.Factory.unlimited();
        assertThat(unlimited.create(4).acquire(1_000_000).toCompletableFuture()).isDone();
        assertThat(InstantiationUtil.clone(unlimited, getClass().getClassLoader()))
                .isSameAs(unlimited);
        assertThat(unlimited).hasToString("no backfill rate limit");
    }
}
