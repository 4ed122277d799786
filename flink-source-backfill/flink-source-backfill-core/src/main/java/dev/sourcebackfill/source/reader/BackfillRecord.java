package dev.sourcebackfill.source.reader;

import org.apache.flink.annotation.Internal;

/** A record the fetcher hands to the task thread, with the offset it has in its split. */
@Internal
public final class BackfillRecord<T> {

    private final T value;
    private final long offset;
    private final long timestamp;

    BackfillRecord(T value, long offset, long timestamp) {
        this.value = value;
        this.offset = offset;
        this.timestamp = timestamp;
    }

    T value() {
        return value;
    }

    long offset() {
        return offset;
    }

    long timestamp() {
        return timestamp;
    }

    @Override
    public String toString() {
        return "Record{offset=" + offset + '}';
    }
}
