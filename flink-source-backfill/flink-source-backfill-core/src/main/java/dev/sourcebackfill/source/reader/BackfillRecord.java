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

/** A record the fetcher hands to the task thread, with the offset it has in its split. */
@Internal
public final class BackfillRecord<T> {

    private final T value;
    private final long offset;
    private final long timestamp;

    BackfillRecord(T value, long offset, long timestamp) {
        this.value = value;
        this.offset = offset;
        this.timestamp = timestamp;
    }

    T value() {
        return value;
    }

    long offset() {
        return offset;
    }

    long timestamp() {
        return timestamp;
    }

    @Override
    public String toString() {
        return "Record{offset=" + offset + '}';
    }
}
