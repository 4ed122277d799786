package dev.sourcebackfill.source.kafka;

import org.apache.flink.annotation.PublicEvolving;

/**
 * Entry point of the Kafka adapter: {@code KafkaBackfillSource.<T>builder()} builds a
 * {@link dev.sourcebackfill.source.BackfillSource} over Kafka topics. Needs
 * {@code flink-connector-kafka} and {@code kafka-clients} on the job's class path (optional
 * dependencies of this library).
 */
@PublicEvolving
public final class KafkaBackfillSource {

    private KafkaBackfillSource() {}

    public static <T> KafkaBackfillSourceBuilder<T> builder() {
        return new KafkaBackfillSourceBuilder<>();
    }
}
