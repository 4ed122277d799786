package dev.sourcebackfill.source.enumerator;

import dev.sourcebackfill.source.split.BackfillSplit;
import dev.sourcebackfill.source.split.HandoverState;

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
            "01" + "00000002"
                    + "000161" + "02" + "000000000000000a" + "000000000000000a" + "00" + "01" + "00"
                    + "000162" + "00" + "0000000000000000" + "0000000000000014"
                    + "01" + "000000000000001e" + "00" + "01";

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
                                    i % 2 == 0 ? OptionalLong.empty() : OptionalLong.of(3L * i)),
                            i % 5 != 0,
                            i % 7 == 0));
        }
        for (boolean initialDone : new boolean[] {true, false}) {
            BackfillEnumeratorState state = new BackfillEnumeratorState(entries, initialDone);
            assertThat(serializer.deserialize(serializer.getVersion(), serializer.serialize(state)))
                    .isEqualTo(state);
        }
        BackfillEnumeratorState empty = new BackfillEnumeratorState(List.of(), false);
        assertThat(serializer.deserialize(1, serializer.serialize(empty))).isEqualTo(empty);
    }

    @Test
    void readsVersion1Bytes() throws IOException {
        assertThat(serializer.getVersion()).isEqualTo(1);
        assertThat(serializer.deserialize(1, HexFormat.of().parseHex(V1_BYTES)))
                .isEqualTo(v1State());
        assertThat(HexFormat.of().formatHex(serializer.serialize(v1State()))).isEqualTo(V1_BYTES);
    }

    @Test
    void rejectsUnknownVersions() {
        assertThatThrownBy(() -> serializer.deserialize(0, new byte[0]))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("version 0");
    }
}
