package dev.sourcebackfill.source.event;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.source.SourceEvent;

/** An event the enumerator sends to readers; dispatched without a chain of type checks. */
@Internal
public interface ReaderBoundEvent extends SourceEvent {

    /** What a reader does with the events it receives. */
    interface Handler {
        void onReportAcknowledged(long readerIncarnation, long reportId);

        void onForwardMode(long checkpointId);
    }

    void dispatchTo(Handler handler);
}
