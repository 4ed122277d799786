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

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiter;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.util.Preconditions;

import java.util.concurrent.CompletionStage;

/**
 * Flink 2.2 and later: a {@link RateLimiterStrategy} as the reader's {@link PollLimiter}s. Flink's
 * limiter takes a whole poll's records in one acquisition and is told of the splits added.
 */
@Internal
public final class FlinkRateLimiterStrategies {

    private FlinkRateLimiterStrategies() {}

    /** The strategy's limiters, one per reader, each asked once per backfill poll. */
    @SuppressWarnings({"rawtypes", "unchecked"})
    public static PollLimiter.Factory perPoll(RateLimiterStrategy strategy) {
        Preconditions.checkNotNull(strategy, "the backfill rate limiter strategy is null");
        return new Adapted((RateLimiterStrategy<BackfillSplit>) strategy);
    }

    private static final class Adapted implements PollLimiter.Factory {
        private static final long serialVersionUID = 1L;
        private final RateLimiterStrategy<BackfillSplit> strategy;

        Adapted(RateLimiterStrategy<BackfillSplit> strategy) {
            this.strategy = strategy;
        }

        @Override
        public PollLimiter create(int parallelism) {
            RateLimiter<BackfillSplit> limiter = strategy.createRateLimiter(parallelism);
            return new PollLimiter() {
                /** Flink's gated limiter has no gate to open before its first acquisition. */
                private boolean acquired;

                @Override
                public CompletionStage<Void> acquire(int records) {
                    acquired = true;
                    return limiter.acquire(records);
                }

                @Override
                public void splitAdded(BackfillSplit split) {
                    limiter.notifyAddingSplit(split);
                }

                @Override
                public void checkpointComplete(long checkpointId) {
                    if (acquired) {
                        limiter.notifyCheckpointComplete(checkpointId);
                    }
                }
            };
        }

        @Override
        public String toString() {
            return "Flink's " + strategy;
        }
    }
}
