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

import org.apache.flink.annotation.Internal;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.core.memory.DataOutputView;

import java.io.IOException;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.Function;

/**
 * Serializer of {@link BackfillSplit}.
 *
 * <ul>
 *   <li>Version 1: split id (UTF), state code (byte), next offset, target end offset, has-stop
 *       (boolean), stopping offset (only if present).
 *   <li>Version 2: version 1, then the records backfilled for the split (long). A split read from
 *       version 1 has backfilled 0 records.
 *   <li>Version 3: version 2, then the chunk the split is (has-chunk, log split id, index) and
 *       whether its history is read elsewhere.
 *   <li>Version 4: version 3, then its history version (has-version, UTF). A split read from an
 *       older version has none: its backfill reads the log's current history.
 *   <li>Version 5: version 4, then its {@link SplitKind} code (byte). A split read from an older
 *       version is HISTORY if it is a chunk; else the log tells by its id ({@link
 *       dev.sourcebackfill.source.spi.BackfillLog#kindOfSplitStoredWithoutKind}): the history
 *       splits of earlier releases (an Iceberg table's parts) had ids of their own form. A history
 *       split read so drops its stored "history elsewhere" flag, which says nothing of history.
 * </ul>
 *
 * <p>Any new field needs a new version; old versions stay readable. Serializers that embed splits
 * (the enumerator's state) write {@link #getVersion()} beside them and read them back with {@link
 * #read(int, DataInputView)} in that version.
 */
@Internal
public final class BackfillSplitSerializer implements SimpleVersionedSerializer<BackfillSplit> {

    /** For logs whose splits stored without a kind (versions 1 to 4) are all log splits. */
    public static final BackfillSplitSerializer INSTANCE =
            new BackfillSplitSerializer(BackfillSplitSerializer::logSplit);

    public static final int VERSION_1 = 1;
    public static final int VERSION_2 = 2;

    /**
     * Version 2's fields, then what the split is a chunk of, if it is one, and whether its history
     * is in chunks of its own.
     */
    public static final int VERSION_3 = 3;

    /**
     * Version 3's fields, then whether the split has a history version, and the version (UTF) if it
     * has one.
     */
    public static final int VERSION_4 = 4;

    /** Version 4's fields, then the split's kind (its code, a byte). */
    public static final int VERSION_5 = 5;

    public static final int CURRENT_VERSION = VERSION_5;

    private final Function<String, SplitKind> kindOfSplitStoredWithoutKind;

    /**
     * @param kindOfSplitStoredWithoutKind the kind of a split read from version 4 or older, which
     *     is not a chunk, by its id
     */
    public BackfillSplitSerializer(Function<String, SplitKind> kindOfSplitStoredWithoutKind) {
        this.kindOfSplitStoredWithoutKind =
                Objects.requireNonNull(
                        kindOfSplitStoredWithoutKind, "kindOfSplitStoredWithoutKind");
    }

    /** The kind of every split stored without one that is not a chunk, for logs without others. */
    public static SplitKind logSplit(String splitId) {
        return SplitKind.LOG;
    }

    @Override
    public int getVersion() {
        return CURRENT_VERSION;
    }

    @Override
    public byte[] serialize(BackfillSplit split) throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(64);
        write(split, out);
        return out.getCopyOfBuffer();
    }

    @Override
    public BackfillSplit deserialize(int version, byte[] serialized) throws IOException {
        DataInputDeserializer in = new DataInputDeserializer(serialized);
        return read(version, in, kindOfSplitStoredWithoutKind);
    }

    /**
     * Writes a split in {@link #CURRENT_VERSION}; shared with the enumerator state serializer,
     * which records that version.
     */
    public static void write(BackfillSplit split, DataOutputView out) throws IOException {
        out.writeUTF(split.splitId());
        out.writeByte(split.state().code());
        out.writeLong(split.nextOffset());
        out.writeLong(split.targetEndOffset());
        out.writeBoolean(split.stoppingOffset().isPresent());
        if (split.stoppingOffset().isPresent()) {
            out.writeLong(split.stoppingOffset().getAsLong());
        }
        out.writeLong(split.backfilledRecords());
        Optional<HistoryChunk> chunk = split.chunk();
        out.writeBoolean(chunk.isPresent());
        if (chunk.isPresent()) {
            out.writeUTF(chunk.get().logSplitId());
            out.writeInt(chunk.get().index());
        }
        out.writeBoolean(split.hasHistoryElsewhere());
        Optional<String> historyVersion = split.historyVersion();
        out.writeBoolean(historyVersion.isPresent());
        if (historyVersion.isPresent()) {
            out.writeUTF(historyVersion.get());
        }
        out.writeByte(split.kind().code());
    }

    /**
     * Reads a split written by {@link #write} in the given version.
     *
     * @param kindOfSplitStoredWithoutKind the kind of a split read from version 4 or older, which
     *     is not a chunk, by its id
     */
    public static BackfillSplit read(
            int version, DataInputView in, Function<String, SplitKind> kindOfSplitStoredWithoutKind)
            throws IOException {
        if (version < VERSION_1 || version > CURRENT_VERSION) {
            throw new IOException(
                    "Unknown BackfillSplit serializer version "
                            + version
                            + " (this release reads versions 1 to "
                            + CURRENT_VERSION
                            + ")");
        }
        String splitId = in.readUTF();
        HandoverState state = HandoverState.fromCode(in.readByte());
        long next = in.readLong();
        long target = in.readLong();
        OptionalLong stop =
                in.readBoolean() ? OptionalLong.of(in.readLong()) : OptionalLong.empty();
        long backfilled = version >= VERSION_2 ? in.readLong() : 0L;
        HistoryChunk chunk =
                version >= VERSION_3 && in.readBoolean()
                        ? new HistoryChunk(in.readUTF(), in.readInt())
                        : null;
        boolean historyElsewhere = version >= VERSION_3 && in.readBoolean();
        String historyVersion = version >= VERSION_4 && in.readBoolean() ? in.readUTF() : null;
        SplitKind kind;
        if (version >= VERSION_5) {
            kind = SplitKind.fromCode(in.readByte(), splitId);
        } else if (chunk != null) {
            kind = SplitKind.HISTORY;
        } else {
            kind = kindOfSplitStoredWithoutKind.apply(splitId);
            if (kind == SplitKind.HISTORY) {
                // cut into chunks, it was marked as having its history elsewhere, like a log split
                historyElsewhere = false;
            }
        }
        return new BackfillSplit(
                splitId,
                kind,
                state,
                next,
                target,
                stop,
                backfilled,
                chunk,
                historyElsewhere,
                historyVersion);
    }
}
