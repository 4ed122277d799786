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
package dev.sourcebackfill.source.reader;

import dev.sourcebackfill.source.spi.OffsetCommitter;
import dev.sourcebackfill.source.split.BackfillSplit;
import dev.sourcebackfill.source.split.SplitKind;

import org.apache.flink.annotation.Internal;
import org.apache.flink.annotation.VisibleForTesting;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;

/**
 * The positions each pending checkpoint holds, handed to the log's {@link OffsetCommitter} when the
 * checkpoint completes. A notification may be missed or subsume earlier ones: completion of
 * checkpoint n commits the newest positions taken at or before n and forgets all older ones.
 */
@Internal
final class CheckpointOffsets implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(CheckpointOffsets.class);

    private final OffsetCommitter committer;
    private final NavigableMap<Long, Map<String, Long>> pending = new TreeMap<>();

    CheckpointOffsets(OffsetCommitter committer) {
        this.committer = committer;
    }

    /**
     * @param forward whether the reader is in forward mode: a completed checkpoint then had every
     *     history split ended, so a log split whose history was cut has emitted everything below
     *     its position
     */
    void snapshotted(long checkpointId, List<BackfillSplit> splits, boolean forward) {
        Map<String, Long> offsets = new HashMap<>(splits.size() * 2);
        for (BackfillSplit split : splits) {
            // a history split's position is no log position (a chunk's, a table's rows'); and
            // until every history split ended, a log split whose history is read elsewhere has not
            // emitted everything below its position
            if (split.kind() == SplitKind.LOG && (forward || !split.hasHistoryElsewhere())) {
                offsets.put(split.splitId(), split.nextOffset());
            }
        }
        pending.put(checkpointId, offsets);
    }

    void completed(long checkpointId) {
        NavigableMap<Long, Map<String, Long>> done = pending.headMap(checkpointId, true);
        if (done.isEmpty()) {
            return;
        }
        Map.Entry<Long, Map<String, Long>> newest = done.lastEntry();
        if (!newest.getValue().isEmpty()) {
            try {
                committer.commitOffsets(checkpointId, newest.getValue());
            } catch (RuntimeException e) {
                // committing is informative only; the checkpoint stands
                LOG.warn("Committing the offsets of checkpoint {} failed", checkpointId, e);
            }
        }
        done.clear();
    }

    /** Checkpoints whose positions wait for completion. */
    @VisibleForTesting
    int pendingCheckpoints() {
        return pending.size();
    }

    @Override
    public void close() throws Exception {
        committer.close();
    }
}
