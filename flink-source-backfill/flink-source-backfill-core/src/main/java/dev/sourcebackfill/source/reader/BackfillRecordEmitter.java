package dev.sourcebackfill.source.reader;

import dev.sourcebackfill.source.split.BackfillSplitState;
import dev.sourcebackfill.source.split.HandoverState;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.source.SourceOutput;
import org.apache.flink.connector.base.source.reader.RecordEmitter;
import org.apache.flink.metrics.Counter;

/**
 * Emits records and advances the split state past each one, in the task thread; what it applies
 * is what the next checkpoint holds. Transitions never reach it: {@link BackfillFetch} applies
 * them between the records.
 */
@Internal
final class BackfillRecordEmitter<T>
        implements RecordEmitter<BackfillRecord<T>, T, BackfillSplitState> {

    private final Counter backfilledRecords;

    BackfillRecordEmitter(Counter backfilledRecords) {
        this.backfilledRecords = backfilledRecords;
    }

    @Override
    public void emitRecord(
            BackfillRecord<T> record, SourceOutput<T> output, BackfillSplitState split) {
        output.collect(record.value(), record.timestamp());
        split.recordEmitted(record.offset());
        if (split.state() == HandoverState.BACKFILLING) {
            split.countBackfilled();
            backfilledRecords.inc();
        }
    }
}
