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
 */
@Internal
public final class BackfillRecord {

    private final Object raw;
    private final long offset;
    private final long timestamp;
    private final boolean live;

    BackfillRecord(Object raw, long offset, long timestamp, boolean live) {
        this.raw = raw;
        this.offset = offset;
        this.timestamp = timestamp;
        this.live = live;
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
