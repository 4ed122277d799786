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

import dev.sourcebackfill.source.split.SplitKind;

import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.source.SourceReaderContext;

import java.io.Serializable;
import java.util.Optional;

/**
 * What a concrete log (Kafka partitions, archived files in front of a live log, ...) supplies to
 * {@code BackfillSource}. It is serialized into the job graph and used on the JobManager (split
 * discovery) and on every TaskManager (the two readers), so it must hold configuration only.
 *
 * <p>Every record belongs to one split and has a {@code long} offset, strictly increasing within
 * the split but not necessarily contiguous (compaction or transaction markers leave holes). The
 * backfill reader and the live reader must agree on offsets: the same offset is the same record in
 * both.
 *
 * @param <T> the type of records
 */
@PublicEvolving
public interface BackfillLog<T> extends Serializable {

    /** Creates the discoverer that lists the log's splits; runs in the enumerator. */
    LogSplitDiscoverer createSplitDiscoverer() throws Exception;

    /**
     * How the splits' history is read: its reader and the deserializer of that reader's records.
     * Called on every TaskManager, once per source reader.
     */
    LogReading<?, T> backfillReading();

    /**
     * How the splits are read live, after their handover: the live reader and the deserializer of
     * its records. Called on every TaskManager, once per source reader.
     */
    LogReading<?, T> liveReading();

    /**
     * Whether the live reader can start a split at a given offset and reads nothing of a split it
     * has not been given (a job's own consumer). Then a backfilling split is not given to the live
     * reader at all and is handed over by seeking it to the first offset not backfilled. If {@code
     * false} (a shared or push-based feed), the live reader delivers what it has and the source
     * drops what the backfill already covered.
     */
    boolean isLiveSeekable();

    /**
     * Creates what commits the positions of completed checkpoints back to the log, if this log does
     * that (one per source reader); none by default.
     */
    default Optional<OffsetCommitter> createOffsetCommitter(SourceReaderContext context)
            throws Exception {
        return Optional.empty();
    }

    /**
     * Whether every split this log discovers has a stopping offset, as a bounded source needs
     * ({@code BackfillSourceBuilder.setBounded()} is refused at build time otherwise); {@code
     * false} by default.
     */
    default boolean hasStoppingOffsets() {
        return false;
    }

    /**
     * Whether a split's history can be read in chunks ({@code setBackfillChunkSize}): the backfill
     * reader starts a split at any offset its discoverer cut at ({@link
     * LogSplitDiscoverer#cutHistory}), the same split again after {@link LogReader#removeSplit},
     * and its records' offsets are the log's own, so that a chunk ends exactly where the next
     * begins. {@code false} by default: chunks are refused at build time.
     */
    default boolean supportsHistoryChunks() {
        return false;
    }

    /**
     * The kind of a split restored from state written before splits had a kind (split serializer
     * version 4 and older) that is not a chunk, by its id: {@link SplitKind#LOG} by default. A log
     * whose discoverer found history splits of its own ({@link DiscoveredSplit#historyOnly}) in
     * those releases tells them apart here; their ids had a form of their own.
     */
    default SplitKind kindOfSplitStoredWithoutKind(String splitId) {
        return SplitKind.LOG;
    }

    /** The type of the values the deserializers make. */
    TypeInformation<T> getProducedType();
}
