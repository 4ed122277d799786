package dev.sourcebackfill.source;

import org.apache.flink.annotation.Internal;

/** The default {@link BackfillListener}: a named class, so it serializes without an outer object. */
@Internal
final class NoOpBackfillListener implements BackfillListener {
    private static final long serialVersionUID = 1L;
}
