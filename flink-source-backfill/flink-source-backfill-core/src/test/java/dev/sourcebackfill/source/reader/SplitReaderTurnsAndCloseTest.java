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
import dev.sourcebackfill.source.spi.BackfillLog;
import dev.sourcebackfill.source.spi.LogReader;
import dev.sourcebackfill.source.spi.LogReading;
import dev.sourcebackfill.source.spi.LogRecordCollector;
import dev.sourcebackfill.source.spi.LogSplitDiscoverer;
import dev.sourcebackfill.source.split.BackfillSplit;
import dev.sourcebackfill.source.split.HandoverState;
import dev.sourcebackfill.source.testutils.FakeLog;

import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.connector.base.source.reader.RecordsWithSplitIds;
import org.apache.flink.connector.base.source.reader.splitreader.SplitsAddition;
import org.apache.flink.connector.testutils.source.reader.TestingReaderContext;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.apache.flink.runtime.metrics.groups.InternalSourceReaderMetricGroup;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.OptionalLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The split reader's turns at a give-way and a release (each turn started before its records, a
 * paused split paused again when its turn comes back), the backfill reader closed in forward mode,
 * and its close.
 */
class SplitReaderTurnsAndCloseTest {

    private final ReaderMode mode = new ReaderMode();

    /** What the task thread sees, in order: "split:value", "split:STATE@next", "split:TURN". */
    private final List<String> seen = new ArrayList<>();

    private String current;

    private BackfillSplitReader<String> reader(BackfillLog<String> log) {
        return new BackfillSplitReader<>(
                log,
                BackfillSourceConfig.<String>defaults().withPollTimeout(Duration.ofMillis(1)),
                new TestingReaderContext(),
                mode,
                new BackfillFetch.TransitionSink() {
                    @Override
                    public void apply(String splitId, HandoverTransition t) {
                        seen.add(splitId + ":" + t.newState() + "@" + t.nextOffset());
                    }

                    @Override
                    public void gapSkipped(String splitId, long from, long to) {
                        seen.add(splitId + ":skip " + from + ".." + (to - 1));
                    }

                    @Override
                    public void turnStarted(String splitId) {
                        seen.add(splitId + ":TURN");
                    }
                },
                new BackfillReaderMetrics(
                        InternalSourceReaderMetricGroup.mock(new UnregisteredMetricsGroup()),
                        List::of,
                        () -> false,
                        new FetchProgress()),
                BackfillRateLimit.unlimited());
    }

    private List<String> fetch(BackfillSplitReader<String> reader) throws Exception {
        seen.clear();
        RecordsWithSplitIds<BackfillRecord> records = reader.fetch();
        String split;
        while ((split = records.nextSplit()) != null) {
            BackfillRecord record;
            while ((record = records.nextRecordFromSplit()) != null) {
                seen.add(split + ":" + record.raw());
            }
        }
        for (String finished : records.finishedSplits()) {
            seen.add(finished + ":ended");
        }
        return new ArrayList<>(seen);
    }

    private static List<BackfillSplit> splits(BackfillSplit... splits) {
        return List.of(splits);
    }

    /**
     * A chunk that takes over its log split because the reading one was paused for alignment
     * (give-way) starts its turn (its output marked active) before its first record; the paused
     * one, when its turn comes back, starts a turn again and is paused again on the reader.
     */
    @Test
    void aSplitThatTakesOverAtAGiveWayOrAReleaseStartsItsTurnBeforeItsRecords() throws Exception {
        FakeLog log = new FakeLog(true).write("a", 0, 1);
        BackfillSplitReader<String> reader = reader(log);
        BackfillSplit chunk0 = BackfillSplit.historyChunk("a", 0, 0, 4);
        BackfillSplit chunk1 = BackfillSplit.historyChunk("a", 1, 4, 6);
        BackfillSplit chunk2 = BackfillSplit.historyChunk("a", 2, 6, 8);
        reader.handleSplitsChanges(new SplitsAddition<>(splits(chunk0, chunk1, chunk2)));
        assertThat(fetch(reader)).containsExactly("a#chunk-0:a@0", "a#chunk-0:a@1");

        reader.pauseOrResumeSplits(splits(chunk0), List.of());
        assertThat(log.calls)
                .endsWith("backfill.pause [a]", "backfill.remove a", "backfill.add a@4");
        log.write("a", 2, 3, 4, 5, 6, 7);
        // chunk 1 took over at the give-way; when it ends, chunk 2 (not paused) goes before
        // chunk 0 (paused): each starts its turn before its first record
        assertThat(fetch(reader))
                .containsExactly(
                        "a#chunk-1:TURN",
                        "a#chunk-1:a@4",
                        "a#chunk-1:a@5",
                        "a#chunk-2:TURN",
                        "a#chunk-1:ended");
        assertThat(log.calls).endsWith("backfill.remove a", "backfill.add a@6");
        assertThat(fetch(reader))
                .containsExactly(
                        "a#chunk-2:a@6", "a#chunk-2:a@7", "a#chunk-0:TURN", "a#chunk-2:ended");
        // chunk 0's turn again, paused again on the reader (its removal dropped the pause)
        assertThat(log.calls)
                .endsWith("backfill.remove a", "backfill.add a@2", "backfill.pause [a]");
        assertThat(fetch(reader)).isEmpty();
        reader.pauseOrResumeSplits(List.of(), splits(chunk0));
        assertThat(fetch(reader))
                .containsExactly("a#chunk-0:a@2", "a#chunk-0:a@3", "a#chunk-0:ended");
        // nothing reads: the reader stays open outside forward mode, closes in it
        assertThat(reader.hasBackfillReader()).isTrue();
        mode.setForward(true);
        fetch(reader);
        assertThat(reader.hasBackfillReader()).isFalse();
        assertThat(log.calls).contains("backfill.close");
    }

    /**
     * Closing the split reader closes the live reader also when closing the backfill reader fails
     * (a consumer left open otherwise).
     */
    @Test
    void closingClosesTheLiveReaderAlsoWhenClosingTheBackfillReaderFails() throws Exception {
        FakeLog fake = new FakeLog(true).write("a", 0, 1, 2, 3);
        BackfillSplitReader<String> reader = reader(new FailingBackfillClose(fake));
        reader.handleSplitsChanges(
                new SplitsAddition<>(
                        splits(
                                new BackfillSplit(
                                        "a",
                                        HandoverState.BACKFILLING,
                                        0,
                                        2,
                                        OptionalLong.empty()))));
        fetch(reader);
        fake.write("a", 4);
        fetch(reader);
        assertThat(fake.calls).contains("live.add a@2");
        assertThatThrownBy(reader::close).hasMessageContaining("backfill close failed");
        assertThat(fake.calls).contains("live.close");
    }

    /** The fake log, with a backfill reader whose close fails. */
    private static final class FailingBackfillClose implements BackfillLog<String> {
        private final FakeLog fake;

        FailingBackfillClose(FakeLog fake) {
            this.fake = fake;
        }

        @Override
        public LogSplitDiscoverer createSplitDiscoverer() {
            return fake.createSplitDiscoverer();
        }

        @Override
        public LogReading<String, String> backfillReading() {
            return LogReading.ofValues(
                    context -> new FailingClose(fake.createBackfillReader(context)));
        }

        @Override
        public LogReading<String, String> liveReading() {
            return fake.liveReading();
        }

        @Override
        public boolean isLiveSeekable() {
            return true;
        }

        @Override
        public TypeInformation<String> getProducedType() {
            return fake.getProducedType();
        }
    }

    private static final class FailingClose implements LogReader<String> {
        private final LogReader<String> reader;

        FailingClose(LogReader<String> reader) {
            this.reader = reader;
        }

        @Override
        public void addSplit(String splitId, long startOffset) throws IOException {
            reader.addSplit(splitId, startOffset);
        }

        @Override
        public void removeSplit(String splitId) throws IOException {
            reader.removeSplit(splitId);
        }

        @Override
        public void poll(Duration maxWait, LogRecordCollector<String> collector)
                throws IOException {
            reader.poll(maxWait, collector);
        }

        @Override
        public long position(String splitId) throws IOException {
            return reader.position(splitId);
        }

        @Override
        public long earliestOffset(String splitId) throws IOException {
            return reader.earliestOffset(splitId);
        }

        @Override
        public boolean isEndOfSplit(String splitId) throws IOException {
            return reader.isEndOfSplit(splitId);
        }

        @Override
        public void pauseOrResumeSplits(Collection<String> toPause, Collection<String> toResume)
                throws IOException {
            reader.pauseOrResumeSplits(toPause, toResume);
        }

        @Override
        public void wakeUp() {
            reader.wakeUp();
        }

        @Override
        public void close() throws Exception {
            reader.close();
            throw new IOException("backfill close failed");
        }
    }
}
