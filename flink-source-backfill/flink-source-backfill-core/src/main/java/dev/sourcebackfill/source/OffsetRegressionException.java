package dev.sourcebackfill.source;

import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.util.FlinkRuntimeException;

/** A reader delivered an offset that does not increase within its split. */
@PublicEvolving
public class OffsetRegressionException extends FlinkRuntimeException {

    private static final long serialVersionUID = 1L;

    public OffsetRegressionException(String splitId, String reader, long offset, long expectedAtLeast) {
        super(
                String.format(
                        "Offset regression in split %s: the %s reader delivered offset %d, "
                                + "but offsets below %d were already consumed",
                        splitId, reader, offset, expectedAtLeast));
    }
}
