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
package dev.sourcebackfill.examples;

import dev.sourcebackfill.source.datagen.DatagenLog;
import dev.sourcebackfill.source.datagen.DatagenRecord;

import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichMapFunction;

import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;

/**
 * Chained to the source: prints, at most every {@code interval}, each of its subtask's partitions'
 * backfill progress and the overall figure, then the live records' rate.
 */
final class ProgressPrinter extends RichMapFunction<DatagenRecord, DatagenRecord> {

    private static final long serialVersionUID = 1L;

    private final DatagenLog log;
    private final long intervalMillis;
    private transient Map<Integer, long[]> partitions; // partition -> {last offset, records}
    private transient long lastPrint;
    private transient long liveSinceLastPrint;

    ProgressPrinter(DatagenLog log, Duration interval) {
        this.log = log;
        this.intervalMillis = interval.toMillis();
    }

    @Override
    public void open(OpenContext openContext) {
        partitions = new TreeMap<>();
        lastPrint = System.currentTimeMillis();
    }

    @Override
    public DatagenRecord map(DatagenRecord record) {
        long[] p = partitions.computeIfAbsent(record.partition, k -> new long[2]);
        p[0] = record.offset;
        p[1]++;
        if (record.offset >= log.historyOf(record.partition)) {
            liveSinceLastPrint++;
        }
        long now = System.currentTimeMillis();
        if (now - lastPrint >= intervalMillis) {
            print(now);
        }
        return record;
    }

    private void print(long now) {
        int subtask = getRuntimeContext().getTaskInfo().getIndexOfThisSubtask();
        StringBuilder line = new StringBuilder();
        long done = 0;
        long total = 0;
        boolean backfilling = false;
        for (Map.Entry<Integer, long[]> e : partitions.entrySet()) {
            long history = log.historyOf(e.getKey());
            long reached = Math.min(e.getValue()[0] + 1, history);
            done += reached;
            total += history;
            if (reached < history) {
                backfilling = true;
                line.append(
                        String.format(
                                " p%d %d%%", e.getKey(), 100 * reached / Math.max(1, history)));
            }
        }
        double seconds = (now - lastPrint) / 1000.0;
        if (backfilling) {
            System.out.printf(
                    "[subtask %d] backfill %d/%d records (%d%%):%s%n",
                    subtask, done, total, 100 * done / Math.max(1, total), line);
        } else {
            System.out.printf(
                    "[subtask %d] live: %.0f records/s over %d partitions%n",
                    subtask, liveSinceLastPrint / seconds, partitions.size());
        }
        lastPrint = now;
        liveSinceLastPrint = 0;
    }
}
