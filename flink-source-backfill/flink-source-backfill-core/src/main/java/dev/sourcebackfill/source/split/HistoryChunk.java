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

import java.util.Objects;

/**
 * What makes a split a chunk of history: a piece {@code [from, to)} of a log split's history, cut
 * at discovery when the source is told to ({@code setBackfillChunkSize}), read by the backfill
 * reader of whichever source reader holds it and never handed over to the live reader. The log
 * split itself keeps the rest of its history, and its handover to the live reader.
 *
 * @param logSplitId the log's split whose history this chunk is a piece of (a Kafka partition)
 * @param index the chunk's place among the chunks of its log split, from 0 (in offset order)
 */
@PublicEvolving
public record HistoryChunk(String logSplitId, int index) {

    public HistoryChunk {
        Objects.requireNonNull(logSplitId, "logSplitId");
        if (index < 0) {
            throw new IllegalArgumentException(
                    "Chunk of split " + logSplitId + ": index must not be negative, was " + index);
        }
    }

    /** The id of the source split that reads the chunk: {@code <log split id>#chunk-<index>}. */
    public String splitId() {
        return logSplitId + "#chunk-" + index;
    }
}
