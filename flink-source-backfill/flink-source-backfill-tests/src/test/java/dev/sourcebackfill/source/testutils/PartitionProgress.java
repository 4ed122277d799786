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
 * Checks a partition's records piece by piece: the offsets {@code [k * pieceSize, (k + 1) *
 * pieceSize)} of piece {@code k} must come in order, each existing offset once. Without chunks of
 * history a partition is one piece (its records in order); with chunks of {@code pieceSize} records
 * cut from offset 0, each chunk is a piece, and so is each stretch of that size of the split's own
 * records. A piece whose count reached what the log has below its end (and the stop) is complete; a
 * partition is complete once all its pieces are.
 */
final class PartitionProgress {

    /** Each partition as one piece: its records in order. */
    static final long WHOLE_PARTITION = Long.MAX_VALUE;

    private PartitionProgress() {}

    static long pieceOf(long offset, long pieceSize) {
        return offset / pieceSize;
    }

    /**
     * @param last the last offset of the record's piece checked in checkpointed state, or {@code
     *     null} for none
     * @param count records of the piece counted so far
     * @return the new count of the piece
     */
    static long check(
            DatagenLog log,
            DatagenRecord record,
            Long last,
            long count,
            long pieceSize,
            Observations obs) {
        int p = record.partition;
        long piece = pieceOf(record.offset, pieceSize);
        long pieceStart = piece * pieceSize;
        long expected = nextExisting(log, p, last == null ? pieceStart - 1 : last);
        if (record.offset != expected) {
            obs.violations.add(
                    String.format(
                            "partition %d piece %d: expected offset %d after %s, got %d",
                            p, piece, expected, last, record.offset));
        }
        if (record.payload != DatagenLog.payloadOf(p, record.offset)) {
            obs.violations.add("partition " + p + " offset " + record.offset + ": wrong payload");
        }
        obs.recordsChecked.incrementAndGet();
        obs.maxOffsetSeen.accumulateAndGet(record.offset, Math::max);
        long newCount = count + 1;
        long expectedCount =
                obs.piecesRecordCounts.computeIfAbsent(
                        p + "/" + piece, k -> recordsInPiece(log, p, piece, pieceSize));
        if (newCount > expectedCount) {
            obs.violations.add(
                    String.format(
                            "partition %d piece %d has %d records in checkpointed state, the log "
                                    + "%d",
                            p, piece, newCount, expectedCount));
        } else if (newCount == expectedCount) {
            obs.completedPieces.put(p + "/" + piece, newCount);
            if (allPiecesComplete(log, p, pieceSize, obs)) {
                obs.completedPartitions.put(p, log.recordCount(p));
            }
        }
        return newCount;
    }

    /** The pieces of a partition below its stopping offset. */
    static long piecesOf(DatagenLog log, int partition, long pieceSize) {
        long stop = log.stoppingOffset(partition);
        return pieceSize == WHOLE_PARTITION ? 1 : (stop + pieceSize - 1) / pieceSize;
    }

    private static boolean allPiecesComplete(
            DatagenLog log, int partition, long pieceSize, Observations obs) {
        for (long piece = 0; piece < piecesOf(log, partition, pieceSize); piece++) {
            if (!obs.completedPieces.containsKey(partition + "/" + piece)) {
                return false;
            }
        }
        return true;
    }

    private static long recordsInPiece(DatagenLog log, int partition, long piece, long pieceSize) {
        if (pieceSize == WHOLE_PARTITION) {
            return log.recordCount(partition);
        }
        long end = Math.min((piece + 1) * pieceSize, log.stoppingOffset(partition));
        long n = 0;
        for (long o = piece * pieceSize; o < end; o++) {
            n += log.exists(partition, o) ? 1 : 0;
        }
        return n;
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
