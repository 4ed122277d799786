package dev.sourcebackfill.source.kafka;

import org.apache.flink.annotation.PublicEvolving;

/**
 * A Kafka problem the source cannot go on with; the message names the topic, partition and
 * offsets concerned (never a credential).
 */
@PublicEvolving
public class KafkaSourceException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public KafkaSourceException(String message, Throwable cause) {
        super(message, cause);
    }

    public KafkaSourceException(String message) {
        super(message);
    }
}
