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

/** What the tests need to know of the Flink line they run on: Flink 1.x (1.20). */
public final class FlinkLineFacts {

    public static final String LINE = "1.20";

    /**
     * Flink 1.20 has no {@code numRescales} gauge: its adaptive scheduler counts a rescale in
     * {@code numRestarts} like a failover.
     */
    public static final boolean RESCALES_COUNTED_APART = false;

    /** For {@code @EnabledIf}: tests that count failovers under the adaptive scheduler. */
    public static boolean rescalesCountedApart() {
        return RESCALES_COUNTED_APART;
    }

    private FlinkLineFacts() {}
}
