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

import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.util.Collector;

import java.io.IOException;

/**
 * Makes the values of the records one {@link LogReader} delivers: the step a Kafka source takes in
 * its record emitter. It runs in the source's task thread, as the records are emitted, so the
 * fetcher thread only reads; a reader's raw records and its deserializer come from the same {@link
 * LogReading}.
 *
 * <p>A record may make no value (a tombstone, a record the job filters out), one, or several (a
 * batch, a key row and a value row); exactly-once holds per offset: every value of an offset is
 * emitted before the split's checkpointed position moves past it, and a checkpoint never falls
 * between two values of one offset.
 *
 * @param <R> the records the reader delivers
 * @param <T> the values the source emits
 */
@PublicEvolving
@FunctionalInterface
public interface LogRecordDeserializer<R, T> {

    /**
     * Makes the values of one record and hands them to {@code out}, in the order they are to be
     * emitted; each is emitted with the timestamp the reader gave the record.
     *
     * @param splitId the log split the record belongs to (for a chunk of history, the split it is a
     *     chunk of)
     * @param offset the record's offset within its split
     * @param record the record as the reader delivered it
     * @param out takes the record's values; may be given none
     * @throws IOException if the record cannot be read; the source fails the job with an error
     *     naming the split and the offset
     */
    void deserialize(String splitId, long offset, R record, Collector<T> out) throws IOException;

    /** For readers that deliver the values themselves: each record is its own value. */
    static <T> LogRecordDeserializer<T, T> asValues() {
        return (splitId, offset, record, out) -> out.collect(record);
    }
}
