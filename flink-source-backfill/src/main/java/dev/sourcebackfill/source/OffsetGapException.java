package dev.sourcebackfill.source;

import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.util.FlinkRuntimeException;

/**
 * The upstream cannot deliver the offsets right after the backfilled range any more (retention
 * deleted them): continuing would silently lose records, so the job fails.
 */
@PublicEvolving
public class OffsetGapException extends FlinkRuntimeException {

    private static final long serialVersionUID = 1L;

    public OffsetGapException(String splitId, long nextOffset, long upstreamEarliestOffset) {
        super(
                String.format(
                        "Offset gap in split %s: the backfill covered every offset below %d, but the "
                                + "upstream's earliest available offset is %d; records %d..%d are lost",
                        splitId,
                        nextOffset,
                        upstreamEarliestOffset,
                        nextOffset,
                        upstreamEarliestOffset - 1));
    }
}
