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
package dev.sourcebackfill.source.enumerator;

import dev.sourcebackfill.source.control.BackfillControl;
import dev.sourcebackfill.source.split.BackfillSplit;
import dev.sourcebackfill.source.split.HandoverState;
import dev.sourcebackfill.source.split.SplitKind;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.OptionalLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class BackfillEnumeratorStateSerializerTest {

    private final BackfillEnumeratorStateSerializer serializer =
            new BackfillEnumeratorStateSerializer();

    static BackfillEnumeratorState v1State() {
        return new BackfillEnumeratorState(
                List.of(
                        new BackfillEnumeratorState.SplitEntry(
                                new BackfillSplit(
                                        "a", HandoverState.FINISHED, 10, 10, OptionalLong.empty()),
                                true,
                                false),
                        new BackfillEnumeratorState.SplitEntry(
                                new BackfillSplit(
                                        "b", HandoverState.BACKFILLING, 0, 20, OptionalLong.of(30)),
                                false,
                                true)),
                true);
    }

    /** Version 1 bytes of {@link #v1State()}: never change them. */
    static final String V1_BYTES =
            "01"
                    + "00000002"
                    + "000161"
                    + "02"
                    + "000000000000000a"
                    + "000000000000000a"
                    + "00"
                    + "01"
                    + "00"
                    + "000162"
                    + "00"
                    + "0000000000000000"
                    + "0000000000000014"
                    + "01"
                    + "000000000000001e"
                    + "00"
                    + "01";

    /**
     * Version 2 bytes of {@link #v2State()}: the split serializer's version (2), then version 1's
     * fields with each split in split version 2. Never change them.
     */
    static final String V2_BYTES =
            "00000002"
                    + "01"
                    + "00000002"
                    + "000161"
                    + "02"
                    + "000000000000000a"
                    + "000000000000000a"
                    + "00"
                    + "0000000000000007"
                    + "01"
                    + "00"
                    + "000162"
                    + "00"
                    + "0000000000000000"
                    + "0000000000000014"
                    + "01"
                    + "000000000000001e"
                    + "0000000000000000"
                    + "00"
                    + "01";

    static BackfillEnumeratorState v2State() {
        return new BackfillEnumeratorState(
                List.of(
                        new BackfillEnumeratorState.SplitEntry(
                                new BackfillSplit(
                                        "a",
                                        HandoverState.FINISHED,
                                        10,
                                        10,
                                        OptionalLong.empty(),
                                        7),
                                true,
                                false),
                        new BackfillEnumeratorState.SplitEntry(
                                new BackfillSplit(
                                        "b", HandoverState.BACKFILLING, 0, 20, OptionalLong.of(30)),
                                false,
                                true)),
                true);
    }

    /**
     * Version 2 bytes of {@link #withChunkState()} as this release writes them: split version 3,
     * with a log split and a chunk of its history. Never change them.
     */
    static final String V2_WITH_SPLIT_V3_BYTES =
            "00000003"
                    + "01"
                    + "00000002"
                    + "000161"
                    + "02"
                    + "000000000000000a"
                    + "000000000000000a"
                    + "00"
                    + "0000000000000007"
                    + "00"
                    + "00"
                    + "01"
                    + "00"
                    + "000961236368756e6b2d30"
                    + "00"
                    + "0000000000000002"
                    + "0000000000000004"
                    + "01"
                    + "0000000000000004"
                    + "0000000000000002"
                    + "01"
                    + "000161"
                    + "00000000"
                    + "00"
                    + "01"
                    + "00";

    static BackfillEnumeratorState withChunkState() {
        return new BackfillEnumeratorState(
                List.of(
                        new BackfillEnumeratorState.SplitEntry(
                                new BackfillSplit(
                                        "a",
                                        HandoverState.FINISHED,
                                        10,
                                        10,
                                        OptionalLong.empty(),
                                        7),
                                true,
                                false),
                        new BackfillEnumeratorState.SplitEntry(
                                BackfillSplit.historyChunk("a", 0, 0, 4)
                                        .withProgress(HandoverState.BACKFILLING, 2, 4, 2),
                                true,
                                false)),
                true);
    }

    @Test
    void roundTrips() throws IOException {
        List<BackfillEnumeratorState.SplitEntry> entries = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            entries.add(
                    new BackfillEnumeratorState.SplitEntry(
                            new BackfillSplit(
                                    "split-" + i,
                                    HandoverState.values()[i % 3],
                                    i,
                                    2L * i,
                                    i % 2 == 0 ? OptionalLong.empty() : OptionalLong.of(3L * i),
                                    i / 3),
                            i % 5 != 0,
                            i % 7 == 0));
        }
        for (boolean initialDone : new boolean[] {true, false}) {
            BackfillEnumeratorState state = new BackfillEnumeratorState(entries, initialDone);
            assertThat(serializer.deserialize(serializer.getVersion(), serializer.serialize(state)))
                    .isEqualTo(state);
        }
        BackfillEnumeratorState empty = new BackfillEnumeratorState(List.of(), false);
        assertThat(serializer.deserialize(serializer.getVersion(), serializer.serialize(empty)))
                .isEqualTo(empty);
    }

    @Test
    void readsVersion1Bytes() throws IOException {
        assertThat(serializer.deserialize(1, HexFormat.of().parseHex(V1_BYTES)))
                .isEqualTo(v1State());
    }

    @Test
    void readsVersion2BytesWithSplitVersion2() throws IOException {
        assertThat(serializer.deserialize(2, HexFormat.of().parseHex(V2_BYTES)))
                .isEqualTo(v2State());
    }

    @Test
    void readsVersion2BytesWithSplitVersion3AndAChunk() throws IOException {
        assertThat(serializer.deserialize(2, HexFormat.of().parseHex(V2_WITH_SPLIT_V3_BYTES)))
                .isEqualTo(withChunkState());
    }

    /**
     * Version 2 bytes of {@link #withHistoryVersionState()} as this release writes them: split
     * version 4, a split with its history version. Never change them.
     */
    static final String V2_WITH_SPLIT_V4_BYTES =
            "00000004"
                    + "01"
                    + "00000001"
                    + "000161"
                    + "02"
                    + "000000000000000a"
                    + "000000000000000a"
                    + "00"
                    + "0000000000000007"
                    + "00"
                    + "00"
                    + "01"
                    + "00023432"
                    + "01"
                    + "00";

    static BackfillEnumeratorState withHistoryVersionState() {
        return new BackfillEnumeratorState(
                List.of(
                        new BackfillEnumeratorState.SplitEntry(
                                new BackfillSplit(
                                                "a",
                                                HandoverState.FINISHED,
                                                10,
                                                10,
                                                OptionalLong.empty(),
                                                7)
                                        .withHistoryVersion("42"),
                                true,
                                false)),
                true);
    }

    @Test
    void readsAndWritesVersion2BytesWithSplitVersion4AndAHistoryVersion() throws IOException {
        BackfillEnumeratorState read =
                serializer.deserialize(2, HexFormat.of().parseHex(V2_WITH_SPLIT_V4_BYTES));
        assertThat(read).isEqualTo(withHistoryVersionState());
        assertThat(read.splits().get(0).split().historyVersion()).contains("42");
    }

    /**
     * Version 2 bytes of {@link #withHistoryVersionState()} with its splits in split serializer
     * version 5: the same fields, then the split's kind (LOG) before assigned and ended. Never
     * change them.
     */
    static final String V2_WITH_SPLIT_V5_BYTES =
            "00000005"
                    + "01"
                    + "00000001"
                    + "000161"
                    + "02"
                    + "000000000000000a"
                    + "000000000000000a"
                    + "00"
                    + "0000000000000007"
                    + "00"
                    + "00"
                    + "01"
                    + "00023432"
                    + "00"
                    + "01"
                    + "00";

    @Test
    void readsVersion2BytesWithSplitVersion5() throws IOException {
        assertThat(serializer.deserialize(2, HexFormat.of().parseHex(V2_WITH_SPLIT_V5_BYTES)))
                .isEqualTo(withHistoryVersionState());
    }

    /**
     * Version 3 bytes of {@link #withControlState()}: version 2's, then the control applied last
     * (has-rate, the rate as a double, paused). Never change them.
     */
    static final String V3_BYTES = V2_WITH_SPLIT_V5_BYTES + "01" + "4072c00000000000" + "01";

    static BackfillEnumeratorState withControlState() {
        BackfillEnumeratorState splits = withHistoryVersionState();
        return new BackfillEnumeratorState(
                splits.splits(),
                splits.initialDiscoveryDone(),
                BackfillControl.asBuilt().withRate(300).withPaused(true));
    }

    @Test
    void readsAndWritesVersion3BytesWithTheControl() throws IOException {
        assertThat(serializer.getVersion()).isEqualTo(3);
        assertThat(HexFormat.of().formatHex(serializer.serialize(withControlState())))
                .isEqualTo(V3_BYTES);
        assertThat(serializer.deserialize(3, HexFormat.of().parseHex(V3_BYTES)))
                .isEqualTo(withControlState());
        // without a control: has-rate false, not paused
        assertThat(HexFormat.of().formatHex(serializer.serialize(withHistoryVersionState())))
                .isEqualTo(V2_WITH_SPLIT_V5_BYTES + "00" + "00");
        // an older version has the control as built
        assertThat(
                        serializer
                                .deserialize(2, HexFormat.of().parseHex(V2_WITH_SPLIT_V5_BYTES))
                                .control())
                .isEqualTo(BackfillControl.asBuilt());
    }

    @Test
    void aChunkedStateRoundTrips() throws IOException {
        // a chunked state round-trips in the current split version
        assertThat(
                        serializer.deserialize(
                                serializer.getVersion(), serializer.serialize(withChunkState())))
                .isEqualTo(withChunkState());
    }

    @Test
    void splitsStoredWithoutAKindGetTheKindTheLogGivesTheirIds() throws IOException {
        BackfillEnumeratorStateSerializer byLog =
                new BackfillEnumeratorStateSerializer(
                        id -> id.equals("a") ? SplitKind.HISTORY : SplitKind.LOG);
        // split "a" of V2_WITH_SPLIT_V4_BYTES is FINISHED: no history split can be, so the log's
        // word is checked, and the error names the split
        assertThatThrownBy(
                        () -> byLog.deserialize(2, HexFormat.of().parseHex(V2_WITH_SPLIT_V4_BYTES)))
                .hasMessageContaining("History split a must be a BACKFILLING split");
        assertThat(
                        new BackfillEnumeratorStateSerializer(id -> SplitKind.LOG)
                                .deserialize(2, HexFormat.of().parseHex(V2_WITH_SPLIT_V4_BYTES)))
                .isEqualTo(withHistoryVersionState());
    }

    @Test
    void readsTheSplitsInTheSplitVersionItRecorded() throws IOException {
        // a version-2 state whose splits were written by split serializer version 1
        String withVersion1Splits = "00000001" + V1_BYTES;
        assertThat(serializer.deserialize(2, HexFormat.of().parseHex(withVersion1Splits)))
                .isEqualTo(v1State());
    }

    @Test
    void rejectsUnknownVersions() {
        assertThatThrownBy(() -> serializer.deserialize(0, new byte[0]))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("version 0");
    }
}
