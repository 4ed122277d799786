package dev.sourcebackfill.source.split;

import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.api.connector.source.SourceSplit;

import java.util.Objects;
import java.util.OptionalLong;

/**
 * A split of the log together with its handover progress.
 *
 * <p>All offsets here are positions: {@code nextOffset} is the smallest offset not yet emitted
 * (every existing offset below it was emitted exactly once), {@code targetEndOffset} is exclusive
 * (the backfill must cover every offset below it), and the optional {@code stoppingOffset} is
 * exclusive as well (a bounded split ends once every offset below it was emitted).
 */
@PublicEvolving
public final class BackfillSplit implements SourceSplit {

    private final String splitId;
    private final HandoverState state;
    private final long nextOffset;
    private final long targetEndOffset;
    private final OptionalLong stoppingOffset;

    public BackfillSplit(
            String splitId,
            HandoverState state,
            long nextOffset,
            long targetEndOffset,
            OptionalLong stoppingOffset) {
        this.splitId = Objects.requireNonNull(splitId, "splitId");
        this.state = Objects.requireNonNull(state, "state");
        this.nextOffset = nextOffset;
        this.targetEndOffset = targetEndOffset;
        this.stoppingOffset = Objects.requireNonNull(stoppingOffset, "stoppingOffset");
        if (nextOffset < 0) {
            throw new IllegalArgumentException(
                    "Split " + splitId + ": next offset must not be negative, was " + nextOffset);
        }
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

    public BackfillSplit withProgress(HandoverState newState, long newNextOffset, long newTarget) {
        return new BackfillSplit(splitId, newState, newNextOffset, newTarget, stoppingOffset);
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
                && splitId.equals(that.splitId)
                && state == that.state
                && stoppingOffset.equals(that.stoppingOffset);
    }

    @Override
    public int hashCode() {
        return Objects.hash(splitId, state, nextOffset, targetEndOffset, stoppingOffset);
    }

    @Override
    public String toString() {
        return "BackfillSplit{"
                + splitId
                + ", "
                + state
                + ", next="
                + nextOffset
                + ", target="
                + targetEndOffset
                + (stoppingOffset.isPresent() ? ", stop=" + stoppingOffset.getAsLong() : "")
                + '}';
    }
}
