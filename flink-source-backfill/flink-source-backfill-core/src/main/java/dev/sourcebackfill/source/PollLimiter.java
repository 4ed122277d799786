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
package dev.sourcebackfill.source;

import dev.sourcebackfill.source.split.BackfillSplit;

import org.apache.flink.annotation.Internal;

import java.io.Serializable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * How one reader asks for permission to go on after a backfill poll: for all the records the poll
 * delivered at once. The reader's own interface, the same on every Flink line; a rate limiter
 * strategy of Flink's is adapted to it where the builder takes it ({@link
 * dev.sourcebackfill.source.reader.FlinkRateLimiterStrategies}), since Flink's limiters differ
 * between lines (one record per permit up to 2.1, a batch per permit and told of splits from 2.2).
 */
@Internal
public interface PollLimiter {

    /** Completes when {@code records} more records may be read. */
    CompletionStage<Void> acquire(int records);

    /** The reader was given {@code split}. */
    default void splitAdded(BackfillSplit split) {}

    /** Checkpoint {@code checkpointId} completed. */
    default void checkpointComplete(long checkpointId) {}

    /** A limiter that grants everything at once. */
    static PollLimiter unlimited() {
        return records -> CompletableFuture.completedFuture(null);
    }

    /** Makes each reader's limiter, given the source's parallelism. */
    @FunctionalInterface
    interface Factory extends Serializable {

        PollLimiter create(int parallelism);

        /** The factory of limiters that limit nothing. */
        static Factory unlimited() {
            return Unlimited.INSTANCE;
        }
    }

    /** The factory of limiters that limit nothing, named in the source's settings. */
    final class Unlimited implements Factory {
        private static final long serialVersionUID = 1L;
        static final Unlimited INSTANCE = new Unlimited();

        private Unlimited() {}

        @Override
        public PollLimiter create(int parallelism) {
            return PollLimiter.unlimited();
        }

        @Override
        public String toString() {
            return "no backfill rate limit";
        }

        private Object readResolve() {
            return INSTANCE;
        }
    }
}
