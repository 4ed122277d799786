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

import org.apache.flink.connector.testutils.source.reader.TestingReaderContext;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.stream.Collectors;

import static dev.sourcebackfill.source.split.HandoverState.BACKFILLING;
import static dev.sourcebackfill.source.split.HandoverState.CACHING_UP;
import static dev.sourcebackfill.source.split.HandoverState.FINISHED;
import static org.assertj.core.api.Assertions.assertThat;

/** Queued statuses leave together, in order, each split at most once per report. */
class StatusReporterTest {

    private final TestingReaderContext context = new TestingReaderContext();
    private final StatusReporter reporter = new StatusReporter(context, 7);

    private List<List<SplitStatus>> sent() {
        return context.getSentEvents().stream()
                .map(e -> ((SplitStatusReportEvent) e).statuses())
                .collect(Collectors.toList());
    }

    @Test
    void queuedStatusesLeaveInOneReportAtTheFlush() {
        reporter.enqueue(new SplitStatus("a", CACHING_UP, 3, false));
        reporter.enqueue(new SplitStatus("b", CACHING_UP, 5, false));
        assertThat(sent()).isEmpty();
        assertThat(reporter.unacknowledgedCount())
                .as("queued statuses are unacknowledged")
                .isEqualTo(2);

        reporter.flush();

        assertThat(sent())
                .containsExactly(
                        List.of(
                                new SplitStatus("a", CACHING_UP, 3, false),
                                new SplitStatus("b", CACHING_UP, 5, false)));
        assertThat(reporter.unacknowledgedCount()).isEqualTo(2);
        reporter.flush();
        assertThat(sent()).as("nothing is sent twice").hasSize(1);
    }

    @Test
    void aSplitThatMovedTwiceIsReportedTwiceInOrderInTwoReports() {
        reporter.enqueue(new SplitStatus("a", CACHING_UP, 3, false));
        reporter.enqueue(new SplitStatus("a", FINISHED, 3, false));
        reporter.enqueue(new SplitStatus("b", CACHING_UP, 5, false));
        reporter.enqueue(new SplitStatus("b", FINISHED, 5, false));
        reporter.enqueue(new SplitStatus("c", FINISHED, 1, false));

        reporter.flush();

        assertThat(sent())
                .containsExactly(
                        List.of(
                                new SplitStatus("a", CACHING_UP, 3, false),
                                new SplitStatus("b", CACHING_UP, 5, false),
                                new SplitStatus("c", FINISHED, 1, false)),
                        List.of(
                                new SplitStatus("a", FINISHED, 3, false),
                                new SplitStatus("b", FINISHED, 5, false)));
        List<Long> ids =
                context.getSentEvents().stream()
                        .map(e -> ((SplitStatusReportEvent) e).reportId())
                        .collect(Collectors.toList());
        assertThat(ids).isSorted().doesNotHaveDuplicates();
    }

    @Test
    void aReportSentNowFollowsTheQueuedStatuses() {
        reporter.enqueue(new SplitStatus("a", FINISHED, 3, false));
        reporter.report(List.of(new SplitStatus("a", FINISHED, 3, true)));

        assertThat(sent())
                .containsExactly(
                        List.of(new SplitStatus("a", FINISHED, 3, false)),
                        List.of(new SplitStatus("a", FINISHED, 3, true)));
    }

    /**
     * A status sent again (its acknowledgement was lost) is older than a queued one of the same
     * split: it leaves first, so that the report with the higher id, which the enumerator keeps,
     * has the newer status.
     */
    @Test
    void aStatusSentAgainLeavesBeforeTheQueuedOneOfTheSameSplit() {
        reporter.report(List.of(new SplitStatus("a", BACKFILLING, 0, false))); // ack lost
        reporter.enqueue(new SplitStatus("a", CACHING_UP, 3, false));

        reporter.resendUnacknowledged();

        assertThat(sent())
                .containsExactly(
                        List.of(new SplitStatus("a", BACKFILLING, 0, false)),
                        List.of(new SplitStatus("a", BACKFILLING, 0, false)),
                        List.of(new SplitStatus("a", CACHING_UP, 3, false)));
    }

    @Test
    void nothingIsSentOnceClosed() {
        reporter.enqueue(new SplitStatus("a", CACHING_UP, 3, false));
        reporter.close();

        reporter.flush();
        reporter.report(List.of(new SplitStatus("b", FINISHED, 1, false)));
        reporter.resendUnacknowledged();

        assertThat(sent()).isEmpty();
    }

    @Test
    void acknowledgedReportsAreNotSentAgainButQueuedStatusesAre() {
        reporter.report(List.of(new SplitStatus("a", BACKFILLING, 0, false)));
        reporter.acknowledge(7, 1);
        reporter.enqueue(new SplitStatus("a", CACHING_UP, 3, false));

        reporter.resendUnacknowledged();

        assertThat(sent())
                .containsExactly(
                        List.of(new SplitStatus("a", BACKFILLING, 0, false)),
                        List.of(new SplitStatus("a", CACHING_UP, 3, false)));
        assertThat(reporter.unacknowledgedCount()).isEqualTo(1);
    }
}
