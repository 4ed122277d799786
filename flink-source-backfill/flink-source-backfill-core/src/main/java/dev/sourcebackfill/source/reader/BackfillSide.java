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

import dev.sourcebackfill.source.spi.LogReader;

import org.apache.flink.annotation.Internal;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Map;
import java.util.Optional;

/**
 * The backfill reader's side of a split reader, in the fetcher thread: it carries out on the
 * backfill reader what {@link BackfillTurns} decides (which split reads each log split, which
 * waits), keeps a split that alignment holds back paused there, and tells the handovers where the
 * backfill reader stands.
 */
@Internal
final class BackfillSide {

    private final LogReaders readers;
    private final AlignmentPauses pauses;
    private final BackfillTurns turns;
    private final FetchAssembly assembly;
    private final Map<String, SplitHandover<Object>> handovers;

    BackfillSide(
            LogReaders readers,
            AlignmentPauses pauses,
            BackfillTurns turns,
            FetchAssembly assembly,
            Map<String, SplitHandover<Object>> handovers) {
        this.readers = readers;
        this.pauses = pauses;
        this.turns = turns;
        this.assembly = assembly;
        this.handovers = handovers;
    }

    /** Whether a split reads on the backfill reader. */
    boolean isBackfilling() {
        return !turns.reading().isEmpty();
    }

    /**
     * Gives the backfill reader the split's log split at the split's next offset, or has the split
     * wait while another split of the same log split is read.
     */
    void start(SplitHandover<Object> handover) throws IOException {
        switch (turns.admit(handover)) {
            case WAITS:
                // behind a split alignment paused, it would wait for ever: that one gives way
                giveWayIfPaused(handover.logSplitId());
                return;
            case DISPLACES:
                readers.backfill().removeSplit(handover.logSplitId());
                read(handover, false);
                return;
            case READS:
                read(handover, false);
                return;
            default:
                throw new IllegalStateException("Unknown admission for " + handover.splitId());
        }
    }

    /** A split alignment paused gives its log split to a waiting one that is not paused. */
    void giveWayIfPaused(String logSplitId) throws IOException {
        SplitHandover<Object> next = turns.giveWayIfPaused(logSplitId);
        if (next != null) {
            readers.backfill().removeSplit(logSplitId);
            read(next, true);
        }
    }

    /** The split is no longer held: if it held its log split, the next waiting split reads it. */
    void remove(SplitHandover<Object> handover) throws IOException {
        if (turns.remove(handover)) {
            letGoOf(handover.logSplitId());
        }
    }

    /** The backfill reader lets go of the log splits of splits that stopped backfilling. */
    void releaseStopped() throws IOException {
        for (String logSplitId : turns.takeStopped()) {
            letGoOf(logSplitId);
        }
    }

    void poll(Duration wait, PolledRecordRouter router) throws IOException {
        readers.backfill().poll(wait, router.forBackfillPoll());
    }

    /**
     * Tells each backfilling split's handover where the backfill reader stands in its log split.
     */
    void observePositions() throws IOException {
        if (!isBackfilling()) {
            return;
        }
        LogReader<Object> backfill = readers.backfill();
        for (String splitId : new ArrayList<>(turns.reading())) {
            SplitHandover<Object> handover = handovers.get(splitId);
            String logSplitId = handover.logSplitId();
            handover.onBackfillProgress(
                    backfill.position(logSplitId), backfill.isEndOfSplit(logSplitId));
        }
    }

    /** Closes the backfill reader if it is open and no split reads on it. */
    boolean closeIfIdle() throws IOException {
        if (readers.openBackfill() == null || isBackfilling()) {
            return false;
        }
        readers.closeBackfill();
        return true;
    }

    private void letGoOf(String logSplitId) throws IOException {
        LogReader<Object> backfill = readers.openBackfill();
        if (backfill != null) {
            backfill.removeSplit(logSplitId);
        }
        SplitHandover<Object> next = turns.release(logSplitId);
        if (next != null) {
            read(next, true);
        }
    }

    /**
     * The backfill reader reads the split's log split from the split's next offset.
     *
     * @param waited whether the split waited for its turn: its split output may have been marked
     *     idle meanwhile
     */
    private void read(SplitHandover<Object> handover, boolean waited) throws IOException {
        String logSplitId = handover.logSplitId();
        LogReader<Object> backfill = readers.backfill();
        Optional<String> historyVersion = handover.historyVersion();
        if (historyVersion.isPresent()) {
            backfill.addSplit(logSplitId, handover.nextOffset(), historyVersion.get());
        } else {
            backfill.addSplit(logSplitId, handover.nextOffset());
        }
        if (waited) {
            assembly.turnStarted(handover.splitId());
        }
        pauses.keepPausedIn(backfill, handover.splitId(), logSplitId, "backfill");
    }
}
