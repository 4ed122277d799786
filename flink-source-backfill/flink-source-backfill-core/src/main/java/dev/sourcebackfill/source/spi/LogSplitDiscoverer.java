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

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/** Lists the splits of a log. Runs in the enumerator, never concurrently with itself. */
@PublicEvolving
public interface LogSplitDiscoverer extends AutoCloseable {

    /**
     * Lists every split the log has now, with its current positions. Splits already known are
     * ignored by the caller, so returning them again is fine.
     *
     * @param initial {@code true} for the discovery at the job's first start; splits found later
     *     may be marked {@link DiscoveredSplit#liveReadsWholeSplit()}
     */
    List<DiscoveredSplit> discoverSplits(boolean initial) throws Exception;

    /**
     * Whether later discoveries may still find new splits. A bounded source tells its readers that
     * no more splits come once this is {@code false}.
     */
    default boolean mayDiscoverMoreSplits() {
        return true;
    }

    /**
     * Where to cut a split's history into chunks of about {@code chunkSize} records, when the
     * source is told to ({@link BackfillLog#supportsHistoryChunks()}): the offsets, in increasing
     * order and each strictly between {@code from} and {@code to}, at which a chunk starts. The
     * history {@code [from, to)} is read as the chunks {@code [from, c1), [c1, c2), ..., [cn, to)};
     * the last of them stays with the split itself. An empty list leaves the history in one piece.
     *
     * <p>Called once per split, at the job's first discovery, in the enumerator's discovery thread.
     * The default cuts every {@code chunkSize} offsets, for a log whose offsets count its records
     * (a Kafka partition); a log of files overrides it to cut at file boundaries.
     *
     * @param split the split as this discoverer found it
     * @param from the first offset of the history to cut
     * @param to the offset where the history ends (exclusive): the live reader's start, or the
     *     split's stop if that comes first
     */
    default List<Long> cutHistory(DiscoveredSplit split, long from, long to, long chunkSize)
            throws Exception {
        List<Long> cuts = new ArrayList<>();
        for (long cut = from + chunkSize; cut < to && cut > from; cut += chunkSize) {
            cuts.add(cut);
        }
        return cuts;
    }

    /**
     * Forward mode is confirmed: a completed checkpoint's own enumerator snapshot had every split
     * {@code FINISHED} (or ended), so neither a restore from that checkpoint or a later one nor a
     * failover reads any split's history again. A log may now release what it kept for reading its
     * history (the Iceberg adapter removes the tag that kept its pinned snapshot from expiring).
     *
     * <p>Called in the enumerator's worker thread, the one {@link #discoverSplits} runs in (never
     * concurrently with it), each time forward mode is confirmed: again after a failover made the
     * source leave it. Also in an enumerator restored from a checkpoint, whose discoverer did not
     * discover the splits itself: {@code splitIds} are those of the enumerator's state, which is
     * all such a discoverer learns of the splits its first start made. An exception is logged and
     * counted ({@code forwardModeHookFailures} in the enumerator's metrics) and never fails the
     * job; the call is not retried until forward mode is confirmed again.
     *
     * @param checkpointId the completed checkpoint that confirmed forward mode
     * @param splitIds the ids of every log split the enumerator tracks (not their history chunks)
     * @param historyVersions the history versions those splits' backfills read ({@link
     *     DiscoveredSplit#withHistoryVersion}), each once; empty if the log fixes none
     */
    default void onForwardMode(long checkpointId, Set<String> splitIds, Set<String> historyVersions)
            throws Exception {
        onForwardMode(checkpointId, splitIds);
    }

    /**
     * The hook before history versions: called by the default {@link #onForwardMode(long, Set,
     * Set)}, so that a discoverer written for it is still called.
     *
     * @deprecated implement {@link #onForwardMode(long, Set, Set)}
     */
    @Deprecated
    default void onForwardMode(long checkpointId, Set<String> splitIds) throws Exception {}

    @Override
    default void close() throws Exception {}
}
