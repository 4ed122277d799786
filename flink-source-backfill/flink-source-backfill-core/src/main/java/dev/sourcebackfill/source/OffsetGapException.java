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
package dev.sourcebackfill.source;

import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.util.FlinkRuntimeException;

/**
 * Offsets of a split that the source must read are gone (retention deleted them): the live reader
 * cannot deliver the offsets right after the backfilled range, or a reader's log no longer starts
 * where the reader must read. Continuing would silently lose records, so the job fails (unless told
 * to skip them with {@link OffsetGapPolicy#SKIP}).
 */
@PublicEvolving
public class OffsetGapException extends FlinkRuntimeException {

    private static final long serialVersionUID = 1L;

    private OffsetGapException(String message) {
        super(message);
    }

    /**
     * A non-seekable live reader delivered (and the source dropped) offsets up to {@code
     * lastDropped} while the backfill was expected to cover them, and then the backfill ended below
     * them.
     */
    public static OffsetGapException passedByFeed(
            String splitId, long nextOffset, long lastDropped) {
        return new OffsetGapException(
                String.format(
                        "Offset gap in split %s: the backfill ended below offset %d, but the "
                                + "non-seekable live reader had already delivered offsets up to %d "
                                + "while the split backfilled; records %d..%d are lost",
                        splitId, nextOffset, lastDropped, nextOffset, lastDropped));
    }

    /**
     * A reader was to read the split from {@code from}, but its log starts at {@code to} now
     * (retention deleted the offsets in between).
     */
    public static OffsetGapException deleted(String splitId, long from, long to) {
        return new OffsetGapException(
                String.format(
                        "Offset gap in split %s: it must be read from offset %d, but the log "
                                + "starts at %d now (deleted by retention?); records %d..%d are "
                                + "lost (OffsetGapPolicy.SKIP would skip them)",
                        splitId, from, to, from, to - 1));
    }

    public OffsetGapException(String splitId, long nextOffset, long liveEarliestOffset) {
        super(
                String.format(
                        "Offset gap in split %s: the backfill covered every offset below %d, but the "
                                + "live reader's earliest available offset is %d; records %d..%d are lost",
                        splitId,
                        nextOffset,
                        liveEarliestOffset,
                        nextOffset,
                        liveEarliestOffset - 1));
    }
}
