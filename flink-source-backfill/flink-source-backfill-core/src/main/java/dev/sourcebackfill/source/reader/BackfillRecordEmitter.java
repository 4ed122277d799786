package dev.sourcebackfill.source.reader;

import dev.sourcebackfill.source.split.BackfillSplitState;
import dev.sourcebackfill.source.split.HandoverState;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.source.SourceOutput;
import org.apache.flink.connector.base.source.reader.RecordEmitter;
import org.apache.flink.metrics.Counter;

/**
 * Emits records and applies transitions to the split state, in the task thread; what it applies is
 * what the next checkpoint holds.
 */
@Internal
final class BackfillRecordEmitter<T>
        implements RecordEmitter<BackfillElement<T>, T, BackfillSplitState> {

    /** Told of every transition once the split state shows it. */
    interface TransitionListener {
        void onTransition(BackfillSplitState split, HandoverState from);
    }

    private final TransitionListener listener;
    private final Counter backfilledRecords;
    private final Counter numRecordsIn;

    BackfillRecordEmitter(
            TransitionListener listener, Counter backfilledRecords, Counter numRecordsIn) {
        this.listener = listener;
        this.backfilledRecords = backfilledRecords;
        this.numRecordsIn = numRecordsIn;
    }

    @Override
    public void emitRecord(
            BackfillElement<T> element, SourceOutput<T> output, BackfillSplitState split) {
        if (element.isTransition()) {
            HandoverState from = split.state();
            split.applyTransition(
                    element.newState(), element.offset(), element.targetEndOffset());
            listener.onTransition(split, from);
            // SourceReaderBase counted this element in numRecordsIn; a transition is no record
            numRecordsIn.dec();
            return;
        }
        output.collect(element.value(), element.timestamp());
        split.recordEmitted(element.offset());
        if (split.state() == HandoverState.BACKFILLING) {
            split.countBackfilled();
            backfilledRecords.inc();
        }
    }
}
