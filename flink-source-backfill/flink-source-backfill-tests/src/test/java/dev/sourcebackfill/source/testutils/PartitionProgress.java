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
package dev.sourcebackfill.source.testutils;

import dev.sourcebackfill.source.datagen.DatagenLog;
import dev.sourcebackfill.source.datagen.DatagenRecord;

/**
 * The exactly-once rule for one partition of a bounded {@link DatagenLog}: the next record must be
 * the next offset that exists after the last one (no gap, no duplicate, in order), with the log's
 * payload; the last record below the stopping offset completes the partition.
 */
final class PartitionProgress {

    private PartitionProgress() {}

    /**
     * @param last the last offset checked in checkpointed state, or {@code null} for none
     * @param count records counted so far
     * @return the new count
     */
    static long check(
            DatagenLog log, DatagenRecord record, Long last, long count, Observations obs) {
        int p = record.partition;
        long expected = nextExisting(log, p, last == null ? -1 : last);
        if (record.offset != expected) {
            obs.violations.add(
                    String.format(
                            "partition %d: expected offset %d after %s, got %d",
                            p, expected, last, record.offset));
        }
        if (record.payload != DatagenLog.payloadOf(p, record.offset)) {
            obs.violations.add("partition " + p + " offset " + record.offset + ": wrong payload");
        }
        obs.recordsChecked.incrementAndGet();
        obs.maxOffsetSeen.accumulateAndGet(record.offset, Math::max);
        long newCount = count + 1;
        if (nextExisting(log, p, record.offset) >= log.stoppingOffset(p)) {
            long expectedCount = log.recordCount(p);
            if (newCount != expectedCount) {
                obs.violations.add(
                        String.format(
                                "partition %d completed with %d records in checkpointed state, "
                                        + "expected %d",
                                p, newCount, expectedCount));
            }
            obs.completedPartitions.put(p, newCount);
        }
        return newCount;
    }

    private static long nextExisting(DatagenLog log, int partition, long after) {
        long o = after + 1;
        long stop = log.stoppingOffset(partition);
        while (o < stop && !log.exists(partition, o)) {
            o++;
        }
        return o;
    }
}
