package dev.sourcebackfill.examples;

import dev.sourcebackfill.source.SplitTransition;
import dev.sourcebackfill.source.BackfillListener;
import dev.sourcebackfill.source.split.HandoverState;

/** Prints handover transitions and the forward-mode confirmation. */
final class ConsoleProgress implements BackfillListener {

    private static final long serialVersionUID = 1L;

    private final long startMillis;

    ConsoleProgress(long startMillis) {
        this.startMillis = startMillis;
    }

    @Override
    public void onTransition(SplitTransition transition) {
        if (transition.to() == HandoverState.FINISHED) {
            System.out.printf(
                    "[reader %d] %s handed over to the upstream at offset %d (%d records backfilled)%n",
                    transition.subtask(),
                    transition.splitId(),
                    transition.nextOffset(),
                    transition.backfilledRecords());
        }
    }

    @Override
    public void onForwardMode(int subtask, long checkpointId, long backfilledRecords) {
        System.out.printf(
                "[reader %d] FORWARD MODE confirmed by checkpoint %d after %.1f s; "
                        + "%d records backfilled by this reader%n",
                subtask,
                checkpointId,
                (System.currentTimeMillis() - startMillis) / 1000.0,
                backfilledRecords);
    }

    @Override
    public void onSplitEnded(int subtask, String splitId, long nextOffset) {
        System.out.printf("[reader %d] %s reached its stopping offset %d%n", subtask, splitId, nextOffset);
    }
}
