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
package dev.sourcebackfill.source.split;

import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.api.connector.source.SourceSplit;

import javax.annotation.Nullable;

import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * A split of the log together with its handover progress.
 *
 * <p>All offsets here are positions: {@code nextOffset} is the smallest offset not yet emitted
 * (every existing offset below it was emitted exactly once), {@code targetEndOffset} is exclusive
 * (the backfill must cover every offset below it), and the optional {@code stoppingOffset} is
 * exclusive as well (a bounded split ends once every offset below it was emitted).
 *
 * <p>{@code backfilledRecords} counts the records emitted from the backfill for this split over its
 * whole life, across restores and rescales: it is part of the split's state so that progress
 * figures are the split's own, not only those of the reader that holds it now.
 *
 * <p>A bounded split whose {@code nextOffset} reached its stopping offset has {@linkplain
 * #isEnded() ended}; readers keep ended splits in their state so that a restored reader can tell
 * the enumerator again that they ended.
 *
 * <p>A split has a {@linkplain SplitKind kind}: one of the log's splits (a Kafka partition), handed
 * over from backfill to the live reader, or history read by the backfill alone: a {@linkplain
 * HistoryChunk chunk} of a log split's history, or a part of another store's history (a table's
 * rows), a bounded split {@code [from, to)} that ends at {@code to} and is never handed over.
 */
@PublicEvolving
public final class BackfillSplit implements SourceSplit {

    private final String splitId;
    private final SplitKind kind;
    private final HandoverState state;
    private final long nextOffset;
    private final long targetEndOffset;
    private final OptionalLong stoppingOffset;
    private final long backfilledRecords;

    /** What the split is a chunk of; {@code null} for one of the log's splits. */
    @Nullable private final HistoryChunk chunk;

    /**
     * A log split whose history below its start is read by other splits (its chunks, or another
     * split of the log such as a table's history): its position says nothing of theirs (an offset
     * committed for it would claim history not yet read).
     */
    private final boolean historyElsewhere;

    /**
     * The version of the log's history the backfill reads (an Iceberg table's snapshot), fixed at
     * the split's first discovery; {@code null}: the log's current history.
     */
    @Nullable private final String historyVersion;

    public BackfillSplit(
            String splitId,
            HandoverState state,
            long nextOffset,
            long targetEndOffset,
            OptionalLong stoppingOffset) {
        this(splitId, state, nextOffset, targetEndOffset, stoppingOffset, 0L);
    }

    public BackfillSplit(
            String splitId,
            HandoverState state,
            long nextOffset,
            long targetEndOffset,
            OptionalLong stoppingOffset,
            long backfilledRecords) {
        this(
                splitId,
                SplitKind.LOG,
                state,
                nextOffset,
                targetEndOffset,
                stoppingOffset,
                backfilledRecords,
                null,
                false,
                null);
    }

    /** Any split, a chunk too; for the serializer, which writes and reads each field. */
    BackfillSplit(
            String splitId,
            SplitKind kind,
            HandoverState state,
            long nextOffset,
            long targetEndOffset,
            OptionalLong stoppingOffset,
            long backfilledRecords,
            @Nullable HistoryChunk chunk,
            boolean historyElsewhere,
            @Nullable String historyVersion) {
        this.splitId = Objects.requireNonNull(splitId, "splitId");
        this.kind = Objects.requireNonNull(kind, "kind");
        this.state = Objects.requireNonNull(state, "state");
        this.nextOffset = nextOffset;
        this.targetEndOffset = targetEndOffset;
        this.stoppingOffset = Objects.requireNonNull(stoppingOffset, "stoppingOffset");
        if (nextOffset < 0) {
            throw new IllegalArgumentException(
                    "Split " + splitId + ": next offset must not be negative, was " + nextOffset);
        }
        if (backfilledRecords < 0) {
            throw new IllegalArgumentException(
                    "Split "
                            + splitId
                            + ": backfilled records must not be negative, was "
                            + backfilledRecords);
        }
        this.backfilledRecords = backfilledRecords;
        this.chunk = chunk;
        this.historyElsewhere = historyElsewhere;
        this.historyVersion = historyVersion;
        if (chunk != null && kind != SplitKind.HISTORY) {
            throw new IllegalArgumentException(
                    "Chunk " + splitId + " must be a HISTORY split, was " + kind);
        }
        if (kind == SplitKind.HISTORY) {
            checkHistory();
        }
        if (chunk != null) {
            if (!splitId.equals(chunk.splitId())) {
                throw new IllegalArgumentException(
                        "Split "
                                + splitId
                                + " cannot be "
                                + chunk
                                + ", whose id is "
                                + chunk.splitId());
            }
        }
    }

    /**
     * A history split is BACKFILLING until it ends, bounded, with its stop as its backfill target,
     * and its position is no log position: nothing of the log lies below it.
     */
    private void checkHistory() {
        if (state != HandoverState.BACKFILLING
                || stoppingOffset.isEmpty()
                || targetEndOffset != stoppingOffset.getAsLong()) {
            throw new IllegalArgumentException(
                    "History split "
                            + splitId
                            + " must be a BACKFILLING split whose target is its stopping offset,"
                            + " was "
                            + state
                            + " with target "
                            + targetEndOffset
                            + " and stop "
                            + stoppingOffset);
        }
        if (historyElsewhere) {
            throw new IllegalArgumentException(
                    "History split " + splitId + " cannot have its history read elsewhere");
        }
    }

    /**
     * A chunk of history: offsets {@code [from, to)} of the log's split {@code logSplitId}, read by
     * the backfill and ended at {@code to}.
     */
    public static BackfillSplit historyChunk(String logSplitId, int index, long from, long to) {
        if (from < 0 || to <= from) {
            throw new IllegalArgumentException(
                    String.format(
                            "Chunk %d of split %s: the range [%d, %d) is empty or negative",
                            index, logSplitId, from, to));
        }
        HistoryChunk chunk = new HistoryChunk(logSplitId, index);
        return history(chunk.splitId(), from, to, chunk);
    }

    /**
     * History read by the backfill alone ({@link SplitKind#HISTORY}): offsets {@code [from, to)} of
     * a store's history that is read as a split of its own (an Iceberg table's rows), ended at
     * {@code to}.
     */
    public static BackfillSplit historyOnly(String splitId, long from, long to) {
        if (from < 0 || to < from) {
            throw new IllegalArgumentException(
                    String.format(
                            "History split %s: the range [%d, %d) is negative", splitId, from, to));
        }
        return history(splitId, from, to, null);
    }

    private static BackfillSplit history(
            String splitId, long from, long to, @Nullable HistoryChunk chunk) {
        return new BackfillSplit(
                splitId,
                SplitKind.HISTORY,
                HandoverState.BACKFILLING,
                from,
                to,
                OptionalLong.of(to),
                0L,
                chunk,
                false,
                null);
    }

    /**
     * The same log split, its history below its start offset read by other splits: chunks of its
     * own (cut by the enumerator at discovery) or another split of the log.
     *
     * @throws IllegalStateException if this is a history split: its offsets are no log positions
     */
    public BackfillSplit withHistoryElsewhere() {
        if (kind != SplitKind.LOG) {
            throw new IllegalStateException(
                    "History split " + splitId + " cannot have its history read elsewhere");
        }
        return new BackfillSplit(
                splitId,
                kind,
                state,
                nextOffset,
                targetEndOffset,
                stoppingOffset,
                backfilledRecords,
                null,
                true,
                historyVersion);
    }

    /**
     * The same split, whose backfill reads the given version of the log's history ({@link
     * dev.sourcebackfill.source.spi.DiscoveredSplit#withHistoryVersion}).
     */
    public BackfillSplit withHistoryVersion(String version) {
        return new BackfillSplit(
                splitId,
                kind,
                state,
                nextOffset,
                targetEndOffset,
                stoppingOffset,
                backfilledRecords,
                chunk,
                historyElsewhere,
                Objects.requireNonNull(version, "version"));
    }

    /** The version of the log's history the backfill reads, if the log fixed one. */
    public Optional<String> historyVersion() {
        return Optional.ofNullable(historyVersion);
    }

    /** Whether this log split's history below its start is read by other splits. */
    public boolean hasHistoryElsewhere() {
        return historyElsewhere;
    }

    /** What this split is a chunk of; empty for one of the log's splits. */
    public Optional<HistoryChunk> chunk() {
        return Optional.ofNullable(chunk);
    }

    /** One of the log's splits, or history read by the backfill alone. */
    public SplitKind kind() {
        return kind;
    }

    /** The log's split that is read for this split: itself, or the one it is a chunk of. */
    public String logSplitId() {
        return chunk != null ? chunk.logSplitId() : splitId;
    }

    @Override
    public String splitId() {
        return splitId;
    }

    public HandoverState state() {
        return state;
    }

    public long nextOffset() {
        return nextOffset;
    }

    public long targetEndOffset() {
        return targetEndOffset;
    }

    public OptionalLong stoppingOffset() {
        return stoppingOffset;
    }

    /** Records emitted from the backfill for this split so far, by every reader that held it. */
    public long backfilledRecords() {
        return backfilledRecords;
    }

    /** Whether this bounded split emitted everything below its stopping offset. */
    public boolean isEnded() {
        return stoppingOffset.isPresent() && nextOffset >= stoppingOffset.getAsLong();
    }

    /** The same split with new handover progress; its backfill count is kept. */
    public BackfillSplit withProgress(HandoverState newState, long newNextOffset, long newTarget) {
        return withProgress(newState, newNextOffset, newTarget, backfilledRecords);
    }

    public BackfillSplit withProgress(
            HandoverState newState, long newNextOffset, long newTarget, long newBackfilledRecords) {
        return new BackfillSplit(
                splitId,
                kind,
                newState,
                newNextOffset,
                newTarget,
                stoppingOffset,
                newBackfilledRecords,
                chunk,
                historyElsewhere,
                historyVersion);
    }

    /**
     * The same split, ended: every offset below its stopping offset was emitted.
     *
     * @throws IllegalStateException if the split is unbounded
     */
    public BackfillSplit asEnded() {
        if (stoppingOffset.isEmpty()) {
            throw new IllegalStateException("Split " + splitId + " is unbounded: it cannot end");
        }
        return withProgress(
                state, Math.max(nextOffset, stoppingOffset.getAsLong()), targetEndOffset);
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof BackfillSplit)) {
            return false;
        }
        BackfillSplit that = (BackfillSplit) o;
        return nextOffset == that.nextOffset
                && targetEndOffset == that.targetEndOffset
                && backfilledRecords == that.backfilledRecords
                && splitId.equals(that.splitId)
                && kind == that.kind
                && state == that.state
                && stoppingOffset.equals(that.stoppingOffset)
                && Objects.equals(chunk, that.chunk)
                && historyElsewhere == that.historyElsewhere
                && Objects.equals(historyVersion, that.historyVersion);
    }

    @Override
    public int hashCode() {
        return Objects.hash(
                splitId,
                kind,
                state,
                nextOffset,
                targetEndOffset,
                stoppingOffset,
                backfilledRecords,
                chunk,
                historyElsewhere,
                historyVersion);
    }

    @Override
    public String toString() {
        return "BackfillSplit{"
                + splitId
                + (kind == SplitKind.HISTORY ? ", history" : "")
                + ", "
                + state
                + ", next="
                + nextOffset
                + ", target="
                + targetEndOffset
                + (stoppingOffset.isPresent() ? ", stop=" + stoppingOffset.getAsLong() : "")
                + ", backfilled="
                + backfilledRecords
                + (chunk != null ? ", chunk " + chunk.index() + " of " + chunk.logSplitId() : "")
                + (historyElsewhere ? ", history below its start read elsewhere" : "")
                + (historyVersion != null ? ", history version " + historyVersion : "")
                + '}';
    }
}
