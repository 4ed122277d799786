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

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.HexFormat;
import java.util.OptionalLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class BackfillSplitSerializerTest {

    /** Version 1 bytes of {@link #v1Split()}, written by the first release: never change them. */
    static final String V1_BYTES =
            "0007706172742d3132010000000000000064000000000000012c010000000000001388";

    static BackfillSplit v1Split() {
        return new BackfillSplit(
                "part-12", HandoverState.CACHING_UP, 100, 300, OptionalLong.of(5000));
    }

    /**
     * Version 2 bytes of {@link #v2Split()}: version 1's fields, then the records backfilled. Never
     * change them.
     */
    static final String V2_BYTES =
            "0007706172742d3132010000000000000064000000000000012c010000000000001388"
                    + "000000000006f855";

    static BackfillSplit v2Split() {
        return new BackfillSplit(
                "part-12", HandoverState.CACHING_UP, 100, 300, OptionalLong.of(5000), 456_789);
    }

    /**
     * Version 3 bytes of {@link #v3Chunk()}: version 2's fields, then whether the split is a chunk
     * and of which log split, at which index. Never change them.
     */
    static final String V3_CHUNK_BYTES =
            "000f706172742d3132236368756e6b2d370000000000000005dc00000000000007d001"
                    + "00000000000007d000000000000001f4010007706172742d31320000000700";

    /**
     * Version 3 bytes of {@link #v3WithHistoryInChunks()}: a log split whose history below its
     * start is in chunks. Never change them.
     */
    static final String V3_HISTORY_IN_CHUNKS_BYTES =
            "0007706172742d313200000000000000038400000000000003e800" + "00000000000000000001";

    static BackfillSplit v3WithHistoryInChunks() {
        return new BackfillSplit(
                        "part-12", HandoverState.BACKFILLING, 900, 1000, OptionalLong.empty())
                .withHistoryElsewhere();
    }

    static BackfillSplit v3Chunk() {
        return BackfillSplit.historyChunk("part-12", 7, 1_000, 2_000)
                .withProgress(HandoverState.BACKFILLING, 1_500, 2_000, 500);
    }

    /** Version 3 bytes of {@link #v2Split()}: a split that is not a chunk. Never change them. */
    static final String V3_BYTES =
            "0007706172742d3132010000000000000064000000000000012c010000000000001388"
                    + "000000000006f8550000";

    @Test
    void roundTripsEveryState() throws IOException {
        BackfillSplitSerializer serializer = BackfillSplitSerializer.INSTANCE;
        for (HandoverState state : HandoverState.values()) {
            for (OptionalLong stop :
                    new OptionalLong[] {OptionalLong.empty(), OptionalLong.of(77)}) {
                BackfillSplit split = new BackfillSplit("s-" + state, state, 5, 9, stop, 4);
                assertThat(
                                serializer.deserialize(
                                        serializer.getVersion(), serializer.serialize(split)))
                        .isEqualTo(split);
            }
        }
    }

    @Test
    void readsVersion1Bytes() throws IOException {
        byte[] bytes = HexFormat.of().parseHex(V1_BYTES);
        BackfillSplit read = BackfillSplitSerializer.INSTANCE.deserialize(1, bytes);
        assertThat(read).isEqualTo(v1Split());
        assertThat(read.backfilledRecords()).isZero();
    }

    @Test
    void readsVersion2Bytes() throws IOException {
        byte[] bytes = HexFormat.of().parseHex(V2_BYTES);
        assertThat(BackfillSplitSerializer.INSTANCE.deserialize(2, bytes)).isEqualTo(v2Split());
    }

    /** Version 4 bytes of {@link #v2Split()}: no history version. Never change them. */
    static final String V4_BYTES =
            "0007706172742d3132010000000000000064000000000000012c010000000000001388"
                    + "000000000006f855000000";

    /**
     * Version 4 bytes of {@link #v4WithHistoryVersion()}: version 3's fields, then the history
     * version the backfill reads (a table snapshot). Never change them.
     */
    static final String V4_HISTORY_VERSION_BYTES =
            "0007706172742d313200000000000000038400000000000003e800"
                    + "0000000000000000000001001337323439383635313533363035343439323035";

    static BackfillSplit v4WithHistoryVersion() {
        return new BackfillSplit(
                        "part-12", HandoverState.BACKFILLING, 900, 1000, OptionalLong.empty())
                .withHistoryVersion("7249865153605449205");
    }

    @Test
    void readsAndWritesVersion4Bytes() throws IOException {
        BackfillSplitSerializer serializer = BackfillSplitSerializer.INSTANCE;
        assertThat(serializer.deserialize(4, HexFormat.of().parseHex(V4_BYTES)))
                .isEqualTo(v2Split());
        BackfillSplit versioned =
                serializer.deserialize(4, HexFormat.of().parseHex(V4_HISTORY_VERSION_BYTES));
        assertThat(versioned).isEqualTo(v4WithHistoryVersion());
        assertThat(versioned.historyVersion()).contains("7249865153605449205");
        // progress and the history read elsewhere keep the version
        assertThat(
                        versioned
                                .withProgress(HandoverState.CACHING_UP, 1000, 1200)
                                .withHistoryElsewhere()
                                .historyVersion())
                .contains("7249865153605449205");
    }

    @Test
    void readsVersion3Bytes() throws IOException {
        BackfillSplitSerializer serializer = BackfillSplitSerializer.INSTANCE;
        assertThat(serializer.deserialize(3, HexFormat.of().parseHex(V3_BYTES)))
                .isEqualTo(v2Split());
        BackfillSplit chunk = serializer.deserialize(3, HexFormat.of().parseHex(V3_CHUNK_BYTES));
        assertThat(chunk).isEqualTo(v3Chunk());
        assertThat(chunk.chunk()).contains(new HistoryChunk("part-12", 7));
        assertThat(chunk.logSplitId()).isEqualTo("part-12");
        assertThat(chunk.historyVersion()).isEmpty();
        BackfillSplit inChunks =
                serializer.deserialize(3, HexFormat.of().parseHex(V3_HISTORY_IN_CHUNKS_BYTES));
        assertThat(inChunks).isEqualTo(v3WithHistoryInChunks());
        assertThat(inChunks.hasHistoryElsewhere()).isTrue();
    }

    @Test
    void roundTripsAnEndedChunk() throws IOException {
        BackfillSplit ended = v3Chunk().asEnded();
        BackfillSplitSerializer serializer = BackfillSplitSerializer.INSTANCE;
        assertThat(serializer.deserialize(4, serializer.serialize(ended)))
                .isEqualTo(ended)
                .matches(BackfillSplit::isEnded);
    }

    /**
     * Version 4 bytes of a history split of the log (id {@code history-3}, positions [200, 400), 17
     * records read) from a release without kinds: the log told its kind by its id. Never change
     * them.
     */
    static final String V4_HISTORY_SPLIT_BYTES =
            "0009686973746f72792d330000000000000000c8000000000000019001000000000000019000"
                    + "00000000000011000000";

    /** As {@link #V4_HISTORY_SPLIT_BYTES}, cut into chunks: it was marked "history elsewhere". */
    static final String V4_CUT_HISTORY_SPLIT_BYTES =
            "0009686973746f72792d3300000000000000015e00000000000001900100000000000001900000"
                    + "000000000000000100";

    /** Tells the log's history splits by their ids, as the Iceberg log does its table's parts. */
    private static final BackfillSplitSerializer BY_ID =
            new BackfillSplitSerializer(
                    id -> id.startsWith("history-") ? SplitKind.HISTORY : SplitKind.LOG);

    @Test
    void aSplitStoredWithoutAKindIsHistoryIfAChunkOrIfTheLogSaysSoElseALogSplit()
            throws IOException {
        BackfillSplit part = BY_ID.deserialize(4, HexFormat.of().parseHex(V4_HISTORY_SPLIT_BYTES));
        assertThat(part.kind()).isEqualTo(SplitKind.HISTORY);
        assertThat(part)
                .isEqualTo(
                        BackfillSplit.historyOnly("history-3", 200, 400)
                                .withProgress(HandoverState.BACKFILLING, 200, 400, 17));
        BackfillSplit cut =
                BY_ID.deserialize(4, HexFormat.of().parseHex(V4_CUT_HISTORY_SPLIT_BYTES));
        assertThat(cut.kind()).isEqualTo(SplitKind.HISTORY);
        assertThat(cut.hasHistoryElsewhere()).as("meaningless for history: dropped").isFalse();
        assertThat(cut.nextOffset()).isEqualTo(350);
        // without the log's word the same bytes are a log split, as every split was then
        assertThat(
                        BackfillSplitSerializer.INSTANCE
                                .deserialize(4, HexFormat.of().parseHex(V4_HISTORY_SPLIT_BYTES))
                                .kind())
                .isEqualTo(SplitKind.LOG);
        // a chunk is history whatever the log says; a partition is a log split
        assertThat(BY_ID.deserialize(3, HexFormat.of().parseHex(V3_CHUNK_BYTES)).kind())
                .isEqualTo(SplitKind.HISTORY);
        assertThat(BY_ID.deserialize(4, HexFormat.of().parseHex(V4_BYTES)).kind())
                .isEqualTo(SplitKind.LOG);
    }

    /** Version 5 bytes of {@link #v2Split()}: version 4's, then kind LOG. Never change them. */
    static final String V5_BYTES = V4_BYTES + "00";

    /**
     * Version 5 bytes of {@link #v5HistorySplit()}: a history split reading history version 42.
     * Never change them.
     */
    static final String V5_HISTORY_BYTES =
            "0009686973746f72792d330000000000000000c8000000000000019001000000000000019000"
                    + "0000000000001100000100023432"
                    + "01";

    static BackfillSplit v5HistorySplit() {
        return BackfillSplit.historyOnly("history-3", 200, 400)
                .withProgress(HandoverState.BACKFILLING, 200, 400, 17)
                .withHistoryVersion("42");
    }

    @Test
    void readsAndWritesVersion5Bytes() throws IOException {
        BackfillSplitSerializer serializer = BackfillSplitSerializer.INSTANCE;
        assertThat(serializer.getVersion()).isEqualTo(5);
        // the current version writes exactly these bytes, and reads its kind, not the log's word
        assertThat(HexFormat.of().formatHex(serializer.serialize(v2Split()))).isEqualTo(V5_BYTES);
        assertThat(HexFormat.of().formatHex(serializer.serialize(v5HistorySplit())))
                .isEqualTo(V5_HISTORY_BYTES);
        assertThat(serializer.deserialize(5, HexFormat.of().parseHex(V5_HISTORY_BYTES)))
                .isEqualTo(v5HistorySplit());
        assertThat(BY_ID.deserialize(5, HexFormat.of().parseHex(V5_BYTES))).isEqualTo(v2Split());
        BackfillSplit chunk = v3Chunk();
        assertThat(serializer.deserialize(5, serializer.serialize(chunk))).isEqualTo(chunk);
    }

    @Test
    void anUnknownKindCodeFailsNamingTheSplit() {
        byte[] bytes = HexFormat.of().parseHex(V4_BYTES + "07");
        assertThatThrownBy(() -> BackfillSplitSerializer.INSTANCE.deserialize(5, bytes))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("Split part-12 has kind 7")
                .hasMessageContaining("newer version");
    }

    @Test
    void aHistorySplitEndsAtItsStopAndNeverHasHistoryElsewhere() {
        BackfillSplit history = BackfillSplit.historyOnly("history-3", 0, 10);
        assertThat(history.state()).isEqualTo(HandoverState.BACKFILLING);
        assertThat(history.stoppingOffset()).hasValue(10);
        assertThat(history.targetEndOffset()).isEqualTo(10);
        assertThatThrownBy(history::withHistoryElsewhere)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("History split history-3");
        assertThatThrownBy(() -> history.withProgress(HandoverState.CACHING_UP, 5, 10))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("History split history-3 must be a BACKFILLING split");
        assertThatThrownBy(() -> history.withProgress(HandoverState.BACKFILLING, 5, 12))
                .hasMessageContaining("target 12 and stop OptionalLong[10]");
    }

    @Test
    void theKindCodesAreStable() {
        assertThat(SplitKind.LOG.code()).isZero();
        assertThat(SplitKind.HISTORY.code()).isEqualTo(1);
        assertThat(SplitKind.fromCode(1, "s")).isEqualTo(SplitKind.HISTORY);
    }

    @Test
    void rejectsUnknownVersionsByName() {
        assertThatThrownBy(() -> BackfillSplitSerializer.INSTANCE.deserialize(6, new byte[0]))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("version 6");
    }
}
