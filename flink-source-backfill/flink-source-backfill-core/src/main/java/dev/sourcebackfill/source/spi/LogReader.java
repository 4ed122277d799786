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

import java.io.IOException;
import java.time.Duration;
import java.util.Collection;
import java.util.OptionalLong;

/**
 * Reads records of many splits of one log; used once for the backfill and once for the live reader.
 * All methods are called from one thread (the source's fetcher thread), except {@link #wakeUp()}.
 * It delivers records in their raw form (for Kafka the consumer's byte records): the values are
 * made of them by the {@link LogRecordDeserializer} of the same {@link LogReading}, in the task
 * thread, as they are emitted.
 *
 * <p>Positions are the next offset the reader would deliver for a split: every offset below the
 * position that this reader will ever deliver has been delivered. A position may move past offsets
 * that have no record (transaction markers, compaction), which is how the source decides a handover
 * without waiting for a record that never comes.
 *
 * @param <R> the type of the raw records
 */
@PublicEvolving
public interface LogReader<R> extends AutoCloseable {

    /**
     * Starts reading a split at {@code startOffset}. A non-seekable live reader may ignore the
     * offset and deliver from wherever its feed is.
     */
    void addSplit(String splitId, long startOffset) throws IOException;

    /**
     * Starts reading a split at {@code startOffset} in the given version of the log's history, the
     * one its discoverer fixed ({@link DiscoveredSplit#withHistoryVersion}); the same version at
     * every start of the split, after restores too. Called instead of {@link #addSplit(String,
     * long)} for a split with a history version; a reader of a log that fixes none need not
     * implement it.
     *
     * @throws IOException if the version cannot be read any more (an expired snapshot): the message
     *     names the split and the version
     */
    default void addSplit(String splitId, long startOffset, String historyVersion)
            throws IOException {
        throw new UnsupportedOperationException(
                "Split "
                        + splitId
                        + " has the history version "
                        + historyVersion
                        + ", which this log's reader does not read");
    }

    /**
     * Stops reading a split; nothing of it is delivered after this returns. Never called from
     * inside {@link #poll}.
     */
    void removeSplit(String splitId) throws IOException;

    /**
     * Delivers available records, waiting at most {@code maxWait} when none are available. Records
     * of one split come in increasing offset order. Memory is the reader's own batch: the source
     * hands each batch on before polling again.
     */
    void poll(Duration maxWait, LogRecordCollector<R> collector) throws IOException;

    /** The read position of a split (see the class comment). */
    long position(String splitId) throws IOException;

    /** The lowest offset of the split this reader can still deliver (after retention). */
    long earliestOffset(String splitId) throws IOException;

    /**
     * Whether this reader has delivered everything it will ever have of the split: a bounded
     * backfill (an archive) that ended. Live readers return {@code false}.
     */
    default boolean isEndOfSplit(String splitId) throws IOException {
        return false;
    }

    /**
     * Stops delivering the splits in {@code toPause} and delivers those in {@code toResume} again,
     * for watermark alignment. A paused split keeps its read position: when resumed it continues at
     * the offset it would have delivered next, and nothing is skipped or delivered twice. While a
     * split is paused its {@link #position} does not move. Ids of splits this reader does not read
     * are ignored; pausing a paused split or resuming a running one does nothing.
     *
     * <p>The default throws an {@link UnsupportedOperationException}, as Flink's own split readers
     * do: a job with watermark alignment then fails unless {@code
     * pipeline.watermark-alignment.allow-unaligned-source-splits} is set.
     */
    default void pauseOrResumeSplits(Collection<String> toPause, Collection<String> toResume)
            throws IOException {
        throw new UnsupportedOperationException(
                getClass().getName()
                        + " cannot pause splits, which watermark alignment needs; implement"
                        + " LogReader.pauseOrResumeSplits, or set"
                        + " pipeline.watermark-alignment.allow-unaligned-source-splits");
    }

    /**
     * How many records of its splits this reader has not delivered yet that are in the log now (a
     * Kafka consumer's lag behind each partition's end offset), for the {@code pendingRecords}
     * metric; empty if the reader cannot tell cheaply. Called in the fetcher thread, at most a few
     * times a second.
     */
    default OptionalLong pendingRecords() throws IOException {
        return OptionalLong.empty();
    }

    /** Makes a blocking {@link #poll} return early; may be called from any thread. */
    void wakeUp();

    @Override
    void close() throws Exception;
}
