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
package dev.sourcebackfill.source.testutils;

import org.apache.flink.api.common.functions.RichMapFunction;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Fails the job once at each of the given values (in the JVM of a MiniCluster test: which fired is
 * kept per run across restarts). A run's failures can be held until the test releases them, to fail
 * at a moment the test chooses.
 */
public final class FailOnce<T> extends RichMapFunction<T, T> {

    private static final Map<String, Set<String>> FIRED = new ConcurrentHashMap<>();

    /** Runs whose failures wait until the test releases them. */
    private static final Map<String, CountDownLatch> HELD = new ConcurrentHashMap<>();

    private final String run;
    private final Set<String> failAt;

    /** Fails once at each value of {@code failAt} (by its string form). */
    public FailOnce(String run, Set<String> failAt) {
        this.run = run;
        this.failAt = Set.copyOf(failAt);
    }

    /** The values at which the run failed. */
    public static Set<String> fired(String run) {
        return FIRED.getOrDefault(run, Set.of());
    }

    /** The run's failures wait for {@link #release}. */
    public static void holdUntilReleased(String run) {
        HELD.put(run, new CountDownLatch(1));
    }

    public static void release(String run) {
        HELD.get(run).countDown();
    }

    @Override
    public T map(T value) throws InterruptedException {
        String point = String.valueOf(value);
        if (failAt.contains(point)
                && FIRED.computeIfAbsent(run, k -> ConcurrentHashMap.newKeySet()).add(point)) {
            CountDownLatch held = HELD.get(run);
            if (held != null && !held.await(60, TimeUnit.SECONDS)) {
                throw new IllegalStateException("the test did not release " + point);
            }
            throw new IllegalStateException("injected failure at " + point);
        }
        return value;
    }
}
