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

import dev.sourcebackfill.source.BackfillListener;
import dev.sourcebackfill.source.BackfillSourceConfig;
import dev.sourcebackfill.source.spi.BackfillLog;
import dev.sourcebackfill.source.spi.LogReader;
import dev.sourcebackfill.source.spi.LogReading;
import dev.sourcebackfill.source.spi.LogRecordCollector;
import dev.sourcebackfill.source.spi.LogRecordDeserializer;
import dev.sourcebackfill.source.spi.LogSplitDiscoverer;
import dev.sourcebackfill.source.split.BackfillSplit;
import dev.sourcebackfill.source.split.HandoverState;
import dev.sourcebackfill.source.testutils.FakeLog;

import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.connector.testutils.source.reader.TestingReaderContext;
import org.apache.flink.connector.testutils.source.reader.TestingReaderOutput;
import org.apache.flink.core.io.InputStatus;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.OptionalLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Raw records of two different types through the whole source reader: the backfill's reader
 * delivers {@code Long}s, the live reader {@code String}s, and each side has its own deserializer
 * (the backfill's makes two values of an even offset and none of an offset {@code o % 5 == 3}). A
 * record made by the wrong deserializer fails with a {@code ClassCastException}, and every value
 * names the side that made it: this checks {@link BackfillSourceReader#create}'s wiring (which
 * deserializer goes where), not only the emitter's choice, which tests with one deserializer for
 * both sides (FakeLog, Kafka, datagen) cannot tell apart.
 *
 * <p>After every {@code pollNext} the reader's snapshot is checked against what was emitted: the
 * values emitted are exactly those of the offsets below each split's checkpointed next offset, so
 * that no checkpoint falls between two values of one record.
 */
class RawRecordsThroughTheSourceReaderTest {

    private static final long TARGET = 20;
    private static final long END = 40;

    /** The values of the backfill's record at {@code offset}. */
    private static List<String> backfillValues(String split, long offset) {
        if (offset % 5 == 3) {
            return List.of();
        }
        return offset % 2 == 0
                ? List.of("B:" + split + "@" + offset + "#0", "B:" + split + "@" + offset + "#1")
                : List.of("B:" + split + "@" + offset);
    }

    /** The values the reader must have emitted of {@code split} below {@code next}. */
    private static List<String> expected(String split, long next) {
        List<String> values = new ArrayList<>();
        for (long o = 0; o < next; o++) {
            if (o < TARGET) {
                values.addAll(backfillValues(split, o));
            } else {
                values.add("L:" + split + "@" + o);
            }
        }
        return values;
    }

    @ParameterizedTest(name = "seekable live reader: {0}")
    @ValueSource(booleans = {true, false})
    void eachSideMakesTheValuesOfItsOwnRecordsAndNoSnapshotSplitsARecordsValues(boolean seekable)
            throws Exception {
        FakeLog records = new FakeLog(seekable);
        // the history first; the live records once both splits are live
        for (String split : List.of("a", "b")) {
            for (long o = 0; o < TARGET; o++) {
                records.write(split, o);
            }
        }
        boolean liveWritten = false;
        TwoTypesLog log = new TwoTypesLog(records);
        TestingReaderOutput<String> output = new TestingReaderOutput<>();
        try (BackfillSourceReader<String> reader =
                BackfillSourceReader.create(
                        log,
                        BackfillSourceConfig.<String>defaults()
                                .withPollTimeout(Duration.ofMillis(2))
                                .withListener(BackfillListener.NO_OP),
                        new TestingReaderContext())) {
            reader.start();
            reader.addSplits(
                    List.of(
                            new BackfillSplit(
                                    "a",
                                    HandoverState.BACKFILLING,
                                    0,
                                    TARGET,
                                    OptionalLong.empty()),
                            new BackfillSplit(
                                    "b",
                                    HandoverState.BACKFILLING,
                                    0,
                                    TARGET,
                                    OptionalLong.empty())));
            long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (true) {
                InputStatus status = reader.pollNext(output);
                List<BackfillSplit> snapshot = reader.snapshotState(1);
                List<String> consistent = new ArrayList<>();
                boolean done = true;
                boolean live = true;
                for (BackfillSplit split : snapshot) {
                    consistent.addAll(expected(split.splitId(), split.nextOffset()));
                    done &= split.nextOffset() == END && split.state() == HandoverState.FINISHED;
                    live &= split.state() == HandoverState.FINISHED;
                }
                if (live && !liveWritten) {
                    for (String split : List.of("a", "b")) {
                        for (long o = TARGET; o < END; o++) {
                            records.write(split, o);
                        }
                    }
                    liveWritten = true;
                }
                assertThat(output.getEmittedRecords())
                        .as("what a checkpoint now holds as emitted: %s", snapshot)
                        .containsExactlyInAnyOrderElementsOf(consistent);
                if (done) {
                    break;
                }
                assertThat(System.nanoTime()).as("waiting for both splits").isLessThan(deadline);
                if (status != InputStatus.MORE_AVAILABLE) {
                    Thread.sleep(1);
                }
            }
        }
    }

    /**
     * The records of a {@link FakeLog}, delivered as {@code Long} offsets by the backfill and as
     * {@code String}s by the live reader, each side with its own deserializer.
     */
    private static final class TwoTypesLog implements BackfillLog<String> {
        private static final long serialVersionUID = 1L;
        private final transient FakeLog records;

        TwoTypesLog(FakeLog records) {
            this.records = records;
        }

        @Override
        public LogSplitDiscoverer createSplitDiscoverer() {
            return records.createSplitDiscoverer();
        }

        @Override
        public LogReading<Long, String> backfillReading() {
            LogRecordDeserializer<Long, String> values =
                    (splitId, offset, record, out) -> {
                        assertThat(record).isEqualTo(offset);
                        backfillValues(splitId, record).forEach(out::collect);
                    };
            return LogReading.of(
                    context -> new AsOffsets(records.createBackfillReader(context)),
                    context -> values);
        }

        @Override
        public LogReading<String, String> liveReading() {
            return LogReading.of(
                    records::createLiveReader,
                    context -> (s, o, record, out) -> out.collect("L:" + record));
        }

        @Override
        public boolean isLiveSeekable() {
            return records.isLiveSeekable();
        }

        @Override
        public TypeInformation<String> getProducedType() {
            return TypeInformation.of(String.class);
        }
    }

    /** A reader of strings that delivers each record's offset instead. */
    private static final class AsOffsets implements LogReader<Long> {
        private final LogReader<String> reader;

        AsOffsets(LogReader<String> reader) {
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
        public void poll(Duration maxWait, LogRecordCollector<Long> collector) throws IOException {
            reader.poll(
                    maxWait,
                    new LogRecordCollector<>() {
                        @Override
                        public void collect(
                                String splitId, long offset, long timestamp, String record) {
                            collector.collect(splitId, offset, timestamp, offset);
                        }

                        @Override
                        public void offsetsDeleted(String splitId, long from, long to) {
                            collector.offsetsDeleted(splitId, from, to);
                        }
                    });
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
        }
    }
}
