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

import org.apache.flink.annotation.PublicEvolving;

import javax.annotation.Nullable;

import java.time.Duration;
import java.util.OptionalLong;

import static org.apache.flink.util.Preconditions.checkArgument;
import static org.apache.flink.util.Preconditions.checkNotNull;

/** Builds a {@link DatagenLog}; {@link #build()} checks every option and names a wrong one. */
@PublicEvolving
public final class DatagenLogBuilder {

    int partitions = 4;
    long history = 10_000;
    long historyStep = 0;
    double liveRatePerSecond = 100;
    long compactionHoleEvery = 0;
    int lateSplits = 0;
    long lateSplitDelayMillis = 5_000;
    OptionalLong liveRecords = OptionalLong.empty();

    /** {@code null}: the wall clock when the log is built. */
    @Nullable private Long epochMillis;

    /** {@code null}: a seekable live reader, no feed. */
    @Nullable Long feedReplay;

    boolean archiveBackfill = false;
    int maxRecordsPerPoll = 4096;

    DatagenLogBuilder() {}

    public DatagenLogBuilder partitions(int partitions) {
        this.partitions = partitions;
        return this;
    }

    /** Offsets {@code [0, history)} of every partition exist when it appears. */
    public DatagenLogBuilder historyPerPartition(long history) {
        this.history = history;
        return this;
    }

    /** Partition {@code p} has {@code step * p} more history than partition 0. */
    public DatagenLogBuilder historyStepPerPartition(long step) {
        this.historyStep = step;
        return this;
    }

    public DatagenLogBuilder liveRatePerSecond(double rate) {
        this.liveRatePerSecond = rate;
        return this;
    }

    /** Every {@code k}-th offset has no record (compaction); 0 for none. */
    public DatagenLogBuilder compactionHoleEvery(long k) {
        this.compactionHoleEvery = k;
        return this;
    }

    /** {@code count} partitions appear after the start, one every {@code delay}. */
    public DatagenLogBuilder lateSplits(int count, Duration delay) {
        this.lateSplits = count;
        this.lateSplitDelayMillis =
                checkNotNull(delay, "DatagenLog option lateSplits delay").toMillis();
        return this;
    }

    /** Bounded: every partition stops after {@code liveRecords} offsets past its history. */
    public DatagenLogBuilder boundedAfterLiveRecords(long liveRecords) {
        this.liveRecords = OptionalLong.of(liveRecords);
        return this;
    }

    /** The log's time zero; defaults to when {@link #build()} runs. */
    public DatagenLogBuilder epochMillis(long epochMillis) {
        this.epochMillis = epochMillis;
        return this;
    }

    /**
     * Makes the live reader a non-seekable feed that starts {@code replay} offsets behind the head
     * whenever it is given a split.
     */
    public DatagenLogBuilder feedLive(long replay) {
        this.feedReplay = replay;
        return this;
    }

    /** The backfill reader ends at the history's end, as an archive of files would. */
    public DatagenLogBuilder archiveBackfill(boolean archive) {
        this.archiveBackfill = archive;
        return this;
    }

    public DatagenLogBuilder maxRecordsPerPoll(int max) {
        this.maxRecordsPerPoll = max;
        return this;
    }

    public DatagenLog build() {
        check(partitions >= 1, "partitions must be at least 1, was " + partitions);
        check(history >= 0, "historyPerPartition must not be negative, was " + history);
        check(historyStep >= 0, "historyStepPerPartition must not be negative, was " + historyStep);
        check(
                liveRatePerSecond > 0 && Double.isFinite(liveRatePerSecond),
                "liveRatePerSecond must be positive, was " + liveRatePerSecond);
        check(
                compactionHoleEvery == 0 || compactionHoleEvery >= 2,
                "compactionHoleEvery must be 0 (none) or at least 2, was " + compactionHoleEvery);
        check(lateSplits >= 0, "lateSplits count must not be negative, was " + lateSplits);
        check(
                lateSplits == 0 || lateSplitDelayMillis > 0,
                "lateSplits delay must be positive, was " + lateSplitDelayMillis + " ms");
        check(
                liveRecords.isEmpty() || liveRecords.getAsLong() >= 0,
                "boundedAfterLiveRecords must not be negative");
        check(maxRecordsPerPoll >= 1, "maxRecordsPerPoll must be at least 1");
        check(
                feedReplay == null || feedReplay >= 0,
                "feedLive replay must not be negative, was " + feedReplay);
        return new DatagenLog(this, epochMillis != null ? epochMillis : System.currentTimeMillis());
    }

    private static void check(boolean condition, String message) {
        checkArgument(condition, "DatagenLog option %s", message);
    }
}
