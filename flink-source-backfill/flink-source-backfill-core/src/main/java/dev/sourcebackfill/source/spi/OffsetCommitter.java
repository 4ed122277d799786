/*
 * Copyright 2026 the flink-source-backfill authors.
 *
 * Licensed under the Apache License, Version 2.0 (the "License");
 * you may not use this file except in compliance with the License.
 * You may obtain a copy of the License at
 *
 *     http://www.apache.org/licenses/LICENSE-2.0
 *
 * Unless required by applicable law or agreed to in writing, software
 * distributed under the License is distributed on an "AS IS" BASIS,
 * WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
 * See the License for the specific language governing permissions and
 * limitations under the License.
 */
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
