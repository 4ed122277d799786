package dev.sourcebackfill.source.split;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.HexFormat;
import java.util.OptionalLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class BackfillSplitSerializerTest {

    /** Version 1 bytes of {@link #v1Split()}, written by the first release: never change them. */
    static final String V1_BYTES = "0007706172742d3132010000000000000064000000000000012c010000000000001388";

    static BackfillSplit v1Split() {
        return new BackfillSplit("part-12", HandoverState.CACHING_UP, 100, 300, OptionalLong.of(5000));
    }

    @Test
    void roundTripsEveryState() throws IOException {
        BackfillSplitSerializer serializer = BackfillSplitSerializer.INSTANCE;
        for (HandoverState state : HandoverState.values()) {
            for (OptionalLong stop : new OptionalLong[] {OptionalLong.empty(), OptionalLong.of(77)}) {
                BackfillSplit split = new BackfillSplit("s-" + state, state, 5, 9, stop);
                assertThat(serializer.deserialize(serializer.getVersion(), serializer.serialize(split)))
                        .isEqualTo(split);
            }
        }
    }

    @Test
    void readsVersion1Bytes() throws IOException {
        assertThat(BackfillSplitSerializer.INSTANCE.getVersion()).isEqualTo(1);
        byte[] bytes = HexFormat.of().parseHex(V1_BYTES);
        assertThat(BackfillSplitSerializer.INSTANCE.deserialize(1, bytes)).isEqualTo(v1Split());
        // the current version still writes exactly these bytes
        assertThat(HexFormat.of().formatHex(BackfillSplitSerializer.INSTANCE.serialize(v1Split())))
                .isEqualTo(V1_BYTES);
    }

    @Test
    void rejectsUnknownVersionsByName() {
        assertThatThrownBy(() -> BackfillSplitSerializer.INSTANCE.deserialize(2, new byte[0]))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("version 2");
    }
}
