package dev.sourcebackfill.source.spi;

import org.apache.flink.annotation.PublicEvolving;

import java.util.Map;

/**
 * Tells the log where the job is, once a checkpoint that holds those positions has completed
 * (Kafka: the consumer group's committed offsets, so that lag tools still work). Purely
 * informative: the source never reads what it committed, exactly-once rests on its checkpoints.
 *
 * <p>Called from the task thread; it should not block (hand the work to an asynchronous client).
 */
@PublicEvolving
public interface OffsetCommitter extends AutoCloseable {

    /**
     * @param checkpointId the completed checkpoint
     * @param nextOffsets split id -> the first offset the checkpoint has not emitted
     */
    void commitOffsets(long checkpointId, Map<String, Long> nextOffsets);

    @Override
    default void close() throws Exception {}
}
