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
 * The handover of a split whose live reader is a feed: shared and not seekable (a push-based
 * stream, the datagen log's feed). The feed is given every split as soon as the split reader takes
 * it and delivers from where it stands, whatever offset it was given; it is never moved. So it
 * delivers while the split backfills, and its records and position decide the handover:
 *
 * <ul>
 *   <li>BACKFILLING: a live record exactly at the last backfilled offset finishes the split, one
 *       behind the backfill stops it (CACHING_UP), one ahead raises the target: the backfill is to
 *       cover it, as the feed will not deliver it again. The feed's position raises the target too,
 *       and so do offsets the feed finds deleted.
 *   <li>CACHING_UP: live records inside the backfilled range are dropped; the first one above it,
 *       or the feed's position past it, finishes the split. Offsets the feed finds deleted from the
 *       next one on are a gap at once.
 *   <li>FINISHED: a restored split's feed replays what was emitted before: dropped, in order.
 * </ul>
 *
 * <p>The feed cannot deliver anything below where it started, below the last record it delivered
 * ahead of the backfill, or below the end of offsets it found deleted while the split backfilled: a
 * handover below that is a gap.
 */
@Internal
final class LiveFeedHandover<T> extends SplitHandover<T> {

    private final LivePositions live;

    /**
     * The offset every live record must reach: the one after the last the feed delivered, dropped
     * or emitted, in any state. Not checkpointed: a restored split's feed may replay below its next
     * offset (dropped, in order).
     */
    private long liveFloor;

    /**
     * The offset below which the feed can no longer deliver anything, the highest of where it
     * started when it was given the split, the offset after the last record it delivered ahead of
     * the backfill (dropped, expected from the backfill) and the end of offsets it found deleted
     * while the split backfilled. Zero until the feed is given the split. The handover at {@code
     * next} has a gap if this is above {@code next}.
     */
    private long lostBelow;

    /** Whether {@link #lostBelow} was last raised by records the source dropped. */
    private boolean droppedAhead;

    LiveFeedHandover(
            BackfillSplit split,
            OffsetGapPolicy gapPolicy,
            LivePositions live,
            HandoverOutput<T> output) {
        super(split, gapPolicy, output);
        this.live = live;
    }

    @Override
    boolean liveReadsFromTheStart() {
        return true;
    }

    /** The feed reads the split already: its records or its position finish the split. */
    @Override
    void backfillStopped() {}

    /**
     * The feed was given the split, wherever it stands: it records where it starts (its earliest
     * offset), which raises a backfilling split's target to it, as does the feed's position; a
     * finished split checks that the feed can still deliver its next offset.
     *
     * @return always empty: a feed is never moved
     */
    @Override
    OptionalLong onLiveStarted() throws IOException {
        long feedStart = live.earliestOffset(splitId());
        lostBelow = Math.max(lostBelow, feedStart);
        if (state() == HandoverState.BACKFILLING) {
            // the backfill must cover what the feed no longer has
            raiseTarget(feedStart);
            // the feed's position is a better target than the one from discovery
            feedStandsAt(live.position(splitId()));
        } else if (state() == HandoverState.FINISHED) {
            checkFeedHasNext();
            // a skipped gap may reach the stopping offset: no record would come to say so
            checkStop(nextOffset());
        }
        return OptionalLong.empty();
    }

    @Override
    void onLiveRecord(long offset, long timestamp, T value) {
        if (isComplete()) {
            return;
        }
        switch (state()) {
            case FINISHED:
                // emitted records count for the order too: a feed going back below what it
                // delivered is a regression, whether it was dropped or emitted
                checkLiveOrder(offset);
                if (offset < nextOffset()) {
                    // a feed replays what was emitted before a restore: drop it, in order
                    return;
                }
                emitLive(offset, timestamp, value);
                return;
            case BACKFILLING:
                checkLiveOrder(offset);
                raiseTarget(offset + 1);
                if (offset + 1 == nextOffset()) {
                    // the feed stands exactly where the backfill is: hand over now
                    finish();
                } else if (offset + 1 < nextOffset()) {
                    enterCachingUp();
                } else if (offset + 1 > lostBelow) {
                    // dropped: the backfill is expected to cover it, the feed will not repeat it
                    lostBelow = offset + 1;
                    droppedAhead = true;
                }
                return;
            case CACHING_UP:
                checkLiveOrder(offset);
                if (offset < nextOffset()) {
                    return;
                }
                finish();
                emitLive(offset, timestamp, value);
                return;
            default:
                throw new IllegalStateException("Unknown state " + state());
        }
    }

    /**
     * The feed passed offsets deleted before it read them: it delivers nothing below {@code to} any
     * more, as if it had started there. Those the backfill still reads are no loss, so, as at the
     * feed's start, the backfill must now reach {@code to}, and the handover checks whether it did
     * ({@link #checkFeedHasNext}): a backfill that ends below {@code to} (an archive) leaves the
     * offsets between a gap, for the policy to decide then.
     */
    @Override
    void onLiveGapWhileBackfilling(long from, long to) {
        raiseTarget(to);
        if (to > lostBelow) {
            lostBelow = to;
            // deleted, not passed: a gap here is named as where the feed starts
            droppedAhead = false;
        }
    }

    /** Before FINISHED the feed's position decides; after, a bounded split's stop does. */
    @Override
    boolean followsLivePosition() {
        return state() != HandoverState.FINISHED || isBounded();
    }

    /**
     * The feed's position raises the target of a backfilling split and finishes a caching-up split
     * whose range the feed has passed (an idle feed never sends the record that would prove it).
     */
    @Override
    void onLiveProgress(long position) {
        feedStandsAt(position);
    }

    private void feedStandsAt(long position) {
        if (isComplete()) {
            return;
        }
        switch (state()) {
            case BACKFILLING:
                raiseTarget(position);
                break;
            case CACHING_UP:
                if (position >= nextOffset()) {
                    finish();
                }
                break;
            case FINISHED:
                if (position > nextOffset()) {
                    checkStop(position);
                }
                break;
            default:
                throw new IllegalStateException("Unknown state " + state());
        }
    }

    private void finish() {
        checkFeedHasNext();
        enterFinished();
        // a skipped gap may reach the stopping offset: no record would come to say so
        checkStop(nextOffset());
    }

    /**
     * The feed must deliver every offset from the next one on. Its earliest offset is what {@link
     * #lostBelow} recorded: by now it has moved on by the records it delivered.
     */
    private void checkFeedHasNext() {
        if (lostBelow <= nextOffset()) {
            return;
        }
        if (!skipsGaps()) {
            throw droppedAhead
                    ? OffsetGapException.passedByFeed(splitId(), nextOffset(), lostBelow - 1)
                    : new OffsetGapException(splitId(), nextOffset(), lostBelow);
        }
        skipGapTo(lostBelow);
    }

    private void checkLiveOrder(long offset) {
        if (offset < liveFloor) {
            throw new OffsetRegressionException(splitId(), "live", offset, liveFloor);
        }
        liveFloor = offset + 1;
    }
}
