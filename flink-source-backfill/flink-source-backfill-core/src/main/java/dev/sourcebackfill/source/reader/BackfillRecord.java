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

import org.apache.flink.annotation.Internal;

/**
 * A record the fetcher hands to the task thread: the raw record as its log reader delivered it,
 * with its offset, its timestamp and which reader read it. Its values are made in the emitter.
 *
 * <p>A fetch hands out one instance per split run, moved from record to record: {@code
 * SourceReaderBase} emits each record before it asks for the next one, so no record is held past
 * that (as the records of Flink's own split readers are not).
 */
@Internal
public final class BackfillRecord {

    private Object raw;
    private long offset;
    private long timestamp;
    private boolean live;

    BackfillRecord() {}

    BackfillRecord(Object raw, long offset, long timestamp, boolean live) {
        set(raw, offset, timestamp, live);
    }

    BackfillRecord set(Object raw, long offset, long timestamp, boolean live) {
        this.raw = raw;
        this.offset = offset;
        this.timestamp = timestamp;
        this.live = live;
        return this;
    }

    /** The record as the log reader delivered it. */
    Object raw() {
        return raw;
    }

    long offset() {
        return offset;
    }

    long timestamp() {
        return timestamp;
    }

    /** Whether the live reader read it (else the backfill did). */
    boolean isLive() {
        return live;
    }

    @Override
    public String toString() {
        return "Record{offset=" + offset + (live ? ", live" : ", backfill") + '}';
    }
}
