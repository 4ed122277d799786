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

import dev.sourcebackfill.source.BackfillSourceConfig;
import dev.sourcebackfill.source.metrics.BackfillReaderMetrics;
import dev.sourcebackfill.source.metrics.FetchProgress;
import dev.sourcebackfill.source.split.BackfillSplit;
import dev.sourcebackfill.source.testutils.FakeLog;

import org.apache.flink.connector.base.source.reader.RecordsWithSplitIds;
import org.apache.flink.connector.base.source.reader.splitreader.SplitsAddition;
import org.apache.flink.connector.testutils.source.reader.TestingReaderContext;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.apache.flink.runtime.metrics.groups.InternalSourceReaderMetricGroup;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * On the reader side, at parallelism 2 the history split's own reader holds the split's last part
 * and every other chunk (1, 3), not a contiguous run; it reads them oldest first, each record once,
 * and every one ends.
 */
class HistorySplitChunksOnItsOwnReaderTest {

    private BackfillSplitReader<String> reader(FakeLog log) {
        return new BackfillSplitReader<>(
                log,
                BackfillSourceConfig.<String>defaults().withPollTimeout(Duration.ofMillis(1)),
                new TestingReaderContext(),
                new ReaderMode(),
                new BackfillFetch.TransitionSink() {
                    @Override
                    public void apply(String splitId, HandoverTransition t) {}

                    @Override
                    public void gapSkipped(String splitId, long from, long to) {}
                },
                new BackfillReaderMetrics(
                        InternalSourceReaderMetricGroup.mock(new UnregisteredMetricsGroup()),
                        List::of,
                        () -> false,
                        new FetchProgress()),
                BackfillRateLimit.unlimited());
    }

    @ParameterizedTest(name = "seekable live reader: {0}")
    @ValueSource(booleans = {true, false})
    void theOwnReaderReadsEveryOtherChunkThenTheLastPartOnce(boolean seekable) throws Exception {
        // as the enumerator assigns them to the own reader at parallelism 2: the split, then
        // chunks 1 and 3 (chunks 0 and 2 are the other reader's)
        readsOldestFirstOnce(
                seekable,
                List.of(
                        BackfillSplit.historyOnly("h", 8, 10),
                        BackfillSplit.historyChunk("h", 1, 2, 4),
                        BackfillSplit.historyChunk("h", 3, 6, 8)));
    }

    /** The same splits in another order (a restored reader's state, or separate assignments). */
    @ParameterizedTest(name = "seekable live reader: {0}")
    @ValueSource(booleans = {true, false})
    void theOwnReaderReadsThemOldestFirstWhateverTheirOrder(boolean seekable) throws Exception {
        readsOldestFirstOnce(
                seekable,
                List.of(
                        BackfillSplit.historyChunk("h", 3, 6, 8),
                        BackfillSplit.historyOnly("h", 8, 10),
                        BackfillSplit.historyChunk("h", 1, 2, 4)));
    }

    private void readsOldestFirstOnce(boolean seekable, List<BackfillSplit> splits)
            throws Exception {
        FakeLog log = new FakeLog(seekable).write("h", 0, 1, 2, 3, 4, 5, 6, 7, 8, 9);
        BackfillSplitReader<String> reader = reader(log);
        reader.handleSplitsChanges(new SplitsAddition<>(splits));
        List<String> out = new ArrayList<>();
        List<String> ended = new ArrayList<>();
        for (int i = 0; i < 20 && ended.size() < 3; i++) {
            RecordsWithSplitIds<BackfillRecord> records = reader.fetch();
            String split;
            while ((split = records.nextSplit()) != null) {
                BackfillRecord record;
                while ((record = records.nextRecordFromSplit()) != null) {
                    out.add(split + ":" + record.raw());
                }
            }
            ended.addAll(records.finishedSplits());
        }
        assertThat(out)
                .containsExactly(
                        "h#chunk-1:h@2",
                        "h#chunk-1:h@3",
                        "h#chunk-3:h@6",
                        "h#chunk-3:h@7",
                        "h:h@8",
                        "h:h@9");
        assertThat(ended).containsExactlyInAnyOrder("h#chunk-1", "h#chunk-3", "h");
        assertThat(log.calls).noneMatch(call -> call.startsWith("live."));
    }
}
