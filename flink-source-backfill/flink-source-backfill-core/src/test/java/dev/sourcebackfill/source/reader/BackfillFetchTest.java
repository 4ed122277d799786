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

import dev.sourcebackfill.source.split.HandoverState;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** A fetch gives only records out and applies each transition between the right two records. */
class BackfillFetchTest {

    private static final BackfillFetch.TransitionSink IGNORED =
            new BackfillFetch.TransitionSink() {
                @Override
                public void apply(String splitId, HandoverTransition transition) {}

                @Override
                public void gapSkipped(String splitId, long from, long to) {}
            };

    /** What the task thread saw, in order: offsets of records and the transitions applied. */
    private final List<String> seen = new ArrayList<>();

    private final BackfillFetch fetch =
            new BackfillFetch(
                    new BackfillFetch.TransitionSink() {
                        @Override
                        public void apply(String splitId, HandoverTransition t) {
                            seen.add(splitId + ":" + t.newState() + "@" + t.nextOffset());
                        }

                        @Override
                        public void gapSkipped(String splitId, long from, long to) {
                            seen.add(splitId + ":skipped " + from + ".." + (to - 1));
                        }
                    });

    /** Adds the backfill record at {@code offset}: raw {@code "v<offset>"}, timestamp 10x. */
    private static void add(BackfillFetch.SplitRun run, long offset) {
        run.addRecord("v" + offset, offset, 10 * offset, false);
    }

    private void drain() {
        String split;
        while ((split = fetch.nextSplit()) != null) {
            BackfillRecord r;
            while ((r = fetch.nextRecordFromSplit()) != null) {
                seen.add(split + ":" + r.offset());
            }
        }
    }

    @Test
    void transitionsAreAppliedBetweenTheRecordsTheyFollowAndPrecede() {
        BackfillFetch.SplitRun a = fetch.split("a");
        add(a, 0);
        add(a, 1);
        a.addTransition(new HandoverTransition(HandoverState.CACHING_UP, 2, 2));
        a.addTransition(new HandoverTransition(HandoverState.FINISHED, 2, 2));
        add(a, 2);
        fetch.split("b").addTransition(new HandoverTransition(HandoverState.CACHING_UP, 5, 5));
        add(fetch.split("a"), 3); // a later run of the same split
        fetch.split("a").addTransition(new HandoverTransition(HandoverState.BACKFILLING, 4, 9));

        drain();

        assertThat(seen)
                .containsExactly(
                        "a:0",
                        "a:1",
                        "a:CACHING_UP@2",
                        "a:FINISHED@2",
                        "a:2",
                        "a:3",
                        "a:BACKFILLING@4",
                        "b:CACHING_UP@5");
    }

    @Test
    void aTransitionIsAppliedOnlyOnceTheRecordBeforeItWasTakenOut() {
        BackfillFetch.SplitRun a = fetch.split("a");
        add(a, 0);
        a.addTransition(new HandoverTransition(HandoverState.CACHING_UP, 1, 1));
        add(a, 1);

        assertThat(fetch.nextSplit()).isEqualTo("a");
        assertThat(fetch.nextRecordFromSplit().offset()).isEqualTo(0);
        // record 0 is being emitted now: the transition must not show in the state yet
        assertThat(seen).isEmpty();
        assertThat(fetch.nextRecordFromSplit().offset()).isEqualTo(1);
        assertThat(seen).containsExactly("a:CACHING_UP@1");
        assertThat(fetch.nextRecordFromSplit()).isNull();
        assertThat(fetch.nextSplit()).isNull();
    }

    @Test
    void runsGrowBeyondTheirFirstCapacityAndHandOutEveryRecordInOrder() {
        BackfillFetch small = new BackfillFetch(IGNORED);
        for (int i = 0; i < 100; i++) {
            add(small.split(i % 2 == 0 ? "a" : "b"), i);
        }
        small.split("b").addTransition(new HandoverTransition(HandoverState.CACHING_UP, 100, 100));
        assertThat(small.averageRun()).isEqualTo(50);
        assertThat(small.recordCount()).isEqualTo(100);
        List<String> got = new ArrayList<>();
        String split;
        while ((split = small.nextSplit()) != null) {
            BackfillRecord r;
            while ((r = small.nextRecordFromSplit()) != null) {
                assertThat(r.raw()).isEqualTo("v" + r.offset());
                assertThat(r.timestamp()).isEqualTo(10 * r.offset());
                got.add(split + ":" + r.offset());
            }
        }
        assertThat(got).hasSize(100).startsWith("a:0", "a:2").endsWith("b:97", "b:99");

        // the next fetch, sized after this one, holds what comes as well
        BackfillFetch next = new BackfillFetch(IGNORED, small);
        for (int i = 0; i < 300; i++) {
            add(next.split("s" + (i % 30)), i);
        }
        assertThat(next.recordCount()).isEqualTo(300);
        assertThat(next.averageRun()).isEqualTo(10);
    }

    @Test
    void finishedSplitsAreReportedWithoutRecords() {
        fetch.addFinishedSplit("c");
        assertThat(fetch.nextSplit()).isNull();
        assertThat(fetch.finishedSplits()).containsExactly("c");
    }
}
