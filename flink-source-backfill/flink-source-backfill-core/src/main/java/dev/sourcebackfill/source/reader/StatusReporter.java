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
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Sends split status reports to the enumerator and keeps the latest status of every split whose
 * report is not acknowledged yet, to send it again (events to the coordinator can be lost).
 * Transitions' statuses are {@linkplain #enqueue queued} and sent together by {@link #flush()}: a
 * report holds at most one status of a split, queued statuses leave before any report sent after
 * them, and each split's statuses leave in the order they were queued (docs/design.md says why).
 *
 * <p>Threading: the task thread, except {@code flush} from the fetcher manager's thread when it
 * recycles unemitted fetches at close; nothing is sent once the reader closed.
 */
@Internal
final class StatusReporter {

    private static final Logger LOG = LoggerFactory.getLogger(StatusReporter.class);

    private final SourceReaderContext context;
    private final long incarnation;
    private final Map<String, Unacknowledged> unacknowledged = new LinkedHashMap<>();

    /** Statuses queued and not sent yet, in order. */
    private final List<SplitStatus> queued = new ArrayList<>();

    private long lastReportId;

    /** Set once the reader closes; read by the fetcher manager's thread as it closes too. */
    private volatile boolean closed;

    StatusReporter(SourceReaderContext context, long incarnation) {
        this.context = context;
        this.incarnation = incarnation;
    }

    long incarnation() {
        return incarnation;
    }

    /** Sends these statuses now, after any queued ones. */
    void report(List<SplitStatus> statuses) {
        flush();
        send(statuses);
    }

    /** The reader closes: nothing is sent from now on. */
    void close() {
        closed = true;
    }

    /** Queues a status, to be sent with the others at the next {@link #flush()}. */
    void enqueue(SplitStatus status) {
        queued.add(status);
    }

    /**
     * Sends the queued statuses in as few reports as hold each split at most once: a split's first
     * queued status goes in the first report, its second in the second, and so on, so that each
     * split's statuses arrive in the order they were queued. Usually that is one report, or two for
     * the splits that went through CACHING_UP to FINISHED in one fetch.
     */
    void flush() {
        if (closed || queued.isEmpty()) {
            return;
        }
        List<List<SplitStatus>> reports = new ArrayList<>(2);
        Map<String, Integer> reportOfSplit = new HashMap<>();
        for (SplitStatus status : queued) {
            int report = reportOfSplit.merge(status.splitId(), 1, Integer::sum) - 1;
            if (report == reports.size()) {
                reports.add(new ArrayList<>());
            }
            reports.get(report).add(status);
        }
        queued.clear();
        reports.forEach(this::send);
    }

    private void send(List<SplitStatus> statuses) {
        if (statuses.isEmpty() || closed) {
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

    /** Sends every unacknowledged status again, in one new report, and then the queued ones. */
    void resendUnacknowledged() {
        if (unacknowledged.isEmpty()) {
            flush();
            return;
        }
        List<SplitStatus> statuses = new ArrayList<>(unacknowledged.size());
        for (Unacknowledged u : unacknowledged.values()) {
            statuses.add(u.status);
        }
        LOG.debug("Subtask {} re-reports {}", context.getIndexOfSubtask(), statuses);
        send(statuses);
        flush();
    }

    /** The statuses the enumerator has not acknowledged, queued ones included. */
    int unacknowledgedCount() {
        return unacknowledged.size() + queued.size();
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
