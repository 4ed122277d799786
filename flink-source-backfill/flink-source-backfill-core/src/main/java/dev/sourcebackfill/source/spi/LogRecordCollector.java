package dev.sourcebackfill.source.spi;

import org.apache.flink.annotation.PublicEvolving;

/** Receives the records a {@link LogReader} delivers. */
@PublicEvolving
@FunctionalInterface
public interface LogRecordCollector<T> {

    /**
     * @param splitId the record's split
     * @param offset the record's offset within its split
     * @param timestamp the record's event time in epoch milliseconds
     * @param value the record
     */
    void collect(String splitId, long offset, long timestamp, T value);
}
