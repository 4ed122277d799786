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
 * The handover of a split whose live reader is seekable (a job's own consumer). The live reader is
 * given the split only at its handover, at the first offset not backfilled, so nothing is read
 * twice and nothing is dropped: when the backfill stops (CACHING_UP) the handover asks for the live
 * reader's start there, and once it started the split is FINISHED, unless the live reader no longer
 * has that offset (retention): then the gap policy decides, and a skipped gap moves the live reader
 * past it.
 *
 * <p>So the live reader delivers only FINISHED splits, always from the split's next offset on; any
 * other live record or position would be a broken rule of the split reader and fails.
 */
@Internal
final class SeekableLiveHandover<T> extends SplitHandover<T> {

    private final LivePositions live;

    SeekableLiveHandover(
            BackfillSplit split,
            OffsetGapPolicy gapPolicy,
            LivePositions live,
            HandoverOutput<T> output) {
        super(split, gapPolicy, output);
        this.live = live;
    }

    /** A split restored past its backfill (CACHING_UP or FINISHED) goes to the live reader now. */
    @Override
    boolean liveReadsFromTheStart() {
        return state() != HandoverState.BACKFILLING;
    }

    @Override
    void backfillStopped() {
        output().startLive(splitId(), nextOffset());
    }

    /**
     * The live reader was given the split at its next offset: a caching-up split is FINISHED at
     * once. The live reader must still have that offset, for a restored FINISHED split too; if it
     * does not, the gap policy decides.
     */
    @Override
    OptionalLong onLiveStarted() throws IOException {
        if (state() == HandoverState.BACKFILLING) {
            throw notHandedOver("was given");
        }
        long givenAt = nextOffset();
        checkLiveHasNext();
        if (state() == HandoverState.CACHING_UP) {
            enterFinished();
        }
        // a skipped gap may reach the stopping offset: no record would come to say so
        checkStop(nextOffset());
        return nextOffset() > givenAt ? OptionalLong.of(nextOffset()) : OptionalLong.empty();
    }

    @Override
    void onLiveRecord(long offset, long timestamp, T value) {
        if (isComplete()) {
            return;
        }
        if (state() != HandoverState.FINISHED) {
            throw notHandedOver("delivered offset " + offset);
        }
        if (offset < nextOffset()) {
            throw new OffsetRegressionException(splitId(), "live", offset, nextOffset());
        }
        emitLive(offset, timestamp, value);
    }

    /** The seekable live reader does not read a backfilling split: it cannot find gaps in it. */
    @Override
    void onLiveGapWhileBackfilling(long from, long to) {
        throw notHandedOver("found offsets " + from + ".." + (to - 1) + " deleted");
    }

    /** A bounded FINISHED split: an idle live reader never sends the record at the stop. */
    @Override
    boolean followsLivePosition() {
        return state() == HandoverState.FINISHED && isBounded();
    }

    @Override
    void onLiveProgress(long position) {
        if (isComplete()) {
            return;
        }
        if (state() != HandoverState.FINISHED) {
            throw notHandedOver("stands at " + position);
        }
        if (position > nextOffset()) {
            checkStop(position);
        }
    }

    /**
     * The live reader must deliver every offset from the next one on. It is asked for its earliest
     * offset now: retention may have deleted offsets since the split was discovered or
     * checkpointed.
     */
    private void checkLiveHasNext() throws IOException {
        long earliest = live.earliestOffset(splitId());
        if (earliest <= nextOffset()) {
            return;
        }
        if (!skipsGaps()) {
            throw new OffsetGapException(splitId(), nextOffset(), earliest);
        }
        skipGapTo(earliest);
    }

    private IllegalStateException notHandedOver(String what) {
        return new IllegalStateException(
                String.format(
                        "The seekable live reader %s for split %s, which is %s: it is given a split"
                                + " only at the split's handover",
                        what, splitId(), state()));
    }
}
