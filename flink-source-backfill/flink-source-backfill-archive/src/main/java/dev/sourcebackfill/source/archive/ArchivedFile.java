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
package dev.sourcebackfill.source.archive;

import org.apache.flink.annotation.PublicEvolving;

import java.io.Serializable;
import java.util.Objects;

/** What an archive file holds: records of one topic partition from {@code startOffset} on. */
@PublicEvolving
public final class ArchivedFile implements Serializable {

    private static final long serialVersionUID = 1L;

    private final String topic;
    private final int partition;
    private final long startOffset;

    public ArchivedFile(String topic, int partition, long startOffset) {
        this.topic = Objects.requireNonNull(topic, "topic");
        if (partition < 0 || startOffset < 0) {
            throw new IllegalArgumentException(
                    "An archived file's partition and start offset must not be negative, were "
                            + partition
                            + " and "
                            + startOffset);
        }
        this.partition = partition;
        this.startOffset = startOffset;
    }

    public String topic() {
        return topic;
    }

    public int partition() {
        return partition;
    }

    /** The Kafka offset of the file's first record. */
    public long startOffset() {
        return startOffset;
    }

    /** The id of the source's split for the partition: {@code topic-partition}, as Kafka's. */
    String splitId() {
        return topic + '-' + partition;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof ArchivedFile)) {
            return false;
        }
        ArchivedFile that = (ArchivedFile) o;
        return partition == that.partition
                && startOffset == that.startOffset
                && topic.equals(that.topic);
    }

    @Override
    public int hashCode() {
        return Objects.hash(topic, partition, startOffset);
    }

    @Override
    public String toString() {
        return topic + "-" + partition + "@" + startOffset;
    }
}
