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
package dev.sourcebackfill.source.kafka;

import dev.sourcebackfill.source.spi.DiscoveredSplit;
import dev.sourcebackfill.source.spi.LogSplitDiscoverer;

import org.apache.flink.annotation.PublicEvolving;

import java.util.List;
import java.util.Set;

/**
 * The split discoverer of a {@link HistoryBeforeKafkaLog}: the live topics' partitions, with the
 * store's history in front of them where it has some. Only the job's first discovery looks at the
 * history ({@link #discoverWithHistory}); a restored enumerator and later discoveries get the
 * topics' partitions alone (a partition found later has no history in the store that the job
 * started with).
 *
 * <p>The first discovery must refuse a store that does not belong to the topics, with the errors
 * this class makes so that every store says them alike: history of a partition the topics do not
 * have ({@link #noLiveReader}), and history beyond a partition's end ({@link #anotherIncarnation}).
 */
@PublicEvolving
public abstract class HistoryBeforeKafkaDiscoverer implements LogSplitDiscoverer {

    /** The live topics' discoverer. */
    protected final LogSplitDiscoverer liveTopics;

    protected HistoryBeforeKafkaDiscoverer(LogSplitDiscoverer topics) {
        this.liveTopics = topics;
    }

    @Override
    public final List<DiscoveredSplit> discoverSplits(boolean initial) throws Exception {
        return initial ? discoverWithHistory() : liveTopics.discoverSplits(false);
    }

    /**
     * The job's first discovery: the topics' partitions ({@code liveTopics.discoverSplits(true)},
     * asked when the history is fixed, so that the topics' end offsets are not older than it), each
     * backfilled from the store where it has history, and any splits of the history's own.
     */
    protected abstract List<DiscoveredSplit> discoverWithHistory() throws Exception;

    /** The store as the errors name it: "The archive at s3://...", "Iceberg table db.t". */
    protected abstract String historyName();

    /**
     * The store has history of a partition the topics do not have: it would have no live reader.
     *
     * @param where where the store keeps it (a file), or empty
     */
    protected final IllegalStateException noLiveReader(String partition, String where) {
        return new IllegalStateException(
                String.format(
                        "%s has rows of partition %s%s, which the topic does not have: their history would have no live reader",
                        historyName(), partition, where.isEmpty() ? "" : " (" + where + ")"));
    }

    /**
     * The store has a partition's offset at or beyond the topic's end: it is not the history of
     * this topic.
     *
     * @param where where the store keeps it (a file), or empty
     */
    protected final IllegalStateException anotherIncarnation(
            String partition, long offset, long topicEnd, String where) {
        return new IllegalStateException(
                String.format(
                        "%s has offset %d of partition %s, beyond the topic's end offset %d%s: is it the history of another incarnation of the topic?",
                        historyName(),
                        offset,
                        partition,
                        topicEnd,
                        where.isEmpty() ? "" : " (" + where + ")"));
    }

    @Override
    public final boolean mayDiscoverMoreSplits() {
        return liveTopics.mayDiscoverMoreSplits();
    }

    @Override
    public void onForwardMode(long checkpointId, Set<String> splitIds, Set<String> historyVersions)
            throws Exception {
        liveTopics.onForwardMode(checkpointId, splitIds, historyVersions);
    }

    @Override
    public void close() throws Exception {
        liveTopics.close();
    }
}
