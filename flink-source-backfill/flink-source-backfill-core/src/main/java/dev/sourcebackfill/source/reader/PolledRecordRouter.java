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

import dev.sourcebackfill.source.spi.LogRecordCollector;

import org.apache.flink.annotation.Internal;

import javax.annotation.Nullable;

import java.util.Map;

/**
 * Hands what the two log readers deliver to the handovers of the splits they read for, in the
 * fetcher thread: the live reader's records by split id, the backfill reader's by log split id to
 * the split that holds the log split there ({@link BackfillTurns#holder}). A log delivers runs of
 * one split, so the handover is looked up once per run, not once per record.
 */
@Internal
final class PolledRecordRouter {

    private final Map<String, SplitHandover<Object>> handovers;
    private final BackfillTurns turns;

    /** The split whose record came last and its handover, valid within one poll. */
    @Nullable private String lastSplitId;

    @Nullable private SplitHandover<Object> lastHandover;
    private boolean liveDelivered;

    PolledRecordRouter(Map<String, SplitHandover<Object>> handovers, BackfillTurns turns) {
        this.handovers = handovers;
        this.turns = turns;
    }

    /** The collector for a poll of the live reader. */
    LogRecordCollector<Object> forLivePoll() {
        liveDelivered = false;
        lastSplitId = null; // splits may have come or gone since the last poll
        return live;
    }

    /** The collector for a poll of the backfill reader. */
    LogRecordCollector<Object> forBackfillPoll() {
        lastSplitId = null;
        return backfill;
    }

    /** Whether the last poll of the live reader delivered a record. */
    boolean liveDelivered() {
        return liveDelivered;
    }

    private final LogRecordCollector<Object> live =
            new LogRecordCollector<>() {
                @Override
                public void collect(String splitId, long offset, long timestamp, Object value) {
                    liveDelivered = true;
                    if (!splitId.equals(lastSplitId)) {
                        lastSplitId = splitId;
                        lastHandover = handovers.get(splitId);
                    }
                    if (lastHandover != null) {
                        lastHandover.onLiveRecord(offset, timestamp, value);
                    }
                }

                @Override
                public void offsetsDeleted(String splitId, long from, long to) {
                    SplitHandover<Object> handover = handovers.get(splitId);
                    if (handover != null) {
                        handover.onLiveGap(from, to);
                    }
                }
            };

    private final LogRecordCollector<Object> backfill =
            new LogRecordCollector<>() {
                @Override
                public void collect(String logSplitId, long offset, long timestamp, Object value) {
                    if (!logSplitId.equals(lastSplitId)) {
                        lastSplitId = logSplitId;
                        lastHandover = turns.holder(logSplitId);
                    }
                    if (lastHandover != null) {
                        lastHandover.onBackfillRecord(offset, timestamp, value);
                    }
                }

                @Override
                public void offsetsDeleted(String logSplitId, long from, long to) {
                    SplitHandover<Object> handover = turns.holder(logSplitId);
                    if (handover != null) {
                        handover.onBackfillGap(from, to);
                    }
                }
            };
}
