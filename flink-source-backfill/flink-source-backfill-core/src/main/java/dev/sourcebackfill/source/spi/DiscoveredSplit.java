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

import javax.annotation.Nullable;

import java.io.Serializable;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * A split as a {@link LogSplitDiscoverer} found it.
 *
 * <p>Offsets are positions: {@code backfillStartOffset} is the first offset to read, {@code
 * liveEndOffset} is the live reader's end (high watermark, exclusive) at discovery and becomes the
 * split's backfill target, and the optional {@code stoppingOffset} (exclusive) makes the split
 * bounded.
 */
@PublicEvolving
public final class DiscoveredSplit implements Serializable {

    private static final long serialVersionUID = 1L;

    private final String splitId;
    private final SplitKind kind;
    private final long backfillStartOffset;
    private final long liveEndOffset;
    private final boolean liveReadsWholeSplit;

    /** Whether other splits of the log read the history below {@link #backfillStartOffset}. */
    private final boolean historyElsewhere;

    /** {@code null} for an unbounded split; OptionalLong is not serializable. */
    @Nullable private final Long stoppingOffset;

    /** The log's end offset at discovery, if the log told it; {@code null} if not. */
    @Nullable private final Long logEndOffset;

    /** The version of the history the backfill reads ({@link #withHistoryVersion}); or null. */
    @Nullable private final String historyVersion;

    private DiscoveredSplit(
            String splitId,
            SplitKind kind,
            long backfillStartOffset,
            long liveEndOffset,
            boolean liveReadsWholeSplit,
            boolean historyElsewhere,
            @Nullable Long stoppingOffset,
            @Nullable Long logEndOffset,
            @Nullable String historyVersion) {
        this.splitId = Objects.requireNonNull(splitId, "splitId");
        this.kind = kind;
        if (backfillStartOffset < 0 || liveEndOffset < 0) {
            throw new IllegalArgumentException(
                    String.format(
                            "Split %s: offsets must not be negative (start %d, live end %d)",
                            splitId, backfillStartOffset, liveEndOffset));
        }
        this.backfillStartOffset = backfillStartOffset;
        this.liveEndOffset = liveEndOffset;
        this.liveReadsWholeSplit = liveReadsWholeSplit;
        this.historyElsewhere = historyElsewhere;
        this.stoppingOffset = stoppingOffset;
        this.logEndOffset = logEndOffset;
        this.historyVersion = historyVersion;
    }

    /** A split whose history [start, liveEnd) is backfilled before the live reader takes over. */
    public static DiscoveredSplit backfilled(
            String splitId, long backfillStartOffset, long liveEndOffset) {
        return new DiscoveredSplit(
                splitId,
                SplitKind.LOG,
                backfillStartOffset,
                liveEndOffset,
                false,
                false,
                null,
                null,
                null);
    }

    /**
     * History read by the backfill alone ({@link SplitKind#HISTORY}): positions {@code [from, to)}
     * of a store's history read as a split of its own (an Iceberg table's rows), ended at {@code
     * to}, never read live and never committed to the log. Its ids must differ in form from the
     * log's splits' ids.
     */
    public static DiscoveredSplit historyOnly(String splitId, long from, long to) {
        if (to < from) {
            throw new IllegalArgumentException(
                    String.format(
                            "History split %s: its end %d is below its start %d",
                            splitId, to, from));
        }
        return new DiscoveredSplit(
                splitId, SplitKind.HISTORY, from, to, false, false, to, null, null);
    }

    /**
     * A split whose whole content the live reader reads from {@code startOffset} (a split created
     * after the job started): it starts {@code FINISHED}.
     */
    public static DiscoveredSplit readByLive(String splitId, long startOffset) {
        return new DiscoveredSplit(
                splitId, SplitKind.LOG, startOffset, startOffset, true, false, null, null, null);
    }

    /** The same split, bounded: it ends once every offset below {@code stoppingOffset} was read. */
    public DiscoveredSplit withStoppingOffset(long stoppingOffset) {
        requireLogSplit("a stopping offset of its own: it ends at its end");
        if (stoppingOffset < backfillStartOffset) {
            throw new IllegalArgumentException(
                    String.format(
                            "Split %s: stopping offset %d is below its start offset %d",
                            splitId, stoppingOffset, backfillStartOffset));
        }
        return new DiscoveredSplit(
                splitId,
                kind,
                backfillStartOffset,
                liveEndOffset,
                liveReadsWholeSplit,
                historyElsewhere,
                stoppingOffset,
                logEndOffset,
                historyVersion);
    }

    /**
     * The same split, whose history below its start is read by another split of the log (a table or
     * an archive read as splits of their own): its position is committed to the log only once the
     * source is in forward mode, when that history has been read.
     */
    public DiscoveredSplit withHistoryElsewhere() {
        requireLogSplit("history elsewhere: its positions are no log positions");
        return new DiscoveredSplit(
                splitId,
                kind,
                backfillStartOffset,
                liveEndOffset,
                liveReadsWholeSplit,
                true,
                stoppingOffset,
                logEndOffset,
                historyVersion);
    }

    /**
     * The same split, with the log's end offset (exclusive) at discovery. The live end offset may
     * differ from it: a start beyond the end raises it, a stopping offset lowers it. For adapters
     * that check other history against the log's real end.
     */
    public DiscoveredSplit withLogEndOffset(long logEndOffset) {
        return new DiscoveredSplit(
                splitId,
                kind,
                backfillStartOffset,
                liveEndOffset,
                liveReadsWholeSplit,
                historyElsewhere,
                stoppingOffset,
                logEndOffset,
                historyVersion);
    }

    /**
     * The same split, whose backfill reads the given version of the log's history (an Iceberg
     * table's snapshot), fixed when the split is first discovered: the source keeps it with the
     * split in its checkpoints and gives it to the backfill reader at every start ({@link
     * LogReader#addSplit(String, long, String)}), so a restored reader reads the history the split
     * was first planned on, whatever the log did in between.
     */
    public DiscoveredSplit withHistoryVersion(String historyVersion) {
        return new DiscoveredSplit(
                splitId,
                kind,
                backfillStartOffset,
                liveEndOffset,
                liveReadsWholeSplit,
                historyElsewhere,
                stoppingOffset,
                logEndOffset,
                Objects.requireNonNull(historyVersion, "historyVersion"));
    }

    private void requireLogSplit(String what) {
        if (kind != SplitKind.LOG) {
            throw new IllegalStateException("History split " + splitId + " cannot have " + what);
        }
    }

    /** The version of the history the backfill reads, if the log fixed one. */
    public Optional<String> historyVersion() {
        return Optional.ofNullable(historyVersion);
    }

    /** The log's end offset at discovery, if the log told it ({@link #withLogEndOffset}). */
    public OptionalLong logEndOffset() {
        return logEndOffset == null ? OptionalLong.empty() : OptionalLong.of(logEndOffset);
    }

    public String splitId() {
        return splitId;
    }

    /** One of the log's splits, or history read by the backfill alone. */
    public SplitKind kind() {
        return kind;
    }

    public long backfillStartOffset() {
        return backfillStartOffset;
    }

    public long liveEndOffset() {
        return liveEndOffset;
    }

    public boolean liveReadsWholeSplit() {
        return liveReadsWholeSplit;
    }

    /** Whether other splits of the log read the history below {@link #backfillStartOffset}. */
    public boolean hasHistoryElsewhere() {
        return historyElsewhere;
    }

    public OptionalLong stoppingOffset() {
        return stoppingOffset == null ? OptionalLong.empty() : OptionalLong.of(stoppingOffset);
    }

    @Override
    public String toString() {
        return "DiscoveredSplit{"
                + splitId
                + (kind == SplitKind.HISTORY ? ", history" : "")
                + ", start="
                + backfillStartOffset
                + ", liveEnd="
                + liveEndOffset
                + (liveReadsWholeSplit ? ", live reads whole split" : "")
                + (historyElsewhere ? ", history read elsewhere" : "")
                + (stoppingOffset != null ? ", stop=" + stoppingOffset : "")
                + (logEndOffset != null ? ", logEnd=" + logEndOffset : "")
                + (historyVersion != null ? ", history version " + historyVersion : "")
                + '}';
    }
}
