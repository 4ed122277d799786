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
        return "ReportAcknowledged{"
                + Long.toHexString(readerIncarnation)
                + ", id="
                + reportId
                + '}';
    }
}
