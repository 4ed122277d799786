package dev.sourcebackfill.source.event;

import org.apache.flink.annotation.Internal;

/** Enumerator to reader: every report up to {@code reportId} of that incarnation was applied. */
@Internal
public final class ReportAcknowledgedEvent implements ReaderBoundEvent {

    private static final long serialVersionUID = 1L;

    private final long readerIncarnation;
    private final long reportId;

    public ReportAcknowledgedEvent(long readerIncarnation, long reportId) {
        this.readerIncarnation = readerIncarnation;
        this.reportId = reportId;
    }

    public long readerIncarnation() {
        return readerIncarnation;
    }

    public long reportId() {
        return reportId;
    }

    @Override
    public void dispatchTo(Handler handler) {
        handler.onReportAcknowledged(readerIncarnation, reportId);
    }

    @Override
    public String toString() {
        return "ReportAcknowledged{" + Long.toHexString(readerIncarnation) + ", id=" + reportId + '}';
    }
}
