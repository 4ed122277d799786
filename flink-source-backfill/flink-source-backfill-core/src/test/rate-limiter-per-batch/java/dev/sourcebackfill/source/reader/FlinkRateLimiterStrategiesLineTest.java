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
import dev.sourcebackfill.source.split.BackfillSplit;
import dev.sourcebackfill.source.split.HandoverState;

import org.apache.flink.api.connector.source.util.ratelimit.RateLimiter;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Flink 2.2 and later: one acquisition per poll for all its records, and the splits added are told.
 */
class FlinkRateLimiterStrategiesLineTest {

    private static final List<String> CALLS = new ArrayList<>();

    /** Records what Flink's limiter is asked. */
    private static final class Recording implements RateLimiterStrategy<BackfillSplit> {
        @Override
        public RateLimiter<BackfillSplit> createRateLimiter(int parallelism) {
            CALLS.add("create(" + parallelism + ")");
            return new RateLimiter<>() {
                @Override
                public CompletionStage<Void> acquire(int numberOfEvents) {
                    CALLS.add("acquire(" + numberOfEvents + ")");
                    return CompletableFuture.completedFuture(null);
                }

                @Override
                public void notifyAddingSplit(BackfillSplit split) {
                    CALLS.add("split " + split.splitId());
                }

                @Override
                public void notifyCheckpointComplete(long checkpointId) {
                    CALLS.add("checkpoint " + checkpointId);
                }
            };
        }
    }

    @Test
    void aPollIsOneAcquisitionAndTheLimiterHearsOfSplitsAndCheckpoints() {
        CALLS.clear();
        PollLimiter limiter = FlinkRateLimiterStrategies.perPoll(new Recording()).create(3);
        limiter.splitAdded(
                new BackfillSplit("p-0", HandoverState.BACKFILLING, 0, 10, OptionalLong.empty()));
        limiter.acquire(500);
        limiter.checkpointComplete(4);
        assertThat(CALLS).containsExactly("create(3)", "split p-0", "acquire(500)", "checkpoint 4");
    }

    /**
     * Flink's perCheckpoint on these lines grants a whole poll while any capacity is left: at least
     * one poll per checkpoint, more than its count when polls are larger (documented on {@code
     * setBackfillRateLimit}).
     */
    @Test
    void perCheckpointLetsThroughOnePollBeyondItsCountPerCheckpoint() {
        BackfillRateLimit limit =
                BackfillRateLimit.of(
                        FlinkRateLimiterStrategies.perPoll(RateLimiterStrategy.perCheckpoint(10))
                                .create(1));
        int delivered = 0;
        for (long checkpoint = 1; checkpoint <= 10; checkpoint++) {
            int polls = 0;
            while (limit.mayPoll()) {
                limit.delivered(50, () -> {});
                delivered += 50;
                polls++;
            }
            assertThat(polls)
                    .as("polls granted in checkpoint %s's cycle", checkpoint)
                    .isBetween(1, 2);
            limit.notifyCheckpointComplete(checkpoint);
        }
        assertThat(delivered).isEqualTo(550);
    }
}
