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

import java.io.IOException;
import java.util.OptionalLong;

/**
 * The handover state machine of one split, in the fetcher thread. It decides, record by record and
 * position by position, which of the two readers the split's records are emitted from.
 *
 * <p>Offsets are positions (see {@link BackfillSplit}): {@code next} is the first offset not yet
 * emitted, {@code target} the exclusive end the backfill must reach. A split backfilled up to and
 * including offset {@code o} has {@code next = o + 1}, in every state.
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
final class SplitHandover<T> {

    /** How the handover asks the live reader where it may start. */
    @FunctionalInterface
    interface LiveRetention {
        long earliestOffset(String splitId) throws IOException;
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
         * The live reader is to be given the split at {@code offset}. The split reader gives it
         * once the handover's call returned (never from inside it) and then calls {@link
         * #onLiveStarted()}.
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

    /** Whether the split is bounded, and where it stops then (two fields: read per record). */
    private final boolean bounded;

    private final long stoppingOffset;
    private final LiveRetention live;
    private final HandoverOutput<T> output;
    private final boolean liveSeekable;
    private final OffsetGapPolicy gapPolicy;

    private HandoverState state;
    private long next;
    private long target;
    private boolean complete;

    /** Live records seen while not FINISHED must increase too; not checkpointed. */
    private long liveFloor;

    /**
     * For a feed: the offset below which the feed can no longer deliver anything, the higher of
     * where it started when it was given the split and the offset after the last record it
     * delivered ahead of the backfill (dropped, expected from the backfill). Zero until the feed is
     * given the split. The handover at {@code next} has a gap if this is above {@code next}.
     */
    private long feedLostBelow;

    /** Whether {@link #feedLostBelow} was raised by records the source dropped. */
    private boolean feedDroppedAhead;

    SplitHandover(
            BackfillSplit split,
            boolean liveSeekable,
            OffsetGapPolicy gapPolicy,
            LiveRetention live,
            HandoverOutput<T> output) {
        this.output = output;
        this.gapPolicy = gapPolicy;
        this.liveSeekable = liveSeekable;
        this.splitId = split.splitId();
        OptionalLong stop = split.stoppingOffset();
        this.bounded = stop.isPresent();
        this.stoppingOffset = stop.orElse(0);
        this.live = live;
        this.state = split.state();
        this.next = split.nextOffset();
        this.target = split.targetEndOffset();
        this.liveFloor = 0;
        checkStop(next);
    }

    String splitId() {
        return splitId;
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
     * backfill at once instead of waiting for a record that will never come.
     */
    void start() {
        if (state == HandoverState.BACKFILLING && next >= target) {
            moveTo(HandoverState.CACHING_UP);
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
        if (next >= target) {
            moveTo(HandoverState.CACHING_UP);
        }
        checkStop(next);
    }

    /**
     * The backfill reader's position: past the target (no record there, e.g. transaction markers)
     * or at the end of a bounded backfill, the backfill has caught up.
     */
    void onBackfillProgress(long position, boolean endOfBackfill) {
        if (state != HandoverState.BACKFILLING || complete) {
            return;
        }
        if (position >= target) {
            next = Math.max(next, position);
            moveTo(HandoverState.CACHING_UP);
        } else if (endOfBackfill) {
            next = Math.max(next, position);
            moveTo(HandoverState.CACHING_UP);
        }
        checkStop(next);
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
        if (next >= target) {
            moveTo(HandoverState.CACHING_UP);
        }
        checkStop(next);
    }

    // ------------------------------------------------------------------ live side

    /**
     * The live reader was given this split (a seekable one at {@link #nextOffset()}, a feed
     * wherever it stands): a seekable live reader finishes a caching-up split at once; a feed
     * records where it starts (its earliest offset), which raises a backfilling split's target to
     * it; a finished split checks that the live reader still has its next offset.
     *
     * @return where a seekable live reader must read the split from instead: the offset after a gap
     *     the handover skipped at the offset it was given (empty if there was none)
     */
    OptionalLong onLiveStarted() throws IOException {
        long givenAt = next;
        if (!liveSeekable) {
            long feedStart = live.earliestOffset(splitId);
            feedLostBelow = Math.max(feedLostBelow, feedStart);
            if (state == HandoverState.BACKFILLING) {
                // the backfill must cover what the feed no longer has
                target = Math.max(target, feedStart);
            }
        }
        if (state == HandoverState.CACHING_UP && liveSeekable) {
            finish();
        } else if (state == HandoverState.FINISHED) {
            checkNoGap();
            // a skipped gap may reach the stopping offset: no record would come to say so
            checkStop(next);
        }
        // only a skipped gap moves next here
        return liveSeekable && next > givenAt ? OptionalLong.of(next) : OptionalLong.empty();
    }

    /**
     * The live reader found offsets {@code from..to-1} deleted where it was to read. For a finished
     * split they are a gap (the policy decides); before that the handover asks the live reader for
     * its earliest offset when it hands over.
     */
    void onLiveGap(long from, long to) {
        if (state != HandoverState.FINISHED || complete || to <= next) {
            return;
        }
        gapDeleted(from, to);
        checkStop(next);
    }

    /**
     * Offsets {@code max(from, next)..to-1} are gone (below {@code from} the reader passed offsets
     * without records): skipped under SKIP, else a failure.
     */
    private void gapDeleted(long from, long to) {
        long first = Math.max(from, next);
        if (gapPolicy == OffsetGapPolicy.SKIP) {
            skipTo(first, to, true);
            return;
        }
        throw OffsetGapException.deleted(splitId, first, to);
    }

    boolean stoppingOffsetPresent() {
        return bounded;
    }

    void onLiveRecord(long offset, long timestamp, T value) throws IOException {
        if (complete) {
            return;
        }
        switch (state) {
            case FINISHED:
                if (offset < next) {
                    if (liveSeekable) {
                        throw new OffsetRegressionException(splitId, "live", offset, next);
                    }
                    // a feed replays what was emitted before a restore: drop it, in order
                    checkLiveOrder(offset);
                    return;
                }
                emitLive(offset, timestamp, value);
                return;
            case BACKFILLING:
                checkLiveOrder(offset);
                target = Math.max(target, offset + 1);
                if (offset + 1 == next) {
                    // the live reader stands exactly where the backfill is: hand over now
                    finish();
                } else if (offset + 1 < next) {
                    moveTo(HandoverState.CACHING_UP);
                } else if (offset + 1 > feedLostBelow) {
                    // dropped: the backfill is expected to cover it, the feed will not repeat it
                    feedLostBelow = offset + 1;
                    feedDroppedAhead = true;
                }
                return;
            case CACHING_UP:
                checkLiveOrder(offset);
                if (offset < next) {
                    return;
                }
                finish();
                emitLive(offset, timestamp, value);
                return;
            default:
                throw new IllegalStateException("Unknown state " + state);
        }
    }

    private void emitLive(long offset, long timestamp, T value) {
        if (checkStop(offset)) {
            return;
        }
        output.emit(splitId, offset, timestamp, value, true);
        next = offset + 1;
        checkStop(next);
    }

    /**
     * The live reader's position, for a non-seekable live reader: it raises the target of a
     * backfilling split and finishes a caching-up split whose range the live reader has passed (an
     * idle live reader never sends the record that would prove it).
     */
    void onLiveProgress(long position) throws IOException {
        if (complete) {
            return;
        }
        switch (state) {
            case BACKFILLING:
                target = Math.max(target, position);
                break;
            case CACHING_UP:
                if (position >= next) {
                    finish();
                }
                break;
            case FINISHED:
                if (position > next) {
                    checkStop(position);
                }
                break;
            default:
                throw new IllegalStateException("Unknown state " + state);
        }
    }

    // ------------------------------------------------------------------ helpers

    private void finish() throws IOException {
        checkNoGap();
        moveTo(HandoverState.FINISHED);
        // a skipped gap may reach the stopping offset: no record would come to say so
        checkStop(next);
    }

    /**
     * The live reader must deliver every offset from {@code next} on. A seekable live reader is
     * asked for its earliest offset now (retention); a feed's is what {@link #feedLostBelow}
     * recorded, since by now it has moved on by the records it delivered.
     */
    private void checkNoGap() throws IOException {
        if (!liveSeekable) {
            if (feedLostBelow > next) {
                if (gapPolicy == OffsetGapPolicy.SKIP) {
                    skipTo(next, feedLostBelow, false);
                    return;
                }
                throw feedDroppedAhead
                        ? OffsetGapException.passedByFeed(splitId, next, feedLostBelow - 1)
                        : new OffsetGapException(splitId, next, feedLostBelow);
            }
            return;
        }
        long earliest = live.earliestOffset(splitId);
        if (earliest > next) {
            if (gapPolicy == OffsetGapPolicy.SKIP) {
                skipTo(next, earliest, false);
                return;
            }
            throw new OffsetGapException(splitId, next, earliest);
        }
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

    private void checkLiveOrder(long offset) {
        if (offset < liveFloor) {
            throw new OffsetRegressionException(splitId, "live", offset, liveFloor);
        }
        liveFloor = offset + 1;
    }

    /** Marks the split complete if {@code position} reached its stopping offset. */
    private boolean checkStop(long position) {
        if (bounded && !complete && position >= stoppingOffset) {
            complete = true;
            output.completed(splitId);
        }
        return complete;
    }

    private void moveTo(HandoverState newState) {
        state = state.moveTo(newState, splitId);
        output.transition(splitId, newState, next, target);
        if (newState == HandoverState.CACHING_UP && liveSeekable) {
            // a seekable live reader is given the split at its handover
            output.startLive(splitId, next);
        }
    }
}
