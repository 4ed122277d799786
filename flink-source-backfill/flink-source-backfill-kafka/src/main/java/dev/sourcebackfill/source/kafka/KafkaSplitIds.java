package dev.sourcebackfill.source.kafka;

import org.apache.flink.annotation.Internal;

import org.apache.kafka.common.TopicPartition;

/** A partition's split id is {@code topic-partition}, as in Flink's Kafka source. */
@Internal
final class KafkaSplitIds {

    private KafkaSplitIds() {}

    static String of(TopicPartition partition) {
        return partition.topic() + '-' + partition.partition();
    }

    static TopicPartition parse(String splitId) {
        // topic names may contain '-': the partition number follows the last one
        int dash = splitId.lastIndexOf('-');
        if (dash <= 0 || dash == splitId.length() - 1) {
            throw new IllegalArgumentException("Not a Kafka split id (topic-partition): " + splitId);
        }
        try {
            return new TopicPartition(
                    splitId.substring(0, dash), Integer.parseInt(splitId.substring(dash + 1)));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("Not a Kafka split id (topic-partition): " + splitId, e);
        }
    }
}
