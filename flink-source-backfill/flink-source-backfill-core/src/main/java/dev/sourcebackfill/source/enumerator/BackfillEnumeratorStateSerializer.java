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
import dev.sourcebackfill.source.split.BackfillSplitSerializer;
import dev.sourcebackfill.source.split.SplitKind;

import org.apache.flink.annotation.Internal;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;

/**
 * Serializer of {@link BackfillEnumeratorState}.
 *
 * <ul>
 *   <li>Version 1: initial-discovery-done (boolean), split count (int), then per split the split in
 *       {@link BackfillSplitSerializer} version 1, assigned (boolean), ended (boolean).
 *   <li>Version 2: the version of {@link BackfillSplitSerializer} the splits are written in (int),
 *       then version 1's fields, each split in that version. So a change of the split format
 *       changes the split serializer's version only, and old states stay readable.
 *   <li>Version 3: version 2, then the {@link BackfillControl} applied last: has-rate (boolean),
 *       the rate (double, only if it has one), paused (boolean). A state read from an older version
 *       has the source's control as built.
 * </ul>
 *
 * <p>A new field needs a new version; old versions stay readable.
 */
@Internal
public final class BackfillEnumeratorStateSerializer
        implements SimpleVersionedSerializer<BackfillEnumeratorState> {

    public static final int VERSION_1 = 1;
    public static final int VERSION_2 = 2;
    public static final int VERSION_3 = 3;
    private static final int CURRENT_VERSION = VERSION_3;

    private final Function<String, SplitKind> kindOfSplitStoredWithoutKind;

    /** For logs whose splits stored without a kind (split versions 1 to 4) are all log splits. */
    public BackfillEnumeratorStateSerializer() {
        this(BackfillSplitSerializer::logSplit);
    }

    /**
     * @param kindOfSplitStoredWithoutKind the kind of a split stored in split version 4 or older,
     *     which is not a chunk, by its id ({@link BackfillSplitSerializer#read})
     */
    public BackfillEnumeratorStateSerializer(
            Function<String, SplitKind> kindOfSplitStoredWithoutKind) {
        this.kindOfSplitStoredWithoutKind =
                Objects.requireNonNull(
                        kindOfSplitStoredWithoutKind, "kindOfSplitStoredWithoutKind");
    }

    @Override
    public int getVersion() {
        return CURRENT_VERSION;
    }

    @Override
    public byte[] serialize(BackfillEnumeratorState state) throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(64 + 56 * state.splits().size());
        out.writeInt(BackfillSplitSerializer.CURRENT_VERSION);
        out.writeBoolean(state.initialDiscoveryDone());
        out.writeInt(state.splits().size());
        for (BackfillEnumeratorState.SplitEntry entry : state.splits()) {
            BackfillSplitSerializer.write(entry.split(), out);
            out.writeBoolean(entry.assigned());
            out.writeBoolean(entry.ended());
        }
        BackfillControl control = state.control();
        out.writeBoolean(control.recordsPerSecond().isPresent());
        if (control.recordsPerSecond().isPresent()) {
            out.writeDouble(control.recordsPerSecond().getAsDouble());
        }
        out.writeBoolean(control.paused());
        return out.getCopyOfBuffer();
    }

    @Override
    public BackfillEnumeratorState deserialize(int version, byte[] serialized) throws IOException {
        DataInputDeserializer in = new DataInputDeserializer(serialized);
        int splitVersion;
        if (version == VERSION_1) {
            splitVersion = BackfillSplitSerializer.VERSION_1;
        } else if (version == VERSION_2 || version == VERSION_3) {
            splitVersion = in.readInt();
        } else {
            throw new IOException(
                    "Unknown BackfillEnumeratorState serializer version "
                            + version
                            + " (this release reads versions 1 to "
                            + CURRENT_VERSION
                            + ")");
        }
        boolean initialDiscoveryDone = in.readBoolean();
        int count = in.readInt();
        List<BackfillEnumeratorState.SplitEntry> entries = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            BackfillSplit split =
                    BackfillSplitSerializer.read(splitVersion, in, kindOfSplitStoredWithoutKind);
            entries.add(
                    new BackfillEnumeratorState.SplitEntry(
                            split, in.readBoolean(), in.readBoolean()));
        }
        BackfillControl control = BackfillControl.asBuilt();
        if (version >= VERSION_3) {
            if (in.readBoolean()) {
                control = control.withRate(in.readDouble());
            }
            control = control.withPaused(in.readBoolean());
        }
        return new BackfillEnumeratorState(entries, initialDiscoveryDone, control);
    }
}
