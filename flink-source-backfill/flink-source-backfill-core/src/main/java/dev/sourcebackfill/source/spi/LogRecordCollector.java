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
package dev.sourcebackfill.source.spi;

import dev.sourcebackfill.source.OffsetGapException;
import dev.sourcebackfill.source.OffsetGapPolicy;

import org.apache.flink.annotation.PublicEvolving;

/**
 * Receives the records a {@link LogReader} delivers, in their raw form.
 *
 * @param <R> the type of the raw records
 */
@PublicEvolving
@FunctionalInterface
public interface LogRecordCollector<R> {

    /**
     * @param splitId the record's split
     * @param offset the record's offset within its split
     * @param timestamp the record's event time in epoch milliseconds
     * @param record the record, which the {@link LogRecordDeserializer} of the reader's {@link
     *     LogReading} makes values of, in the task thread: it must not change once delivered
     */
    void collect(String splitId, long offset, long timestamp, R record);

    /**
     * The reader was to read the split from offset {@code from}, but its log starts at {@code to}
     * now: offsets {@code from..to-1} were deleted (retention) and will never be delivered. The
     * source applies its {@link OffsetGapPolicy} to those it has from no other reader: under {@link
     * OffsetGapPolicy#FAIL} this throws an {@link OffsetGapException} naming the split and the
     * offsets (offsets emitted already, or that a split's backfill may still read, are no loss: the
     * source checks them once the backfill stopped); when it returns, the reader goes on reading
     * the split at {@code to}. A reader that finds such a gap must call this rather than jump over
     * it silently.
     */
    default void offsetsDeleted(String splitId, long from, long to) {
        throw OffsetGapException.deleted(splitId, from, to);
    }
}
