package dev.sourcebackfill.source.reader;

import dev.sourcebackfill.source.split.HandoverState;

import org.apache.flink.annotation.Internal;

/**
 * What the fetcher hands to the task thread: a record to emit, or a handover transition to apply
 * to the split's checkpointed state at exactly this point of the split's stream.
 */
@Internal
public final class BackfillElement<T> {

    private final T value;
    private final long offset;
    private final long timestamp;
    /** {@code null} for a record. */
    private final HandoverState newState;
    private final long targetEndOffset;

    private BackfillElement(
            T value, long offset, long timestamp, HandoverState newState, long targetEndOffset) {
        this.value = value;
        this.offset = offset;
        this.timestamp = timestamp;
        this.newState = newState;
        this.targetEndOffset = targetEndOffset;
    }

    static <T> BackfillElement<T> record(T value, long offset, long timestamp) {
        return new BackfillElement<>(value, offset, timestamp, null, 0L);
    }

    /** A transition: the split is now in {@code newState}, every offset below {@code nextOffset} covered. */
    static <T> BackfillElement<T> transition(
            HandoverState newState, long nextOffset, long targetEndOffset) {
        return new BackfillElement<>(null, nextOffset, 0L, newState, targetEndOffset);
    }

    boolean isTransition() {
        return newState != null;
    }

    T value() {
        return value;
    }

    /** The record's offset, or for a transition the split's next offset after it. */
    long offset() {
        return offset;
    }

    long timestamp() {
        return timestamp;
    }

    HandoverState newState() {
        return newState;
    }

    long targetEndOffset() {
        return targetEndOffset;
    }

    @Override
    public String toString() {
        return isTransition()
                ? "Transition{" + newState + ", next=" + offset + ", target=" + targetEndOffset + '}'
                : "Record{offset=" + offset + '}';
    }
}
