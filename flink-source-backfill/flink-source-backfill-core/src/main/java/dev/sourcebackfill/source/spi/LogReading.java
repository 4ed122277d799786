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
import org.apache.flink.api.connector.source.SourceReaderContext;

/**
 * One of a log's two ways in, the backfill's or the live reader's: the {@link LogReader} that
 * fetches raw records, in the source's fetcher thread, and the {@link LogRecordDeserializer} that
 * makes values of them, in its task thread.
 *
 * @param <R> the records the reader delivers (for Kafka the consumer's byte records)
 * @param <T> the values the source emits
 */
@PublicEvolving
public interface LogReading<R, T> {

    /**
     * Creates a reader; one per source reader, which reads many splits. Called in the fetcher
     * thread; the backfill's reader is closed when its source reader enters forward mode and
     * created again if a split needs it later.
     */
    LogReader<R> createReader(SourceReaderContext context) throws Exception;

    /**
     * Creates the deserializer of the reader's records; one per source reader, created with it and
     * used in its task thread only.
     */
    LogRecordDeserializer<R, T> createDeserializer(SourceReaderContext context) throws Exception;

    /** Creates a {@link LogReader} (see {@link #createReader}). */
    @FunctionalInterface
    interface ReaderFactory<R> {
        LogReader<R> create(SourceReaderContext context) throws Exception;
    }

    /** Creates a {@link LogRecordDeserializer} (see {@link #createDeserializer}). */
    @FunctionalInterface
    interface DeserializerFactory<R, T> {
        LogRecordDeserializer<R, T> create(SourceReaderContext context) throws Exception;
    }

    /**
     * Reads with the readers of {@code readers}, their records made values by the deserializers of
     * {@code deserializers}.
     */
    static <R, T> LogReading<R, T> of(
            ReaderFactory<R> readers, DeserializerFactory<R, T> deserializers) {
        return new LogReading<>() {
            @Override
            public LogReader<R> createReader(SourceReaderContext context) throws Exception {
                return readers.create(context);
            }

            @Override
            public LogRecordDeserializer<R, T> createDeserializer(SourceReaderContext context)
                    throws Exception {
                return deserializers.create(context);
            }
        };
    }

    /**
     * Reads with readers that deliver the values themselves (each record is its own value; a format
     * that only reads whole values, say).
     */
    static <T> LogReading<T, T> ofValues(ReaderFactory<T> readers) {
        return of(readers, context -> LogRecordDeserializer.asValues());
    }
}
