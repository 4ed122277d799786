package dev.sourcebackfill.source.reader;

import org.apache.flink.annotation.Internal;

/**
 * Whether the source reader is in forward mode, shared between the task thread (which changes it)
 * and the fetcher thread (which releases backfill resources when it is set).
 */
@Internal
final class ReaderMode {

    private volatile boolean forward;

    boolean isForward() {
        return forward;
    }

    void setForward(boolean forward) {
        this.forward = forward;
    }
}
