package dev.sourcebackfill.source.kafka;

import dev.sourcebackfill.source.BackfillSource;

import org.apache.flink.annotation.PublicEvolving;

/**
 * Entry point of the Kafka adapter: {@code KafkaBackfill.<T>sourceBuilder()} builds a {@link
 * BackfillSource} that backfills each partition of Kafka topics and then reads it live.
 */
@PublicEvolving
public final class KafkaBackfill {

    private KafkaBackfill() {}

    /** A builder of a {@link BackfillSource} over Kafka topics. */
    public static <T> KafkaBackfillSourceBuilder<T> sourceBuilder() {
        return new KafkaBackfillSourceBuilder<>();
    }
}
