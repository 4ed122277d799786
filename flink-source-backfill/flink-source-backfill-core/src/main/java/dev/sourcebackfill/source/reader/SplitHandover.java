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
package dev.sourcebackfill.source.reader;

import dev.sourcebackfill.source.OffsetGapException;
import dev.sourcebackfill.source.OffsetGapPolicy;
import dev.sourcebackfill.source.OffsetRegressionException;
import dev.sourcebackfill.source.split.BackfillSplit;
import dev.sourcebackfill.source.split.HandoverState;

import org.apache.flink.annotation.Internal;

import javax.annotation.Nullable;

import java.io.IOException;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * The handover state machine of one split, in the fetcher thread. It decides, record by record and
 * position by position, which of the two readers the split's records are emitted from.
 *
 * <p>Offsets are positions (see {@link BackfillSplit}): {@code next} is the first offset not yet
 * emitted, {@code target} the exclusive end the backfill must reach. A split backfilled up to and
 * including offset {@code o} has {@code next = o + 1}, in every state.
 *
 * <p>This class holds what does not depend on the live reader: the backfill side, the live records
 * of a finished split, gaps, the stopping offset. What comes after the backfill differs by the
 * split's kind and the live reader's kind ({@link
 * dev.sourcebackfill.source.spi.BackfillLog#isLiveSeekable()}), one subclass each:
 *
 * <ul>
 *   <li>{@link SeekableLiveHandover}: the live reader is given the split at its handover, at the
 *       first offset not backfilled, and so delivers it only once the split is FINISHED;
 *   <li>{@link LiveFeedHandover}: the live reader is a feed, shared and not seekable, given every
 *       split at once and delivering from where it stands; its records and position decide the
 *       handover while the split backfills;
 *   <li>{@link HistoryHandover}: a history split ({@link
 *       dev.sourcebackfill.source.split.SplitKind#HISTORY}) has no live side: it ends at its stop.
 * </ul>
 *
 * <p>Records to emit and transitions go to a {@link HandoverOutput} in the order the task thread
 * must apply them, so that a checkpoint taken between any two of them is consistent.
 *
 * <p>The handover does not act on the readers. What they must do for it (give the live reader the
 * split, move it past a gap) it asks for through its output or returns; the split reader does it
 * once the handover's call returned and then tells the handover in a call of its own. So no method
 * of a handover runs while another of its methods is on the stack.
 */
@Internal
abstract sealed class SplitHandover<T>
        permits SeekableLiveHandover, LiveFeedHandover, HistoryHandover {

    /** How the handover asks the live reader where it can deliver a split from. */
    interface LivePositions {
        /** The lowest offset of the split the live reader can still deliver. */
        long earliestOffset(String splitId) throws IOException;

        /** The next offset of the split the live reader would deliver. */
        long position(String splitId) throws IOException;
    }

    /** Makes the handover of each split a split reader takes; one kind per live reader kind. */
    @FunctionalInterface
    interface Factory<T> {
        SplitHandover<T> create(
                BackfillSplit split,
                OffsetGapPolicy gapPolicy,
                LivePositions live,
                HandoverOutput<T> output);
    }

    /** Receives what the handover decides, in order. */
    interface HandoverOutput<T> {
        /**
         * A record to emit, as its reader delivered it: read by the live reader if {@code live},
         * else by the backfill.
         */
        void emit(String splitId, long offset, long timestamp, T record, boolean live);

        /**
         * The split is now in {@code newState}; a split that left BACKFILLING is taken off the
         * backfill reader once the handover's call returned.
         */
        void transition(String splitId, HandoverState newState, long nextOffset, long target);

        /**
         * The live reader is to be given the split at {@code offset} (a seekable live reader at the
         * handover). The split reader gives it once the handover's call returned (never from inside
         * it) and then calls {@link #onLiveStarted()}.
         */
        void startLive(String splitId, long offset);

        /** The bounded split reached its stopping offset; called once. */
        default void completed(String splitId) {}

        /**
         * Under {@link OffsetGapPolicy#SKIP}: offsets {@code from..to-1} are in neither the
         * backfill nor the live reader, and the split goes on at {@code to}.
         *
         * @param foundByReader whether a log reader found the gap where it was reading (it goes on
         *     at {@code to} by itself); else the handover found it where the live reader starts (a
         *     seekable live reader is moved past it: see {@link #onLiveStarted()})
         */
        void gapSkipped(String splitId, long from, long to, boolean foundByReader);
    }

    private final String splitId;

    /** The log's split read for this split: itself, or the one it is a chunk of. */
    private final String logSplitId;

    /** The split's place among the chunks of its log split; empty if it is not a chunk. */
    private final OptionalInt chunkIndex;

    /** Whether the split is bounded, and where it stops then (two fields: read per record). */
    private final boolean bounded;

    private final long stoppingOffset;

    private final HandoverOutput<T> output;
    private final OffsetGapPolicy gapPolicy;

    private HandoverState state;
    private long next;
    private long target;
    private boolean complete;

    @Nullable private final String historyVersion;

    SplitHandover(BackfillSplit split, OffsetGapPolicy gapPolicy, HandoverOutput<T> output) {
        this.output = output;
        this.gapPolicy = gapPolicy;
        this.splitId = split.splitId();
        this.logSplitId = split.logSplitId();
        this.historyVersion = split.historyVersion().orElse(null);
        this.chunkIndex =
                split.chunk()
                        .map(chunk -> OptionalInt.of(chunk.index()))
                        .orElse(OptionalInt.empty());
        OptionalLong stop = split.stoppingOffset();
        this.bounded = stop.isPresent();
        this.stoppingOffset = stop.orElse(0);
        this.state = split.state();
        this.next = split.nextOffset();
        this.target = split.targetEndOffset();
        checkStop(next);
    }

    String splitId() {
        return splitId;
    }

    String logSplitId() {
        return logSplitId;
    }

    /** The version of the log's history the backfill reads, if the log fixed one. */
    Optional<String> historyVersion() {
        return Optional.ofNullable(historyVersion);
    }

    /** The split's place among the chunks of its log split (in offset order), if it is a chunk. */
    OptionalInt chunkIndex() {
        return chunkIndex;
    }

    HandoverState state() {
        return state;
    }

    long nextOffset() {
        return next;
    }

    long targetEndOffset() {
        return target;
    }

    /** Whether a bounded split has emitted everything below its stopping offset. */
    boolean isComplete() {
        return complete;
    }

    /**
     * A backfilling split with nothing to backfill (its start is at or past its target) stops the
     * backfill at once instead of waiting for a record that will never come; unless it is complete
     * already: then nothing of it is left for the live reader.
     */
    void start() {
        if (state == HandoverState.BACKFILLING && !complete && next >= target) {
            backfillDone();
        }
    }

    // ------------------------------------------------------------------ backfill side

    void onBackfillRecord(long offset, long timestamp, T value) {
        if (state != HandoverState.BACKFILLING || complete) {
            // the backfill stopped; the live reader delivers this range
            return;
        }
        if (offset < next) {
            throw new OffsetRegressionException(splitId, "backfill", offset, next);
        }
        if (checkStop(offset)) {
            return;
        }
        output.emit(splitId, offset, timestamp, value, false);
        next = offset + 1;
        backfillMoved();
    }

    /**
     * The backfill reader's position: past the target (no record there, e.g. transaction markers)
     * or at the end of a bounded backfill, the backfill is done.
     */
    void onBackfillProgress(long position, boolean endOfBackfill) {
        if (state != HandoverState.BACKFILLING || complete) {
            return;
        }
        if (position >= target || endOfBackfill) {
            next = Math.max(next, position);
            if (!checkStop(next)) {
                backfillDone();
            }
        }
    }

    /**
     * The backfill of a split that is not complete is done: it reached its target, or its reader
     * ended. What comes next depends on the split's kind: a log split goes on live.
     */
    void backfillDone() {
        enterCachingUp();
    }

    /**
     * The backfill reader found offsets {@code from..to-1} deleted where it was to read. While the
     * split backfills, they are a gap (the policy decides); after that the live reader covers the
     * range and the handover checks it there.
     */
    void onBackfillGap(long from, long to) {
        if (state != HandoverState.BACKFILLING || complete || to <= next) {
            return;
        }
        gapDeleted(from, to);
        backfillMoved();
    }

    // ------------------------------------------------------------------ live side

    /** Whether the live reader may ever read the split: a log split's does, after its backfill. */
    boolean readsLive() {
        return true;
    }

    /**
     * Whether the live reader is given the split as soon as the split reader takes it (at the
     * split's next offset), rather than when the handover asks for it.
     */
    abstract boolean liveReadsFromTheStart();

    /**
     * The live reader was given this split: the handover checks that it can deliver the split's
     * next offset.
     *
     * @return where the live reader must read the split from instead: the offset after a gap the
     *     handover skipped at the offset it was given (empty if there was none)
     */
    abstract OptionalLong onLiveStarted() throws IOException;

    abstract void onLiveRecord(long offset, long timestamp, T value);

    /**
     * Whether the split reader must tell the handover where the live reader stands ({@link
     * #onLiveProgress}) after each fetch: an idle live reader sends no record to prove how far it
     * got.
     */
    abstract boolean followsLivePosition();

    /** Where the live reader stands: the next offset it would deliver. */
    abstract void onLiveProgress(long position);

    /**
     * The live reader found offsets {@code from..to-1} deleted where it was to read. Below {@code
     * next} they were emitted already: no gap. Once the backfill stopped (CACHING_UP, FINISHED) the
     * live reader alone must deliver every offset from {@code next} on, so the rest is a gap at
     * once (the policy decides). While the split backfills, the backfill may still cover them: the
     * live reader's kind decides ({@link #onLiveGapWhileBackfilling}).
     */
    void onLiveGap(long from, long to) {
        if (complete || to <= next) {
            return;
        }
        if (state == HandoverState.BACKFILLING) {
            onLiveGapWhileBackfilling(from, to);
            return;
        }
        gapDeleted(from, to);
        checkStop(next);
    }

    /**
     * The live reader found offsets {@code from..to-1} deleted (some of them at or above {@code
     * next}) while the split backfills.
     */
    abstract void onLiveGapWhileBackfilling(long from, long to);

    /**
     * The split just moved to CACHING_UP: the backfill stopped, and the live reader must deliver
     * the split from {@link #nextOffset()} on.
     */
    abstract void backfillStopped();

    // ------------------------------------------------------------------ for the subclasses

    final HandoverOutput<T> output() {
        return output;
    }

    final boolean isBounded() {
        return bounded;
    }

    /** Where a bounded split stops (exclusive). */
    final long stoppingOffset() {
        return stoppingOffset;
    }

    /**
     * Whether the source is told to skip gaps ({@link OffsetGapPolicy#SKIP}) instead of failing.
     */
    final boolean skipsGaps() {
        return gapPolicy == OffsetGapPolicy.SKIP;
    }

    /** The backfill must reach {@code offset} (exclusive) at least. */
    final void raiseTarget(long offset) {
        target = Math.max(target, offset);
    }

    final void enterCachingUp() {
        moveTo(HandoverState.CACHING_UP);
        backfillStopped();
    }

    final void enterFinished() {
        moveTo(HandoverState.FINISHED);
    }

    /** A live record at or after {@link #nextOffset()}: emitted unless it is past the stop. */
    final void emitLive(long offset, long timestamp, T value) {
        if (checkStop(offset)) {
            return;
        }
        output.emit(splitId, offset, timestamp, value, true);
        next = offset + 1;
        checkStop(next);
    }

    /**
     * The live reader cannot deliver the offsets from {@link #nextOffset()} to {@code to - 1}, as
     * the handover found where the live reader starts: the split goes on at {@code to}. Call only
     * if {@link #skipsGaps()}.
     */
    final void skipGapTo(long to) {
        skipTo(next, to, false);
    }

    /** Marks the split complete if {@code position} reached its stopping offset. */
    final boolean checkStop(long position) {
        if (bounded && !complete && position >= stoppingOffset) {
            complete = true;
            output.completed(splitId);
        }
        return complete;
    }

    // ------------------------------------------------------------------ helpers

    /**
     * The backfill moved {@code next}: a bounded split that reached its stop is complete, and
     * nothing of it is left for the live reader (it is not handed over, nor is the live reader
     * checked for gaps past the stop); else a split that reached its target stops backfilling.
     */
    private void backfillMoved() {
        if (checkStop(next)) {
            return;
        }
        if (next >= target) {
            backfillDone();
        }
    }

    /**
     * Offsets {@code max(from, next)..to-1} are gone (below {@code from} the reader passed offsets
     * without records): skipped under SKIP, else a failure.
     */
    final void gapDeleted(long from, long to) {
        long first = Math.max(from, next);
        if (gapPolicy == OffsetGapPolicy.SKIP) {
            skipTo(first, to, true);
            return;
        }
        throw OffsetGapException.deleted(splitId, first, to);
    }

    /**
     * Accepts the gap {@code from..to-1}: the split goes on at {@code to}. A bounded split skips
     * only offsets below its stop (it ends there).
     */
    private void skipTo(long from, long to, boolean foundByReader) {
        long end = bounded ? Math.min(to, stoppingOffset) : to;
        next = Math.max(next, end);
        target = Math.max(target, next);
        if (end > from) {
            output.gapSkipped(splitId, from, end, foundByReader);
        }
    }

    private void moveTo(HandoverState newState) {
        state = state.moveTo(newState, splitId);
        output.transition(splitId, newState, next, target);
    }
}
