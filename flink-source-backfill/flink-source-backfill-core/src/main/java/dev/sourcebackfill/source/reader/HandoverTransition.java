package dev.sourcebackfill.source.reader;

import dev.sourcebackfill.source.split.HandoverState;

import org.apache.flink.annotation.Internal;

/**
 * A handover transition decided in the fetcher: the split is now in {@code newState}, every offset
 * below {@code nextOffset} covered, and the backfill must reach {@code targetEndOffset}.
 */
@Internal
final class HandoverTransition {

    private final HandoverState newState;
    private final long nextOffset;
    private final long targetEndOffset;

    HandoverTransition(HandoverState newState, long nextOffset, long targetEndOffset) {
        this.newState = newState;
        this.nextOffset = nextOffset;
        this.targetEndOffset = targetEndOffset;
    }

    HandoverState newState() {
        return newState;
    }

    long nextOffset() {
        return nextOffset;
    }

    long targetEndOffset() {
        return targetEndOffset;
    }

    @Override
    public String toString() {
        return newState + "@" + nextOffset + " (target " + targetEndOffset + ")";
    }
}
