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

import java.util.Collection;
import java.util.HashSet;
import java.util.Set;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * Metrics of one source reader, under the group {@code backfill}: {@code backfilledRecords}, {@code
 * splitsBackfilling}, {@code splitsCachingUp}, {@code splitsFinished}, {@code forwardMode} (0 or
 * 1), and per split ({@code backfill.split.<id>}) {@code state} (the state's code), {@code
 * nextOffset}, {@code targetEndOffset} and {@code backfilledRecords}.
 */
@Internal
public final class BackfillReaderMetrics {

    public static final String GROUP = "backfill";

    private final MetricGroup group;
    private final Counter backfilledRecords;
    private final Set<String> registeredSplits = new HashSet<>();

    public BackfillReaderMetrics(
            MetricGroup parent,
            Supplier<Collection<BackfillSplitState>> splits,
            BooleanSupplier forwardMode) {
        this.group = parent.addGroup(GROUP);
        this.backfilledRecords = group.counter("backfilledRecords");
        group.gauge("splitsBackfilling", () -> count(splits.get(), HandoverState.BACKFILLING));
        group.gauge("splitsCachingUp", () -> count(splits.get(), HandoverState.CACHING_UP));
        group.gauge("splitsFinished", () -> count(splits.get(), HandoverState.FINISHED));
        group.gauge("forwardMode", () -> forwardMode.getAsBoolean() ? 1 : 0);
    }

    public Counter backfilledRecords() {
        return backfilledRecords;
    }

    /** Registers the per-split gauges once per split and reader. */
    public void registerSplit(BackfillSplitState split) {
        if (!registeredSplits.add(split.splitId())) {
            return;
        }
        MetricGroup splitGroup = group.addGroup("split", split.splitId());
        splitGroup.gauge("state", () -> split.state().code());
        splitGroup.gauge("nextOffset", split::nextOffset);
        splitGroup.gauge("targetEndOffset", split::targetEndOffset);
        splitGroup.gauge("backfilledRecords", split::backfilledRecords);
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
