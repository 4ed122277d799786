package dev.sourcebackfill.source.event;

import org.apache.flink.annotation.Internal;

/**
 * Enumerator to reader: completed checkpoint {@code checkpointId} had every split {@code FINISHED},
 * as confirmed by the readers that hold them; readers may enter forward mode.
 */
@Internal
public final class ForwardModeEvent implements ReaderBoundEvent {

    private static final long serialVersionUID = 1L;

    private final long checkpointId;

    public ForwardModeEvent(long checkpointId) {
        this.checkpointId = checkpointId;
    }

    public long checkpointId() {
        return checkpointId;
    }

    @Override
    public void dispatchTo(Handler handler) {
        handler.onForwardMode(checkpointId);
    }

    @Override
    public String toString() {
        return "ForwardMode{checkpoint=" + checkpointId + '}';
    }
}
