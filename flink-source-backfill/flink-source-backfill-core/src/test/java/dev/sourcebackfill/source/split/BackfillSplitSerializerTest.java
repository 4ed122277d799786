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
    void readsAndWritesVersion2Bytes() throws IOException {
        assertThat(BackfillSplitSerializer.INSTANCE.getVersion()).isEqualTo(2);
        byte[] bytes = HexFormat.of().parseHex(V2_BYTES);
        assertThat(BackfillSplitSerializer.INSTANCE.deserialize(2, bytes)).isEqualTo(v2Split());
        // the current version writes exactly these bytes
        assertThat(HexFormat.of().formatHex(BackfillSplitSerializer.INSTANCE.serialize(v2Split())))
                .isEqualTo(V2_BYTES);
    }

    @Test
    void rejectsUnknownVersionsByName() {
        assertThatThrownBy(() -> BackfillSplitSerializer.INSTANCE.deserialize(3, new byte[0]))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("version 3");
    }
}
