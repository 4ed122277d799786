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

import dev.sourcebackfill.source.OffsetGapException;
import dev.sourcebackfill.source.OffsetGapPolicy;
import dev.sourcebackfill.source.OffsetRegressionException;
import dev.sourcebackfill.source.split.BackfillSplit;
import dev.sourcebackfill.source.split.HandoverState;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Every rule of the handover state machine, as a table. A row gives the live reader kind (S:
 * seekable, F: feed), the split's initial state, a list of steps, and what the handover must
 * output:
 *
 * <ul>
 *   <li>steps: {@code b5} backfill record at 5; {@code bp9} backfill position 9; {@code be9}
 *       bounded backfill ended at position 9; {@code u5} live record at 5; {@code up9} live
 *       position 9; {@code us} live started (given the split); {@code start} the split was added;
 *       {@code earliest7} the live reader's earliest offset is now 7 (a feed's earliest offset also
 *       moves with what it delivers: it never goes back); {@code bg3-8} the backfill reader found
 *       offsets 3..7 deleted where it was reading, {@code ug3-8} the live reader did;
 *   <li>output: {@code e5} record 5 emitted; {@code C@6} transition to CACHING_UP with next offset
 *       6; {@code F@6} to FINISHED; {@code skip3..7} offsets 3..7 skipped ({@code !}: found by a
 *       reader, which goes on after them by itself); then {@code end:STATE@next}, and {@code
 *       complete} for a bounded split that reached its stop.
 * </ul>
 */
class SplitHandoverTest {

    static Stream<Arguments> rules() {
        return Stream.of(
                // --- BACKFILLING: backfill records
                row(
                        "backfill record below target is emitted",
                        "S",
                        "B 0 10",
                        "b0 b1 b5",
                        "e0 e1 e5 end:BACKFILLING@6"),
                row(
                        "backfill record at the target's last offset moves to CACHING_UP",
                        "F",
                        "B 0 10",
                        "b8 b9",
                        "e8 e9 C@10 end:CACHING_UP@10"),
                row(
                        "backfill record beyond the target moves to CACHING_UP",
                        "F",
                        "B 0 10",
                        "b12",
                        "e12 C@13 end:CACHING_UP@13"),
                row(
                        "seekable: CACHING_UP is sought and FINISHED at once",
                        "S",
                        "B 0 10",
                        "b9 us",
                        "e9 C@10 F@10 end:FINISHED@10"),
                row(
                        "compaction holes: offsets need not be contiguous",
                        "S",
                        "B 0 10",
                        "b1 b4 b7",
                        "e1 e4 e7 end:BACKFILLING@8"),
                row(
                        "backfill position past the target without a record (markers)",
                        "F",
                        "B 0 10",
                        "b7 bp10",
                        "e7 C@10 end:CACHING_UP@10"),
                row(
                        "backfill position below the target changes nothing",
                        "F",
                        "B 0 10",
                        "b3 bp6",
                        "e3 end:BACKFILLING@4"),
                row(
                        "bounded backfill ended before the target",
                        "F",
                        "B 0 10",
                        "b3 be5",
                        "e3 C@5 end:CACHING_UP@5"),
                row(
                        "nothing to backfill: start at the target",
                        "F",
                        "B 10 10",
                        "start",
                        "C@10 end:CACHING_UP@10"),
                row(
                        "nothing to backfill, seekable: FINISHED at once",
                        "S",
                        "B 10 10",
                        "start us",
                        "C@10 F@10 end:FINISHED@10"),
                row(
                        "backfill records after CACHING_UP are dropped",
                        "F",
                        "B 0 3",
                        "b2 b3 b4",
                        "e2 C@3 end:CACHING_UP@3"),
                // --- BACKFILLING: live records (feed)
                row(
                        "live record at the last backfilled offset finishes the split",
                        "F",
                        "B 0 100",
                        "b0 b1 b2 u2",
                        "e0 e1 e2 F@3 end:FINISHED@3"),
                row(
                        "live record behind the backfill moves to CACHING_UP",
                        "F",
                        "B 0 100",
                        "b0 b1 b2 u1",
                        "e0 e1 e2 C@3 end:CACHING_UP@3"),
                row(
                        "live record ahead of the backfill raises the target",
                        "F",
                        "B 0 3",
                        "u5 b2 b3 b4 b5",
                        "e2 e3 e4 e5 C@6 end:CACHING_UP@6"),
                row(
                        "live position raises the target",
                        "F",
                        "B 0 3",
                        "up8 b2 b7",
                        "e2 e7 C@8 end:CACHING_UP@8"),
                // --- CACHING_UP
                row(
                        "CACHING_UP drops live records inside the backfilled range",
                        "F",
                        "C 6 6",
                        "u3 u4 u5",
                        "end:CACHING_UP@6"),
                row(
                        "CACHING_UP emits the first live record above the range",
                        "F",
                        "C 6 6",
                        "u5 u6 u7",
                        "F@6 e6 e7 end:FINISHED@8"),
                row(
                        "compaction removed the offset after the range",
                        "F",
                        "C 6 6",
                        "u5 u9",
                        "F@6 e9 end:FINISHED@10"),
                row(
                        "idle live reader: its position past the range finishes the split",
                        "F",
                        "C 6 6",
                        "up6",
                        "F@6 end:FINISHED@6"),
                row(
                        "live position still inside the range keeps CACHING_UP",
                        "F",
                        "C 6 6",
                        "up5",
                        "end:CACHING_UP@6"),
                row(
                        "restored CACHING_UP split on a seekable live reader",
                        "S",
                        "C 6 6",
                        "us",
                        "F@6 end:FINISHED@6"),
                // --- FINISHED
                row(
                        "FINISHED emits live records",
                        "S",
                        "F 6 6",
                        "us u6 u8",
                        "e6 e8 end:FINISHED@9"),
                row(
                        "a feed's replay of emitted records is dropped",
                        "F",
                        "F 6 6",
                        "us u4 u5 u6",
                        "e6 end:FINISHED@7"),
                // --- a feed given the split: where it starts
                row(
                        "a feed starting exactly at the archive's end hands over without a gap",
                        "F",
                        "B 0 1000",
                        "earliest1000 us b998 b999 be1000 u1000",
                        "e998 e999 C@1000 F@1000 e1000 end:FINISHED@1001"),
                row(
                        "a feed starting above the target: the backfill still reads up to it",
                        "F",
                        "B 0 1000",
                        "earliest1100 us b999 b1099 u1100",
                        "e999 e1099 C@1100 F@1100 e1100 end:FINISHED@1101"),
                row(
                        "a restored CACHING_UP split whose feed starts inside the range",
                        "F",
                        "C 6 6",
                        "earliest4 us u4 u5 u6",
                        "F@6 e6 end:FINISHED@7"),
                row(
                        "a restored FINISHED split whose feed replays from below",
                        "F",
                        "F 6 6",
                        "earliest2 us u5 u6",
                        "e6 end:FINISHED@7"),
                // --- bounded splits
                row(
                        "bounded: a backfill record at the stop completes the split",
                        "F",
                        "B 0 100 stop5",
                        "b3 b5",
                        "e3 end:BACKFILLING@4 complete"),
                row(
                        "bounded: the last record below the stop completes the split",
                        "F",
                        "B 0 100 stop5",
                        "b4",
                        "e4 end:BACKFILLING@5 complete"),
                row(
                        "bounded: a backfill reaching its stop at the target completes the split without a handover",
                        "S",
                        "B 0 3 stop3",
                        "earliest5 b0 b1 b2",
                        "e0 e1 e2 end:BACKFILLING@3 complete"),
                row(
                        "bounded: a backfill position at the stop and target completes the split without a handover",
                        "F",
                        "B 0 5 stop5",
                        "b2 bp5",
                        "e2 end:BACKFILLING@5 complete"),
                row(
                        "bounded: a split starting at its stop is not handed over",
                        "S",
                        "B 3 3 stop3",
                        "start",
                        "end:BACKFILLING@3 complete"),
                row(
                        "told to skip gaps, bounded: a backfill gap reaching the stop completes the split without a handover",
                        "S+skip",
                        "B 2 4 stop4",
                        "bg2-6",
                        "skip2..3! end:BACKFILLING@4 complete"),
                row(
                        "bounded: live position at the stop completes the split",
                        "S",
                        "F 6 6 stop9",
                        "us u7 up9",
                        "e7 end:FINISHED@8 complete"),
                row(
                        "bounded: live record beyond the stop is not emitted",
                        "S",
                        "F 6 6 stop9",
                        "us u8 u9",
                        "e8 end:FINISHED@9 complete"),
                row(
                        "told to skip gaps: a restored FINISHED split goes on at the live reader's earliest offset",
                        "S+skip",
                        "F 6 6",
                        "earliest9 us u9",
                        "skip6..8 e9 end:FINISHED@10"),
                row(
                        "told to skip gaps: a seekable live reader's earliest offset above the archive's end",
                        "S+skip",
                        "B 0 3",
                        "earliest7 b0 b1 b2 us u7",
                        "e0 e1 e2 C@3 skip3..6 F@7 e7 end:FINISHED@8"),
                row(
                        "told to skip gaps: a feed starting above the archive's end",
                        "F+skip",
                        "B 0 1000",
                        "earliest1100 us b999 be1000 u1100",
                        "e999 C@1000 skip1000..1099 F@1100 e1100 end:FINISHED@1101"),
                row(
                        "told to skip gaps, bounded: a restored FINISHED split whose gap reaches its stop completes",
                        "S+skip",
                        "F 6 6 stop10",
                        "earliest10 us",
                        "skip6..9 end:FINISHED@10 complete"),
                row(
                        "told to skip gaps, bounded: a feed's CACHING_UP split whose gap reaches its stop completes",
                        "F+skip",
                        "C 6 6 stop10",
                        "earliest10 us up10",
                        "skip6..9 F@10 end:FINISHED@10 complete"),
                row(
                        "told to skip gaps, no gap: nothing is skipped",
                        "S+skip",
                        "B 0 3",
                        "earliest3 b0 b1 b2 us u3",
                        "e0 e1 e2 C@3 F@3 e3 end:FINISHED@4"),
                // --- gaps a log reader found where it was reading (retention)
                row(
                        "told to skip gaps: the backfill reader's start was deleted, it goes on after the gap",
                        "S+skip",
                        "B 2 10",
                        "bg2-5 b5 b6",
                        "skip2..4! e5 e6 end:BACKFILLING@7"),
                row(
                        "told to skip gaps: a backfill gap past the target ends the backfill there",
                        "S+skip",
                        "B 2 10",
                        "bg2-12 us",
                        "skip2..11! C@12 F@12 end:FINISHED@12"),
                row(
                        "told to skip gaps: the live reader of a FINISHED split found its next offsets deleted",
                        "S+skip",
                        "F 6 6",
                        "us ug6-9 u9",
                        "skip6..8! e9 end:FINISHED@10"),
                row(
                        "told to skip gaps, bounded: a live reader gap reaching the stop completes the split",
                        "S+skip",
                        "F 6 6 stop9",
                        "us ug6-9",
                        "skip6..8! end:FINISHED@9 complete"),
                row(
                        "a backfill gap below what was emitted is no gap",
                        "S",
                        "B 0 10",
                        "b0 b1 b2 bg0-2 b3",
                        "e0 e1 e2 e3 end:BACKFILLING@4"),
                row(
                        "a backfill reader's gap after the backfill ended is the handover's to check",
                        "S",
                        "B 0 3",
                        "b0 b1 b2 bg3-5",
                        "e0 e1 e2 C@3 end:CACHING_UP@3"),
                row(
                        "a live reader's gap below the next offset is no gap",
                        "S",
                        "F 6 6",
                        "us ug2-6 u6",
                        "e6 end:FINISHED@7"),
                row(
                        "a feed's gap inside the target while backfilling is covered by the backfill",
                        "F",
                        "B 0 10",
                        "us ug0-5 b8 b9 u10",
                        "e8 e9 C@10 F@10 e10 end:FINISHED@11"),
                row(
                        "a feed's gap past the target while backfilling raises the target",
                        "F",
                        "B 0 10",
                        "us ug0-15 b9 b14 u15",
                        "e9 e14 C@15 F@15 e15 end:FINISHED@16"),
                row(
                        "told to skip gaps: a feed's gap while backfilling that the archive does not cover",
                        "F+skip",
                        "B 0 10",
                        "us ug0-15 b9 be10 up15",
                        "e9 C@10 skip10..14 F@15 end:FINISHED@15"),
                row(
                        "told to skip gaps: a feed found the next offsets of a CACHING_UP split deleted",
                        "F+skip",
                        "C 6 6",
                        "us ug6-10 u10",
                        "skip6..9! F@10 e10 end:FINISHED@11"));
    }

    static Stream<Arguments> failures() {
        return Stream.of(
                row(
                        "backfill offset regression",
                        "S",
                        "B 0 10",
                        "b5 b4",
                        "regression:split-1:backfill:4"),
                row(
                        "backfill duplicate offset",
                        "S",
                        "B 0 10",
                        "b5 b5",
                        "regression:split-1:backfill:5"),
                row(
                        "live regression on a FINISHED split (seekable)",
                        "S",
                        "F 6 6",
                        "us u6 u3",
                        "regression:split-1:live:3"),
                row(
                        "live regression while backfilling (feed)",
                        "F",
                        "B 0 100",
                        "u5 u4",
                        "regression:split-1:live:4"),
                row(
                        "a feed going backwards on a FINISHED split",
                        "F",
                        "F 6 6",
                        "us u5 u4",
                        "regression:split-1:live:4"),
                row(
                        "a feed going back below what it emitted on a FINISHED split",
                        "F",
                        "F 6 6",
                        "us u6 u7 u3",
                        "regression:split-1:live:3"),
                row(
                        "gap at the handover, seekable",
                        "S",
                        "B 0 10",
                        "earliest12 b9 us",
                        "gap:split-1:10:12"),
                row(
                        "gap at the handover, feed with an idle live reader",
                        "F",
                        "C 6 6",
                        "earliest8 us up9",
                        "gap:split-1:6:8"),
                row(
                        "gap at the handover, feed record",
                        "F",
                        "B 0 3",
                        "earliest7 us be3 u8",
                        "gap:split-1:3:7"),
                row(
                        "first start: a feed starting above the archive's end",
                        "F",
                        "B 0 1000",
                        "earliest1100 us b999 be1000 u1100",
                        "gap:split-1:1000:1100"),
                row(
                        "first start: a feed starting above the archive's end, idle",
                        "F",
                        "B 0 1000",
                        "earliest1100 us b999 be1000 up1100",
                        "gap:split-1:1000:1100"),
                row(
                        "restored FINISHED split whose feed now starts above its next offset",
                        "F",
                        "F 1000 1000",
                        "earliest1900 us",
                        "gap:split-1:1000:1900"),
                row(
                        "restored CACHING_UP split whose feed starts above its next offset",
                        "F",
                        "C 1000 1000",
                        "earliest1900 us u1900",
                        "gap:split-1:1000:1900"),
                row(
                        "restored CACHING_UP split, feed above next, idle",
                        "F",
                        "C 1000 1000",
                        "earliest1900 us up1900",
                        "gap:split-1:1000:1900"),
                row(
                        "gap on a restored FINISHED split",
                        "S",
                        "F 6 6",
                        "earliest9 us",
                        "gap:split-1:6:9"),
                row(
                        "the backfill reader found offsets deleted",
                        "S",
                        "B 2 10",
                        "bg2-5",
                        "deleted:split-1:2:5"),
                row(
                        "the live reader of a FINISHED split found offsets deleted",
                        "S",
                        "F 6 6",
                        "us u6 ug7-9",
                        "deleted:split-1:7:9"),
                row(
                        "a feed found the next offsets of a CACHING_UP split deleted",
                        "F",
                        "C 6 6",
                        "us ug6-10",
                        "deleted:split-1:6:10"),
                row(
                        "a feed's gap while backfilling that the archive does not cover",
                        "F",
                        "B 0 10",
                        "us ug0-15 b9 be10 up15",
                        "gap:split-1:10:15"),
                row(
                        "a feed passed records that an archive backfill did not cover",
                        "F",
                        "B 0 3",
                        "u2 u3 u4 b0 b1 b2 be3 up5",
                        "passed:split-1:3:4"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rules")
    void followsRule(String name, String kind, String initial, String steps, String expected)
            throws Exception {
        Run run = new Run(kind, initial);
        run.apply(steps);
        assertThat(run.trace()).as(name).isEqualTo(expected);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("failures")
    void failsLoudly(String name, String kind, String initial, String steps, String expected) {
        Run run = new Run(kind, initial);
        String[] e = expected.split(":");
        if (e[0].equals("regression")) {
            assertThatThrownBy(() -> run.apply(steps))
                    .isInstanceOf(OffsetRegressionException.class)
                    .hasMessageContaining("split " + e[1])
                    .hasMessageContaining("the " + e[2] + " reader delivered offset " + e[3]);
        } else if (e[0].equals("deleted")) {
            assertThatThrownBy(() -> run.apply(steps))
                    .isInstanceOf(OffsetGapException.class)
                    .hasMessageContaining("split " + e[1])
                    .hasMessageContaining("read from offset " + e[2])
                    .hasMessageContaining("starts at " + e[3]);
        } else if (e[0].equals("passed")) {
            assertThatThrownBy(() -> run.apply(steps))
                    .isInstanceOf(OffsetGapException.class)
                    .hasMessageContaining("split " + e[1])
                    .hasMessageContaining("ended below offset " + e[2])
                    .hasMessageContaining("offsets up to " + e[3]);
        } else {
            assertThatThrownBy(() -> run.apply(steps))
                    .isInstanceOf(OffsetGapException.class)
                    .hasMessageContaining("split " + e[1])
                    .hasMessageContaining("every offset below " + e[2])
                    .hasMessageContaining("earliest available offset is " + e[3]);
        }
    }

    private static Arguments row(
            String name, String kind, String initial, String steps, String expected) {
        return Arguments.of(name, kind, initial, steps, expected);
    }

    /** One handover fed with a row's steps, recording its output. */
    private static final class Run implements SplitHandover.HandoverOutput<String> {
        private final List<String> out = new ArrayList<>();
        private final SplitHandover<String> handover;
        private long earliest = 0;
        private final boolean seekable;

        Run(String kind, String initial) {
            String[] p = initial.split(" ");
            HandoverState state =
                    p[0].equals("B")
                            ? HandoverState.BACKFILLING
                            : p[0].equals("C") ? HandoverState.CACHING_UP : HandoverState.FINISHED;
            OptionalLong stop =
                    p.length > 3
                            ? OptionalLong.of(Long.parseLong(p[3].substring(4)))
                            : OptionalLong.empty();
            BackfillSplit split =
                    new BackfillSplit(
                            "split-1", state, Long.parseLong(p[1]), Long.parseLong(p[2]), stop);
            seekable = kind.startsWith("S");
            // "S+skip", "F+skip": the source is told to skip offset gaps
            OffsetGapPolicy policy =
                    kind.endsWith("+skip") ? OffsetGapPolicy.SKIP : OffsetGapPolicy.FAIL;
            // a feed stands at its earliest offset: the rows move both together (feedMovesTo)
            SplitHandover.LivePositions live =
                    new SplitHandover.LivePositions() {
                        @Override
                        public long earliestOffset(String splitId) {
                            return earliest;
                        }

                        @Override
                        public long position(String splitId) {
                            return earliest;
                        }
                    };
            handover =
                    seekable
                            ? new SeekableLiveHandover<>(split, policy, live, this)
                            : new LiveFeedHandover<>(split, policy, live, this);
        }

        void apply(String steps) throws Exception {
            for (String step : steps.split(" ")) {
                if (step.equals("start")) {
                    handover.start();
                } else if (step.equals("us")) {
                    handover.onLiveStarted();
                } else if (step.startsWith("earliest")) {
                    earliest = Long.parseLong(step.substring(8));
                } else if (step.startsWith("bg") || step.startsWith("ug")) {
                    String[] range = step.substring(2).split("-");
                    long from = Long.parseLong(range[0]);
                    long to = Long.parseLong(range[1]);
                    if (step.startsWith("bg")) {
                        handover.onBackfillGap(from, to);
                    } else {
                        handover.onLiveGap(from, to);
                    }
                } else if (step.startsWith("bp")) {
                    handover.onBackfillProgress(Long.parseLong(step.substring(2)), false);
                } else if (step.startsWith("be")) {
                    handover.onBackfillProgress(Long.parseLong(step.substring(2)), true);
                } else if (step.startsWith("up")) {
                    long position = Long.parseLong(step.substring(2));
                    feedMovesTo(position);
                    handover.onLiveProgress(position);
                } else if (step.startsWith("b")) {
                    long o = Long.parseLong(step.substring(1));
                    handover.onBackfillRecord(o, o, "r" + o);
                } else if (step.startsWith("u")) {
                    long o = Long.parseLong(step.substring(1));
                    feedMovesTo(o + 1);
                    handover.onLiveRecord(o, o, "r" + o);
                } else {
                    throw new IllegalArgumentException(step);
                }
            }
        }

        /** A feed delivers nothing below its read position: its earliest offset moves with it. */
        private void feedMovesTo(long position) {
            if (!seekable) {
                earliest = Math.max(earliest, position);
            }
        }

        String trace() {
            List<String> t = new ArrayList<>(out);
            t.add("end:" + handover.state() + "@" + handover.nextOffset());
            if (handover.isComplete()) {
                t.add("complete");
            }
            return String.join(" ", t);
        }

        @Override
        public void emit(String splitId, long offset, long timestamp, String value, boolean live) {
            assertThat(value).isEqualTo("r" + offset);
            out.add("e" + offset);
        }

        @Override
        public void gapSkipped(String splitId, long from, long to, boolean foundByReader) {
            out.add("skip" + from + ".." + (to - 1) + (foundByReader ? "!" : ""));
        }

        @Override
        public void transition(
                String splitId, HandoverState newState, long nextOffset, long target) {
            out.add(newState.name().charAt(0) + "@" + nextOffset);
        }

        @Override
        public void startLive(String splitId, long offset) {
            // a row says when the live reader started (us)
        }
    }
}
