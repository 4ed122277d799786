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

import java.util.List;

/**
 * Reader to enumerator: the current status of some of the reader's splits. Sent on every
 * transition, for every split a reader is given (also restored ones), and again until acknowledged.
 *
 * <p>{@code readerIncarnation} is random per reader instance: the enumerator uses it to ignore
 * reports from a reader instance that a failover has replaced. {@code reportId} increases within
 * one incarnation.
 */
@Internal
public final class SplitStatusReportEvent implements EnumeratorBoundEvent {

    private static final long serialVersionUID = 1L;

    private final long readerIncarnation;
    private final long reportId;
    private final List<SplitStatus> statuses;

    public SplitStatusReportEvent(
            long readerIncarnation, long reportId, List<SplitStatus> statuses) {
        this.readerIncarnation = readerIncarnation;
        this.reportId = reportId;
        this.statuses = List.copyOf(statuses);
    }

    public long readerIncarnation() {
        return readerIncarnation;
    }

    public long reportId() {
        return reportId;
    }

    public List<SplitStatus> statuses() {
        return statuses;
    }

    @Override
    public void dispatchTo(int subtask, Handler handler) {
        handler.onStatusReport(subtask, this);
    }

    @Override
    public String toString() {
        return "SplitStatusReport{incarnation="
                + Long.toHexString(readerIncarnation)
                + ", id="
                + reportId
                + ", "
                + statuses
                + '}';
    }
}
