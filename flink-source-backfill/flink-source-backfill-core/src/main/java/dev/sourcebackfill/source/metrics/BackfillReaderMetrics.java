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

import dev.sourcebackfill.source.split.BackfillSplitState;
import dev.sourcebackfill.source.split.HandoverState;

import org.apache.flink.annotation.Internal;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.groups.SourceReaderMetricGroup;
import org.apache.flink.runtime.metrics.MetricNames;

import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.OptionalLong;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * Metrics of one source reader, registered in the constructor under the group {@value #GROUP} of
 * the reader's metric group: {@value #BACKFILLED_RECORDS}, {@value #BACKFILLED_RECORDS_PER_SECOND},
 * {@value #SPLITS_BACKFILLING}, {@value #SPLITS_CACHING_UP}, {@value #SPLITS_FINISHED}, {@value
 * #FORWARD_MODE} (0 or 1), and per split held ({@code backfill.split.<split id>}) {@value
 * #SPLIT_STATE} (the state's code), {@value #SPLIT_NEXT_OFFSET}, {@value #SPLIT_TARGET_END_OFFSET}
 * and {@value #SPLIT_BACKFILLED_RECORDS}; a split's group is closed (its gauges unregistered) when
 * the split ends on this reader.
 *
 * <p>Flink's standard source gauges in the reader's own group: {@code pendingRecords} (records of
 * the held splits still to backfill up to their target, plus the live reader's lag behind the log's
 * end where the log knows it, as Kafka does) and {@code currentFetchEventTimeLag}.
 */
@Internal
public final class BackfillReaderMetrics {

    public static final String GROUP = "backfill";

    /** Records this reader emitted from the backfill. */
    public static final String BACKFILLED_RECORDS = "backfilledRecords";

    /**
     * Records this reader emitted from the backfill per second, over the last {@value
     * #RATE_SECONDS} seconds or so ({@link WindowedRate}): the backfill's rate, which the {@code
     * backfill} client sums over the readers.
     */
    public static final String BACKFILLED_RECORDS_PER_SECOND = "backfilledRecordsPerSecond";

    /** The window of {@value #BACKFILLED_RECORDS_PER_SECOND}. */
    static final int RATE_SECONDS = 10;

    /**
     * Offsets this reader skipped at handovers whose live reader no longer had them (only under
     * {@code OffsetGapPolicy.SKIP}).
     */
    public static final String SKIPPED_OFFSETS = "skippedOffsets";

    /** Splits this reader holds, by handover state. */
    public static final String SPLITS_BACKFILLING = "splitsBackfilling";

    public static final String SPLITS_CACHING_UP = "splitsCachingUp";
    public static final String SPLITS_FINISHED = "splitsFinished";

    /** 1 while this reader is in forward mode, else 0. */
    public static final String FORWARD_MODE = "forwardMode";

    /** The key of the per-split group; its value is the split id. */
    public static final String SPLIT_GROUP = "split";

    /** The split's handover state code (0 backfilling, 1 caching up, 2 finished). */
    public static final String SPLIT_STATE = "state";

    public static final String SPLIT_NEXT_OFFSET = "nextOffset";
    public static final String SPLIT_TARGET_END_OFFSET = "targetEndOffset";

    /** The split's whole backfill count, across restores and rescales. */
    public static final String SPLIT_BACKFILLED_RECORDS = "backfilledRecords";

    private final MetricGroup group;
    private final Counter backfilledRecords;
    private final Counter skippedOffsets;
    private final FetchProgress progress;

    /** The groups of the splits this reader holds, by split id. */
    private final Map<String, MetricGroup> splitGroups = new HashMap<>();

    public BackfillReaderMetrics(
            SourceReaderMetricGroup parent,
            Supplier<Collection<BackfillSplitState>> splits,
            BooleanSupplier forwardMode,
            FetchProgress progress) {
        parent.setPendingRecordsGauge(() -> pendingRecords(splits.get(), progress));
        parent.gauge(MetricNames.CURRENT_FETCH_EVENT_TIME_LAG, progress::fetchEventTimeLag);
        this.progress = progress;
        this.group = parent.addGroup(GROUP);
        this.backfilledRecords = group.counter(BACKFILLED_RECORDS);
        group.gauge(
                BACKFILLED_RECORDS_PER_SECOND,
                new WindowedRate(backfilledRecords, Duration.ofSeconds(RATE_SECONDS)));
        this.skippedOffsets = group.counter(SKIPPED_OFFSETS);
        group.gauge(SPLITS_BACKFILLING, () -> count(splits.get(), HandoverState.BACKFILLING));
        group.gauge(SPLITS_CACHING_UP, () -> count(splits.get(), HandoverState.CACHING_UP));
        group.gauge(SPLITS_FINISHED, () -> count(splits.get(), HandoverState.FINISHED));
        group.gauge(FORWARD_MODE, () -> forwardMode.getAsBoolean() ? 1 : 0);
    }

    public Counter backfilledRecords() {
        return backfilledRecords;
    }

    public Counter skippedOffsets() {
        return skippedOffsets;
    }

    /** What the fetcher notes for the reader's lag gauges. */
    public FetchProgress fetchProgress() {
        return progress;
    }

    /** Registers the split's gauges, unless this reader registered them already. */
    public void registerSplit(BackfillSplitState split) {
        if (splitGroups.containsKey(split.splitId())) {
            return;
        }
        MetricGroup splitGroup = group.addGroup(SPLIT_GROUP, split.splitId());
        splitGroup.gauge(SPLIT_STATE, () -> split.state().code());
        splitGroup.gauge(SPLIT_NEXT_OFFSET, split::nextOffset);
        splitGroup.gauge(SPLIT_TARGET_END_OFFSET, split::targetEndOffset);
        splitGroup.gauge(SPLIT_BACKFILLED_RECORDS, split::backfilledRecords);
        splitGroups.put(split.splitId(), splitGroup);
    }

    /** The split ended on this reader: its gauges are unregistered. */
    public void unregisterSplit(String splitId) {
        MetricGroups.close(splitGroups.remove(splitId));
    }

    /**
     * Records to backfill up to each split's target (or its stopping offset, if lower), plus the
     * live reader's lag. A split caching up is already on the live reader, whose lag covers it when
     * known.
     */
    static long pendingRecords(Collection<BackfillSplitState> splits, FetchProgress progress) {
        OptionalLong liveLag = progress.liveLag();
        long pending = liveLag.orElse(0);
        for (BackfillSplitState split : splits) {
            HandoverState state = split.state();
            if (state == HandoverState.BACKFILLING
                    || (state == HandoverState.CACHING_UP && liveLag.isEmpty())) {
                pending += Math.max(0, split.readsBackfillUpTo() - split.nextOffset());
            }
        }
        return pending;
    }

    private static int count(Collection<BackfillSplitState> splits, HandoverState state) {
        int n = 0;
        for (BackfillSplitState split : splits) {
            if (split.state() == state) {
                n++;
            }
        }
        return n;
    }
}
