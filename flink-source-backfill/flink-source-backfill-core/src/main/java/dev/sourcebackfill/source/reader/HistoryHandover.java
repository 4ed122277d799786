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

import dev.sourcebackfill.source.OffsetGapPolicy;
import dev.sourcebackfill.source.split.BackfillSplit;
import dev.sourcebackfill.source.split.SplitKind;

import org.apache.flink.annotation.Internal;

import java.util.OptionalLong;

/**
 * The read of a history split ({@link SplitKind#HISTORY}: a chunk of a log split's history, or a
 * part of another store's history): the backfill alone reads it, from its next offset to its stop,
 * where it ends. It has no live side: the live reader is never given it, and its state stays
 * BACKFILLING until it ends. A backfill that ends below the stop lacks the rest: a gap (the gap
 * policy decides; skipped, the split ends at once), as no live reader comes after it.
 */
@Internal
final class HistoryHandover<T> extends SplitHandover<T> {

    HistoryHandover(BackfillSplit split, OffsetGapPolicy gapPolicy, HandoverOutput<T> output) {
        super(split, gapPolicy, output);
        if (split.kind() != SplitKind.HISTORY) {
            throw new IllegalArgumentException("Not a history split: " + split);
        }
    }

    /** Below its stop (its target is its stop, so only an ended backfill gets here): a gap. */
    @Override
    void backfillDone() {
        gapDeleted(nextOffset(), stoppingOffset());
        checkStop(nextOffset());
    }

    @Override
    boolean readsLive() {
        return false;
    }

    @Override
    boolean liveReadsFromTheStart() {
        return false;
    }

    @Override
    OptionalLong onLiveStarted() {
        throw readByBackfillAlone("was given to the live reader");
    }

    @Override
    void onLiveRecord(long offset, long timestamp, T value) {
        throw readByBackfillAlone("got live offset " + offset);
    }

    @Override
    boolean followsLivePosition() {
        return false;
    }

    @Override
    void onLiveProgress(long position) {
        throw readByBackfillAlone("got a live position " + position);
    }

    @Override
    void onLiveGapWhileBackfilling(long from, long to) {
        throw readByBackfillAlone("got a live gap " + from + ".." + (to - 1));
    }

    @Override
    void backfillStopped() {
        throw readByBackfillAlone("would be read live from offset " + nextOffset());
    }

    private IllegalStateException readByBackfillAlone(String what) {
        return new IllegalStateException(
                "History split " + splitId() + " " + what + ": it is read by the backfill alone");
    }
}
