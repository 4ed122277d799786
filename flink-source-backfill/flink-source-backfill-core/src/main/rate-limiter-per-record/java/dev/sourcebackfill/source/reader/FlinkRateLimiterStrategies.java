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
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiter;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.util.Preconditions;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Flink 1.20 to 2.1: a {@link RateLimiterStrategy} as the reader's {@link PollLimiter}s. Flink
 * 1.20's limiter grants one record per acquisition and knows nothing of splits, so a poll of {@code
 * n} records acquires {@code n} times, one after another (as their rate-limited readers do, one per
 * record), and the poll may go on once the last is granted.
 */
@Internal
public final class FlinkRateLimiterStrategies {

    private FlinkRateLimiterStrategies() {}

    /** The strategy's limiters, one per reader, each asked once per backfill poll. */
    public static PollLimiter.Factory perPoll(RateLimiterStrategy strategy) {
        Preconditions.checkNotNull(strategy, "the backfill rate limiter strategy is null");
        return new Adapted(strategy);
    }

    private static final class Adapted implements PollLimiter.Factory {
        private static final long serialVersionUID = 1L;
        private final RateLimiterStrategy strategy;

        Adapted(RateLimiterStrategy strategy) {
            this.strategy = strategy;
        }

        @Override
        public PollLimiter create(int parallelism) {
            RateLimiter limiter = strategy.createRateLimiter(parallelism);
            return new PollLimiter() {
                /** Flink's gated limiter has no gate to open before its first acquisition. */
                private boolean acquired;

                @Override
                public CompletionStage<Void> acquire(int records) {
                    acquired = true;
                    return new OneByOne(limiter, records).start();
                }

                @Override
                public void checkpointComplete(long checkpointId) {
                    // a permit granted meanwhile asks for the next one from its own thread: both
                    // use Flink's limiter under its lock, which it does not expect to be shared
                    synchronized (limiter) {
                        if (acquired) {
                            limiter.notifyCheckpointComplete(checkpointId);
                        }
                    }
                }
            };
        }

        @Override
        public String toString() {
            return "Flink's " + strategy;
        }
    }

    /**
     * Acquires {@code records} permits, each once the one before was granted: grants that come at
     * once are taken in a loop, one that must wait continues the loop from its callback (on the
     * thread that granted it). A failure of the limiter, thrown or as a failed permit, fails the
     * whole acquisition.
     */
    private static final class OneByOne {
        private final RateLimiter limiter;
        private final CompletableFuture<Void> done = new CompletableFuture<>();
        private int left;

        OneByOne(RateLimiter limiter, int records) {
            this.limiter = limiter;
            this.left = records;
        }

        CompletableFuture<Void> start() {
            next();
            return done;
        }

        private void next() {
            while (left > 0) {
                left--;
                CompletableFuture<Void> grant;
                try {
                    synchronized (limiter) {
                        grant = limiter.acquire().toCompletableFuture();
                    }
                } catch (Throwable t) {
                    done.completeExceptionally(t);
                    return;
                }
                if (!grant.isDone()) {
                    grant.whenComplete(
                            (ok, error) -> {
                                if (error != null) {
                                    done.completeExceptionally(error);
                                } else {
                                    next();
                                }
                            });
                    return;
                }
                if (grant.isCompletedExceptionally()) {
                    grant.whenComplete((ok, error) -> done.completeExceptionally(error));
                    return;
                }
            }
            done.complete(null);
        }
    }
}
