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
package dev.sourcebackfill.source.reader;

import dev.sourcebackfill.source.event.SplitStatus;
import dev.sourcebackfill.source.event.SplitStatusReportEvent;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.source.SourceReaderContext;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Sends split status reports to the enumerator and keeps the latest status of every split whose
 * report is not acknowledged yet, to send it again: events to the coordinator can be lost.
 */
@Internal
final class StatusReporter {

    private static final Logger LOG = LoggerFactory.getLogger(StatusReporter.class);

    private final SourceReaderContext context;
    private final long incarnation;
    private final Map<String, Unacknowledged> unacknowledged = new LinkedHashMap<>();
    private long lastReportId;

    StatusReporter(SourceReaderContext context, long incarnation) {
        this.context = context;
        this.incarnation = incarnation;
    }

    long incarnation() {
        return incarnation;
    }

    void report(List<SplitStatus> statuses) {
        if (statuses.isEmpty()) {
            return;
        }
        long reportId = ++lastReportId;
        for (SplitStatus status : statuses) {
            unacknowledged.put(status.splitId(), new Unacknowledged(status, reportId));
        }
        context.sendSourceEventToCoordinator(
                new SplitStatusReportEvent(incarnation, reportId, statuses));
    }

    void acknowledge(long reportIncarnation, long reportId) {
        if (reportIncarnation != incarnation) {
            return;
        }
        unacknowledged.values().removeIf(u -> u.reportId <= reportId);
    }

    /** Sends every unacknowledged status again, in one new report. */
    void resendUnacknowledged() {
        if (unacknowledged.isEmpty()) {
            return;
        }
        List<SplitStatus> statuses = new ArrayList<>(unacknowledged.size());
        for (Unacknowledged u : unacknowledged.values()) {
            statuses.add(u.status);
        }
        LOG.debug("Subtask {} re-reports {}", context.getIndexOfSubtask(), statuses);
        report(statuses);
    }

    int unacknowledgedCount() {
        return unacknowledged.size();
    }

    private static final class Unacknowledged {
        final SplitStatus status;
        final long reportId;

        Unacknowledged(SplitStatus status, long reportId) {
            this.status = status;
            this.reportId = reportId;
        }
    }
}
