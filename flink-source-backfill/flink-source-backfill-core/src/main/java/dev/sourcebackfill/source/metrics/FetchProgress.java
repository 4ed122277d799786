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
package dev.sourcebackfill.source.metrics;

import org.apache.flink.annotation.Internal;
import org.apache.flink.runtime.metrics.groups.InternalSourceReaderMetricGroup;

import java.util.OptionalLong;

/**
 * What the fetcher thread publishes once per fetch for the reader's gauges, read from reporter
 * threads: the live reader's lag behind the log's end, if its log knows it, and the fetch lag of
 * the last record fetched.
 */
@Internal
public final class FetchProgress {

    private volatile OptionalLong liveLag = OptionalLong.empty();
    private volatile long fetchEventTimeLag = InternalSourceReaderMetricGroup.UNDEFINED;

    /** The live reader's records behind the end of the log; empty if it cannot tell. */
    public void liveLag(OptionalLong records) {
        liveLag = records.isPresent() ? OptionalLong.of(Math.max(0, records.getAsLong())) : records;
    }

    public OptionalLong liveLag() {
        return liveLag;
    }

    /**
     * A fetch at {@code fetchTimeMillis} whose last record has the log timestamp given; a record
     * without a timestamp (negative: Flink's {@code NO_TIMESTAMP}, Kafka's -1) changes nothing.
     */
    public void fetched(long fetchTimeMillis, long lastRecordTimestamp) {
        if (lastRecordTimestamp >= 0) {
            fetchEventTimeLag = fetchTimeMillis - lastRecordTimestamp;
        }
    }

    /**
     * Fetch time minus the timestamp of the last record fetched (FLIP-33's {@code
     * currentFetchEventTimeLag}); Flink's undefined value (-1) before the first record.
     */
    public long fetchEventTimeLag() {
        return fetchEventTimeLag;
    }
}
