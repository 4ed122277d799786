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
package dev.sourcebackfill.source.datagen;

import dev.sourcebackfill.source.spi.BackfillLog;
import dev.sourcebackfill.source.spi.DiscoveredSplit;
import dev.sourcebackfill.source.spi.LogReading;
import dev.sourcebackfill.source.spi.LogSplitDiscoverer;

import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.util.Collector;

import javax.annotation.Nullable;

import java.util.ArrayList;
import java.util.List;

/**
 * A deterministic partitioned log, for tests and demos. Its content is a pure function of its
 * configuration and the wall clock, so every JVM of a cluster sees the same log:
 *
 * <ul>
 *   <li>partition {@code p} appears at {@code epoch} (the first {@code partitions}) or at {@code
 *       epoch + (i + 1) * lateSplitDelay} (the {@code i}-th late one) with offsets {@code [0,
 *       history + p * historyStep)} already written;
 *   <li>from then on it grows by {@code liveRatePerSecond} offsets a second;
 *   <li>with {@code compactionHoleEvery = k > 0}, offset {@code o} of partition {@code p} has no
 *       record when {@code (o + p) % k == 0}, like a compacted topic;
 *   <li>when bounded, partition {@code p} stops at its history's end plus {@code liveRecords}
 *       (exclusive).
 * </ul>
 *
 * <p>The live reader is seekable (like a job's own Kafka consumer) or, with {@code feedReplay >=
 * 0}, a non-seekable feed that starts {@code feedReplay} offsets before the partition's head
 * whenever a split is given to it. With {@code archiveBackfill}, the backfill reader ends at {@code
 * history} like an archive would.
 */
@PublicEvolving
public final class DatagenLog implements BackfillLog<DatagenRecord> {

    private static final long serialVersionUID = 1L;

    private static final String SPLIT_PREFIX = "partition-";

    final int partitions;
    final long history;
    final long historyStep;
    final double liveRatePerSecond;
    final long compactionHoleEvery;
    final int lateSplits;
    final long lateSplitDelayMillis;

    /** {@code null} when unbounded (OptionalLong is not serializable). */
    @Nullable final Long liveRecords;

    final long epochMillis;

    /**
     * {@code null} when the live reader is seekable; else how far behind its head a feed starts.
     */
    @Nullable final Long feedReplay;

    final boolean archiveBackfill;
    final int maxRecordsPerPoll;

    DatagenLog(DatagenLogBuilder b, long epochMillis) {
        this.partitions = b.partitions;
        this.history = b.history;
        this.historyStep = b.historyStep;
        this.liveRatePerSecond = b.liveRatePerSecond;
        this.compactionHoleEvery = b.compactionHoleEvery;
        this.lateSplits = b.lateSplits;
        this.lateSplitDelayMillis = b.lateSplitDelayMillis;
        this.liveRecords = b.liveRecords.isPresent() ? b.liveRecords.getAsLong() : null;
        this.epochMillis = epochMillis;
        this.feedReplay = b.feedReplay;
        this.archiveBackfill = b.archiveBackfill;
        this.maxRecordsPerPoll = b.maxRecordsPerPoll;
    }

    public static DatagenLogBuilder builder() {
        return new DatagenLogBuilder();
    }

    public static String splitId(int partition) {
        return SPLIT_PREFIX + partition;
    }

    public static int partitionOf(String splitId) {
        if (!splitId.startsWith(SPLIT_PREFIX)) {
            throw new IllegalArgumentException("Not a datagen-log split: " + splitId);
        }
        return Integer.parseInt(splitId.substring(SPLIT_PREFIX.length()));
    }

    // ------------------------------------------------------------------ the log's content

    /** All partitions, the late ones included. */
    public int totalPartitions() {
        return partitions + lateSplits;
    }

    public long appearsAtMillis(int partition) {
        return partition < partitions
                ? epochMillis
                : epochMillis + (long) (partition - partitions + 1) * lateSplitDelayMillis;
    }

    /** Whether offset {@code offset} of {@code partition} has a record. */
    public boolean exists(int partition, long offset) {
        if (offset < 0 || (liveRecords != null && offset >= stoppingOffset(partition))) {
            return false;
        }
        return compactionHoleEvery <= 0 || (offset + partition) % compactionHoleEvery != 0;
    }

    /** The end (exclusive) of what the partition holds at {@code nowMillis}. */
    public long headAt(int partition, long nowMillis) {
        long appears = appearsAtMillis(partition);
        if (nowMillis < appears) {
            return 0;
        }
        long live = (long) Math.floor((nowMillis - appears) * liveRatePerSecond / 1000.0);
        long head = historyOf(partition) + live;
        return liveRecords != null ? Math.min(head, stoppingOffset(partition)) : head;
    }

    /** The stopping offset (exclusive) of a partition when bounded. */
    public long stoppingOffset(int partition) {
        if (liveRecords == null) {
            throw new IllegalStateException("The datagen log is unbounded: no stopping offset");
        }
        return historyOf(partition) + liveRecords;
    }

    /** The end (exclusive) of the partition's history: what it holds when it appears. */
    public long historyOf(int partition) {
        return history + partition * historyStep;
    }

    public boolean isBounded() {
        return liveRecords != null;
    }

    @Override
    public boolean hasStoppingOffsets() {
        return isBounded();
    }

    /** How many records a bounded partition has in all. */
    public long recordCount(int partition) {
        long n = 0;
        for (long o = 0; o < stoppingOffset(partition); o++) {
            n += exists(partition, o) ? 1 : 0;
        }
        return n;
    }

    public int initialPartitions() {
        return partitions;
    }

    /** The most records one poll of a reader of this log delivers. */
    public int maxRecordsPerPoll() {
        return maxRecordsPerPoll;
    }

    public long epochMillis() {
        return epochMillis;
    }

    /** The record at {@code offset} of {@code partition} (the caller checks {@link #exists}). */
    public DatagenRecord record(int partition, long offset) {
        return new DatagenRecord(
                partition, offset, timestampOf(partition, offset), payloadOf(partition, offset));
    }

    /** The event time of the record at {@code offset} of {@code partition}. */
    long timestampOf(int partition, long offset) {
        long appears = appearsAtMillis(partition);
        long history = historyOf(partition);
        return offset < history
                ? appears - (history - offset)
                : appears + (long) ((offset - history + 1) * 1000.0 / liveRatePerSecond);
    }

    public static long payloadOf(int partition, long offset) {
        long z = partition * 0x9E3779B97F4A7C15L + offset;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    // ------------------------------------------------------------------ BackfillLog

    @Override
    public LogSplitDiscoverer createSplitDiscoverer() {
        return new LogSplitDiscoverer() {
            @Override
            public List<DiscoveredSplit> discoverSplits(boolean initial) {
                long now = System.currentTimeMillis();
                List<DiscoveredSplit> found = new ArrayList<>();
                for (int p = 0; p < totalPartitions(); p++) {
                    if (now < appearsAtMillis(p)) {
                        continue;
                    }
                    // partitions created after the job started are read whole by the live reader
                    DiscoveredSplit split =
                            initial || p < partitions
                                    ? DiscoveredSplit.backfilled(splitId(p), 0, headAt(p, now))
                                    : DiscoveredSplit.readByLive(splitId(p), 0);
                    found.add(isBounded() ? split.withStoppingOffset(stoppingOffset(p)) : split);
                }
                return found;
            }

            @Override
            public boolean mayDiscoverMoreSplits() {
                return System.currentTimeMillis() < appearsAtMillis(totalPartitions() - 1);
            }

            /** Every chunk size offsets, where the backfill has them (an archive's history). */
            @Override
            public List<Long> cutHistory(DiscoveredSplit split, long from, long to, long chunkSize)
                    throws Exception {
                long end =
                        archiveBackfill
                                ? Math.min(to, historyOf(partitionOf(split.splitId())))
                                : to;
                return LogSplitDiscoverer.super.cutHistory(split, from, end, chunkSize);
            }
        };
    }

    /** The backfill reader starts a partition at any offset, and again after it let go of it. */
    @Override
    public boolean supportsHistoryChunks() {
        return true;
    }

    /**
     * The backfill reader delivers each record's partition only (its offset and timestamp come with
     * it): the record is made in the source's task thread, by {@link #record}.
     */
    @Override
    public LogReading<Integer, DatagenRecord> backfillReading() {
        return LogReading.of(
                context -> new DatagenLogReader(this, DatagenLogReader.Role.BACKFILL),
                context -> this::makeRecord);
    }

    /** The live reader: as {@link #backfillReading()}. */
    @Override
    public LogReading<Integer, DatagenRecord> liveReading() {
        return LogReading.of(
                context ->
                        new DatagenLogReader(
                                this,
                                feedReplay != null
                                        ? DatagenLogReader.Role.LIVE_FEED
                                        : DatagenLogReader.Role.LIVE_SEEKABLE),
                context -> this::makeRecord);
    }

    private void makeRecord(
            String splitId, long offset, Integer partition, Collector<DatagenRecord> out) {
        out.collect(record(partition, offset));
    }

    @Override
    public boolean isLiveSeekable() {
        return feedReplay == null;
    }

    @Override
    public TypeInformation<DatagenRecord> getProducedType() {
        return TypeInformation.of(DatagenRecord.class);
    }

    @Override
    public String toString() {
        return "DatagenLog{partitions="
                + partitions
                + ", history="
                + history
                + (historyStep > 0 ? "+" + historyStep + "*p" : "")
                + ", liveRate="
                + liveRatePerSecond
                + "/s, holeEvery="
                + compactionHoleEvery
                + ", lateSplits="
                + lateSplits
                + (liveRecords != null ? ", live records=" + liveRecords : "")
                + (feedReplay != null ? ", feed" : ", seekable live reader")
                + '}';
    }
}
