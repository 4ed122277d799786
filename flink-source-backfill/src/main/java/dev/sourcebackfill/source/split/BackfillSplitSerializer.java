package dev.sourcebackfill.source.split;

import org.apache.flink.annotation.Internal;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.core.memory.DataOutputView;

import java.io.IOException;
import java.util.OptionalLong;

/**
 * Serializer of {@link BackfillSplit}.
 *
 * <p>Version 1: split id (UTF), state code (byte), next offset, target end offset, has-stop
 * (boolean), stopping offset (only if present). Any new field needs a new version; old versions
 * stay readable.
 */
@Internal
public final class BackfillSplitSerializer implements SimpleVersionedSerializer<BackfillSplit> {

    public static final BackfillSplitSerializer INSTANCE = new BackfillSplitSerializer();

    public static final int VERSION_1 = 1;
    private static final int CURRENT_VERSION = VERSION_1;

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
        return read(version, in);
    }

    /** Writes a split in the current version; shared with the enumerator state serializer. */
    public static void write(BackfillSplit split, DataOutputView out) throws IOException {
        out.writeUTF(split.splitId());
        out.writeByte(split.state().code());
        out.writeLong(split.nextOffset());
        out.writeLong(split.targetEndOffset());
        out.writeBoolean(split.stoppingOffset().isPresent());
        if (split.stoppingOffset().isPresent()) {
            out.writeLong(split.stoppingOffset().getAsLong());
        }
    }

    /** Reads a split written by {@link #write} in the given version. */
    public static BackfillSplit read(int version, DataInputView in) throws IOException {
        if (version != VERSION_1) {
            throw new IOException("Unknown BackfillSplit serializer version " + version);
        }
        String splitId = in.readUTF();
        HandoverState state = HandoverState.fromCode(in.readByte());
        long next = in.readLong();
        long target = in.readLong();
        OptionalLong stop = in.readBoolean() ? OptionalLong.of(in.readLong()) : OptionalLong.empty();
        return new BackfillSplit(splitId, state, next, target, stop);
    }
}
