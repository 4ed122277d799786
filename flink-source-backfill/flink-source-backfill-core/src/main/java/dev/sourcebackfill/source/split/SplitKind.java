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
package dev.sourcebackfill.source.split;

import org.apache.flink.annotation.PublicEvolving;

/**
 * What a split is to the source: one of the log's splits, which is backfilled and then read live,
 * or a piece of history, which the backfill alone reads.
 *
 * <pre>
 *   LOG:      BACKFILLING ──▶ CACHING_UP ──▶ FINISHED   (then live for ever, or to its stop)
 *             its position is committed to the log
 *
 *   HISTORY:  BACKFILLING ──▶ ended at its stop          (never live, never committed)
 * </pre>
 *
 * <p>A history split is bounded, its backfill target is its stop, and it stays BACKFILLING until it
 * has emitted every offset below its stop: a chunk of a log split's history ({@link HistoryChunk}),
 * or a part of another store's history that is read as a split of its own (an Iceberg table's
 * rows). Its offsets are positions in that history and say nothing of the log's positions, so they
 * are never committed to the log; a history split whose backfill ends below its stop lacks the rest
 * (a gap: the source's gap policy decides), as no live reader comes after it.
 *
 * <p>The codes are stable: they are written into checkpoints.
 */
@PublicEvolving
public enum SplitKind {
    /** One of the log's splits (a Kafka partition): backfilled, handed over, then read live. */
    LOG(0),
    /** History read by the backfill alone, ended at its stop; never read live nor committed. */
    HISTORY(1);

    private final int code;

    SplitKind(int code) {
        this.code = code;
    }

    /** The stable code written into checkpoints. */
    public int code() {
        return code;
    }

    /**
     * @throws IllegalArgumentException naming the split if the code is unknown (newer state)
     */
    public static SplitKind fromCode(int code, String splitId) {
        for (SplitKind kind : values()) {
            if (kind.code == code) {
                return kind;
            }
        }
        throw new IllegalArgumentException(
                String.format(
                        "Split %s has kind %d, which this version of flink-source-backfill does not know (kinds %s): the state was written by a newer version",
                        splitId, code, java.util.Arrays.toString(values())));
    }
}
