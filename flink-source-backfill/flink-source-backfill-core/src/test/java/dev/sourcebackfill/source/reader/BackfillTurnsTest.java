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

import dev.sourcebackfill.source.OffsetGapPolicy;
import dev.sourcebackfill.source.split.BackfillSplit;
import dev.sourcebackfill.source.split.HandoverState;

import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

import static org.assertj.core.api.Assertions.assertThat;

/** The decisions of {@link BackfillTurns}: which split reads a log split on the backfill reader. */
class BackfillTurnsTest {

    private final Map<String, SplitHandover<Object>> held = new HashMap<>();
    private final AlignmentPauses pauses = new AlignmentPauses(false, 0);

    private BackfillTurns turns(boolean ownPartFirst) {
        return new BackfillTurns(
                ownPartFirst, pauses, handover -> held.get(handover.splitId()) == handover, 0);
    }

    private SplitHandover<Object> handover(BackfillSplit split) {
        SplitHandover<Object> handover =
                new SeekableLiveHandover<>(
                        split, OffsetGapPolicy.FAIL, new NoLivePositions(), new NoOutput());
        held.put(split.splitId(), handover);
        return handover;
    }

    private SplitHandover<Object> own(String logSplitId) {
        return handover(
                new BackfillSplit(
                        logSplitId, HandoverState.BACKFILLING, 4, 10, OptionalLong.empty()));
    }

    private SplitHandover<Object> chunk(String logSplitId, int index) {
        return handover(BackfillSplit.historyChunk(logSplitId, index, index * 2L, index * 2L + 2));
    }

    @Test
    void aFreeLogSplitIsReadAndAnotherSplitOfItWaits() {
        BackfillTurns turns = turns(false);
        SplitHandover<Object> a = own("a");
        SplitHandover<Object> b = own("b");
        SplitHandover<Object> chunk1 = chunk("a", 1);
        assertThat(turns.admit(a)).isEqualTo(BackfillTurns.Admission.READS);
        assertThat(turns.admit(b)).isEqualTo(BackfillTurns.Admission.READS);
        // a chunk is older than its log split's own part: with a seekable live reader it goes first
        assertThat(turns.admit(chunk1)).isEqualTo(BackfillTurns.Admission.DISPLACES);
        assertThat(turns.holder("a")).isSameAs(chunk1);
        assertThat(turns.reading()).containsExactlyInAnyOrder("b", "a#chunk-1");
        // a younger split waits
        SplitHandover<Object> chunk2 = chunk("a", 2);
        assertThat(turns.admit(chunk2)).isEqualTo(BackfillTurns.Admission.WAITS);
        assertThat(turns.isReading("a#chunk-2")).isFalse();
    }

    @Test
    void theOwnPartReadsFirstWithAFeed() {
        BackfillTurns turns = turns(true);
        SplitHandover<Object> a = own("a");
        SplitHandover<Object> chunk0 = chunk("a", 0);
        assertThat(turns.admit(a)).isEqualTo(BackfillTurns.Admission.READS);
        assertThat(turns.admit(chunk0)).isEqualTo(BackfillTurns.Admission.WAITS);
        assertThat(turns.holder("a")).isSameAs(a);
    }

    @Test
    void aReleasedLogSplitGoesToTheOldestWaitingSplitThatStillBackfills() {
        BackfillTurns turns = turns(false);
        SplitHandover<Object> chunk0 = chunk("a", 0);
        SplitHandover<Object> own = own("a");
        SplitHandover<Object> chunk2 = chunk("a", 2);
        SplitHandover<Object> chunk1 = chunk("a", 1);
        turns.admit(chunk0);
        turns.admit(own);
        turns.admit(chunk2);
        turns.admit(chunk1);
        // a waiting split that was removed (and added again as a new handover) is dropped
        held.remove("a#chunk-1");
        turns.stopReading("a#chunk-0");
        assertThat(turns.reading()).isEmpty();
        assertThat(turns.takeStopped()).containsExactly("a");
        assertThat(turns.takeStopped()).isEmpty();
        assertThat(turns.release("a")).isSameAs(chunk2);
        assertThat(turns.holder("a")).isSameAs(chunk2);
        assertThat(turns.reading()).containsExactly("a#chunk-2");
        assertThat(turns.remove(chunk2)).isTrue();
        assertThat(turns.release("a")).isSameAs(own);
        assertThat(turns.release("a")).isNull();
        assertThat(turns.holder("a")).isNull();
    }

    @Test
    void aPausedHolderGivesWayToAWaitingSplitNotPausedAndWaitsForItsTurn() {
        BackfillTurns turns = turns(false);
        SplitHandover<Object> chunk0 = chunk("a", 0);
        SplitHandover<Object> chunk1 = chunk("a", 1);
        turns.admit(chunk0);
        turns.admit(chunk1);
        assertThat(turns.giveWayIfPaused("a")).as("the holder is not paused").isNull();
        pauses.request(List.of("a#chunk-0"), List.of(), held::containsKey);
        assertThat(turns.giveWayIfPaused("a")).isSameAs(chunk1);
        assertThat(turns.reading()).containsExactly("a#chunk-1");
        // when the log split is free again the paused one is next: nothing else waits
        turns.stopReading("a#chunk-1");
        turns.takeStopped();
        assertThat(turns.release("a")).isSameAs(chunk0);
        // a paused split that is older does not displace the holder
        SplitHandover<Object> own = own("a");
        turns.remove(chunk0);
        turns.release("a");
        turns.admit(own);
        SplitHandover<Object> chunk3 = chunk("a", 3);
        pauses.request(List.of("a#chunk-3"), List.of(), held::containsKey);
        assertThat(turns.admit(chunk3)).isEqualTo(BackfillTurns.Admission.WAITS);
        assertThat(turns.giveWayIfPaused("a")).as("only a paused split waits").isNull();
    }

    @Test
    void removingASplitThatStoppedButWasNotLetGoOfFreesItsLogSplit() {
        BackfillTurns turns = turns(false);
        SplitHandover<Object> a = own("a");
        turns.admit(a);
        turns.stopReading("a");
        assertThat(turns.remove(a)).isTrue();
        assertThat(turns.takeStopped()).as("no longer to let go of after the poll").isEmpty();
        SplitHandover<Object> b = own("b");
        assertThat(turns.remove(b)).as("never admitted").isFalse();
    }

    private static final class NoLivePositions implements SplitHandover.LivePositions {
        @Override
        public long earliestOffset(String splitId) {
            throw new AssertionError("not asked");
        }

        @Override
        public long position(String splitId) {
            throw new AssertionError("not asked");
        }
    }

    private static final class NoOutput implements SplitHandover.HandoverOutput<Object> {
        @Override
        public void emit(String splitId, long offset, long timestamp, Object record, boolean l) {}

        @Override
        public void transition(String splitId, HandoverState state, long next, long target) {}

        @Override
        public void startLive(String splitId, long offset) {}

        @Override
        public void gapSkipped(String splitId, long from, long to, boolean foundByReader) {}
    }
}
