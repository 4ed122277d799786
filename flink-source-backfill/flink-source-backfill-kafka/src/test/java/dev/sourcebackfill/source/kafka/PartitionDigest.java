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
package dev.sourcebackfill.source.kafka;

import org.apache.kafka.clients.consumer.ConsumerRecord;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/** Count, last offset and a checksum of one partition's records: equal digests, equal records. */
public final class PartitionDigest {
    final long count;
    final long lastOffset;
    final long checksum;

    public PartitionDigest(long count, long lastOffset, long checksum) {
        this.count = count;
        this.lastOffset = lastOffset;
        this.checksum = checksum;
    }

    /** Per partition ("topic-partition"), the digest of the records, in offset order. */
    public static Map<String, PartitionDigest> of(List<ConsumerRecord<String, String>> records) {
        Map<String, PartitionDigest> digests = new TreeMap<>();
        for (ConsumerRecord<String, String> r : records) {
            digests.merge(
                    r.topic() + "-" + r.partition(),
                    empty().plus(r.offset(), r.value()),
                    (a, b) -> a.plus(r.offset(), r.value()));
        }
        return digests;
    }

    /** How many records. */
    public long count() {
        return count;
    }

    /** The offset of the last record; -1 for none. */
    public long lastOffset() {
        return lastOffset;
    }

    public static PartitionDigest empty() {
        return new PartitionDigest(0, -1, 0);
    }

    /**
     * Per partition, the digest of the records in any order: their count, highest offset and a
     * checksum that does not depend on their order (chunks of history have none across them).
     */
    public static Map<String, PartitionDigest> unorderedOf(
            List<ConsumerRecord<String, String>> records) {
        Map<String, PartitionDigest> digests = new TreeMap<>();
        for (ConsumerRecord<String, String> r : records) {
            digests.merge(
                    r.topic() + "-" + r.partition(),
                    empty().plusUnordered(r.offset(), r.value()),
                    (a, b) -> a.plusUnordered(r.offset(), r.value()));
        }
        return digests;
    }

    /** This digest with one more record, whatever the order of the records. */
    public PartitionDigest plusUnordered(long offset, String value) {
        long h = offset * 1_000_003L + (value == null ? 0 : value.hashCode());
        return new PartitionDigest(count + 1, Math.max(lastOffset, offset), checksum + h * h);
    }

    public PartitionDigest plus(long offset, String value) {
        long h = offset * 1_000_003L + (value == null ? 0 : value.hashCode());
        return new PartitionDigest(count + 1, offset, checksum * 31 + h);
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof PartitionDigest)) {
            return false;
        }
        PartitionDigest d = (PartitionDigest) o;
        return count == d.count && lastOffset == d.lastOffset && checksum == d.checksum;
    }

    @Override
    public int hashCode() {
        return Objects.hash(count, lastOffset, checksum);
    }

    @Override
    public String toString() {
        return "{count=" + count + ", last=" + lastOffset + ", checksum=" + checksum + '}';
    }
}
