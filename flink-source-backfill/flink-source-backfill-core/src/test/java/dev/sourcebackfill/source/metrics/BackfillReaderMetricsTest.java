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
package dev.sourcebackfill.source.metrics;

import dev.sourcebackfill.source.split.BackfillSplit;
import dev.sourcebackfill.source.split.BackfillSplitState;
import dev.sourcebackfill.source.split.HandoverState;

import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.Metric;
import org.apache.flink.runtime.metrics.groups.GenericMetricGroup;
import org.apache.flink.runtime.metrics.groups.InternalSourceReaderMetricGroup;
import org.apache.flink.runtime.metrics.util.TestingMetricRegistry;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;

/** A reader's gauges, through a registry that keeps what a reporter would report. */
class BackfillReaderMetricsTest {

    /** identifier -> the metric registered under it and not unregistered. */
    private final Map<String, Metric> reported = new TreeMap<>();

    private final TestingMetricRegistry registry =
            TestingMetricRegistry.builder()
                    .setRegisterConsumer(
                            (metric, name, group) ->
                                    reported.put(group.getMetricIdentifier(name), metric))
                    .setUnregisterConsumer(
                            (metric, name, group) ->
                                    reported.remove(group.getMetricIdentifier(name)))
                    .build();

    private final GenericMetricGroup readerGroup = new GenericMetricGroup(registry, null, "reader");

    @Test
    void aSplitsGaugesShowItsStateUntilItEndsOnTheReader() {
        BackfillSplitState a =
                new BackfillSplitState(
                        new BackfillSplit(
                                "a", HandoverState.BACKFILLING, 3, 10, OptionalLong.of(20)));
        BackfillReaderMetrics metrics =
                new BackfillReaderMetrics(
                        InternalSourceReaderMetricGroup.mock(readerGroup),
                        () -> List.of(a),
                        () -> false,
                        new FetchProgress());
        metrics.registerSplit(a);
        metrics.registerSplit(a); // a second registration changes nothing

        assertThat(reported.keySet())
                .containsExactlyInAnyOrder(
                        // Flink's standard source gauges, two of them the reader's
                        "reader.currentEmitEventTimeLag",
                        "reader.numRecordsInErrors",
                        "reader.sourceIdleTime",
                        "reader.pendingRecords",
                        "reader.currentFetchEventTimeLag",
                        "reader.backfill.backfilledRecords",
                        "reader.backfill.backfilledRecordsPerSecond",
                        "reader.backfill.splitsBackfilling",
                        "reader.backfill.splitsCachingUp",
                        "reader.backfill.splitsFinished",
                        "reader.backfill.forwardMode",
                        "reader.backfill.skippedOffsets",
                        "reader.backfill.split.a.state",
                        "reader.backfill.split.a.nextOffset",
                        "reader.backfill.split.a.targetEndOffset",
                        "reader.backfill.split.a.backfilledRecords");
        assertThat(gauge("reader.backfill.split.a.nextOffset")).isEqualTo(3L);
        assertThat(gauge("reader.backfill.splitsBackfilling")).isEqualTo(1);
        a.recordEmitted(7);
        assertThat(gauge("reader.backfill.split.a.nextOffset")).isEqualTo(8L);

        metrics.unregisterSplit("a");
        assertThat(reported.keySet()).noneMatch(id -> id.contains(".split."));
        assertThat(reported).containsKey("reader.backfill.splitsBackfilling");
    }

    @Test
    void pendingRecordsAreWhatIsLeftToBackfillPlusTheLiveReadersLag() {
        BackfillSplitState backfilling =
                new BackfillSplitState(
                        new BackfillSplit(
                                "a", HandoverState.BACKFILLING, 3, 10, OptionalLong.empty()));
        BackfillSplitState cachingUp =
                new BackfillSplitState(
                        new BackfillSplit(
                                "b", HandoverState.CACHING_UP, 5, 9, OptionalLong.empty()));
        BackfillSplitState finished =
                new BackfillSplitState(
                        new BackfillSplit(
                                "c", HandoverState.FINISHED, 20, 9, OptionalLong.empty()));
        FetchProgress progress = new FetchProgress();
        new BackfillReaderMetrics(
                InternalSourceReaderMetricGroup.mock(readerGroup),
                () -> List.of(backfilling, cachingUp, finished),
                () -> false,
                progress);
        // the live reader cannot tell its lag: what is left to each target
        assertThat(gauge("reader.pendingRecords")).isEqualTo(7L + 4L);
        // it can: its lag covers the split it is catching up with
        progress.liveLag(OptionalLong.of(100));
        assertThat(gauge("reader.pendingRecords")).isEqualTo(7L + 100L);
        backfilling.recordEmitted(9);
        assertThat(gauge("reader.pendingRecords")).isEqualTo(100L);

        assertThat(gauge("reader.currentFetchEventTimeLag")).isEqualTo(-1L);
        progress.fetched(5_000, 4_200);
        assertThat(gauge("reader.currentFetchEventTimeLag")).isEqualTo(800L);
    }

    private Object gauge(String id) {
        return ((Gauge<?>) reported.get(id)).getValue();
    }

    /**
     * A bounded split stops at its stopping offset; what lies between the stopping offset and the
     * discovery target is never read, so it is not pending.
     */
    @Test
    void pendingRecordsOfABoundedSplitStopAtItsStoppingOffset() {
        BackfillSplitState bounded =
                new BackfillSplitState(
                        new BackfillSplit(
                                "a", HandoverState.BACKFILLING, 3, 10, OptionalLong.of(5)));
        new BackfillReaderMetrics(
                InternalSourceReaderMetricGroup.mock(readerGroup),
                () -> List.of(bounded),
                () -> false,
                new FetchProgress());
        assertThat(gauge("reader.pendingRecords"))
                .as("records the reader will still read (offsets 3 and 4)")
                .isEqualTo(2L);
    }
}
