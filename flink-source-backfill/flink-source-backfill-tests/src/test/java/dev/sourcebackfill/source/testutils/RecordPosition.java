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

import java.io.Serializable;

/**
 * Where a record of a test job comes from: its partition, its offset there, and whether the history
 * (an archive, a table) gave it rather than the topic. The failure injector and the checker of the
 * history-before-Kafka ITCases are driven by it ({@link FailOnce}, {@link PartitionChecker}).
 */
@FunctionalInterface
public interface RecordPosition<T> extends Serializable {

    /** The record's partition, offset and origin. */
    Position of(T record);

    /** A record's place: partition, offset, and whether the history gave it. */
    record Position(int partition, long offset, boolean fromHistory) {}

    /**
     * Values {@code "<origin>|<partition>|<offset>"}, as the ITCases write them: from the history
     * when the origin is {@code historyOrigin}.
     */
    static RecordPosition<String> delimited(String historyOrigin) {
        return value -> {
            int first = value.indexOf('|');
            int second = value.indexOf('|', first + 1);
            int end = value.indexOf('|', second + 1);
            return new Position(
                    Integer.parseInt(value.substring(first + 1, second)),
                    Long.parseLong(value.substring(second + 1, end < 0 ? value.length() : end)),
                    value.substring(0, first).equals(historyOrigin));
        };
    }
}
