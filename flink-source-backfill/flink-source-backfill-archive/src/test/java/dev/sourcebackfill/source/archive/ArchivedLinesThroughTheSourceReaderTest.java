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
package dev.sourcebackfill.source.archive;

import dev.sourcebackfill.source.BackfillSourceConfig;
import dev.sourcebackfill.source.kafka.LiveTopics;
import dev.sourcebackfill.source.reader.BackfillSourceReader;
import dev.sourcebackfill.source.spi.BackfillLog;
import dev.sourcebackfill.source.spi.LogReader;
import dev.sourcebackfill.source.spi.LogReading;
import dev.sourcebackfill.source.spi.LogRecordCollector;
import dev.sourcebackfill.source.spi.LogSplitDiscoverer;
import dev.sourcebackfill.source.split.BackfillSplit;
import dev.sourcebackfill.source.split.HandoverState;

import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.connector.testutils.source.reader.TestingReaderContext;
import org.apache.flink.connector.testutils.source.reader.TestingReaderOutput;
import org.apache.flink.core.fs.Path;
import org.apache.flink.util.ExceptionUtils;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The archive's lines format with counted offsets as the source runs it: the line's bytes through
 * the fetcher, its values made by the source reader's emitter ({@link ArchivedLineDeserializer}),
 * wired by {@link ArchiveBackfillLog#backfillReading()} and {@link BackfillSourceReader#create}.
 */
class ArchivedLinesThroughTheSourceReaderTest {

    @TempDir java.nio.file.Path root;

    /**
     * A line the format rejects must fail the job with an error a user can act on: the split, the
     * offset and the archive file that holds the line, by its name (as the reader named it before
     * the values moved to the task thread: {@code "Archive file <path> (split t-0): record 3 cannot
     * be read"}). The file is named by its place only ({@code t-0@0}, the topic, partition and
     * start offset of {@link ArchivedFile#toString()}), which is not the object to look at in the
     * archive (its name has the layout's pattern and may end in {@code .gz}).
     */
    @Test
    void anUnreadableLineFailsTheReaderNamingTheArchiveFileItIsIn() throws Exception {
        java.nio.file.Path dir = root.resolve("t").resolve("partition=0");
        Files.createDirectories(dir);
        java.nio.file.Path file = dir.resolve("t+0+0000000000.json");
        Files.writeString(file, "a\nb\npoison\nd\n");

        ArchiveBackfillLog<String> log =
                new ArchiveBackfillLog<>(
                        LiveTopics.standIn(new NothingLive()),
                        new Path(root.toUri()),
                        ArchiveLayout.kafkaConnect(),
                        ArchiveFormat.lines(new PoisonRejecting()),
                        null,
                        100,
                        false,
                        ArchivedRecordMapper.identity());
        TestingReaderOutput<String> output = new TestingReaderOutput<>();
        Throwable failure = null;
        try (BackfillSourceReader<String> reader =
                BackfillSourceReader.create(
                        log,
                        BackfillSourceConfig.<String>defaults()
                                .withPollTimeout(Duration.ofMillis(5)),
                        new TestingReaderContext())) {
            reader.start();
            reader.addSplits(
                    List.of(
                            new BackfillSplit(
                                    "t-0", HandoverState.BACKFILLING, 0, 4, OptionalLong.empty())));
            long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (failure == null && System.nanoTime() < deadline) {
                try {
                    reader.pollNext(output);
                } catch (Exception e) {
                    failure = e;
                }
                Thread.sleep(1);
            }
        }
        assertThat(failure).as("the unreadable line fails the reader").isNotNull();
        assertThat(output.getEmittedRecords()).containsExactly("a", "b");
        String chain = ExceptionUtils.stringifyException(failure);
        assertThat(chain)
                .contains("split t-0")
                .contains("offset 2")
                .contains("not a record: poison")
                .as("the error names the archive file that holds the line")
                .contains(file.getFileName().toString());
    }

    /**
     * Under the skip policy the rejected line makes no value, its offset stays taken, and the
     * split's checkpointed position moves past it once the lines before and after are emitted.
     */
    @Test
    void anUnreadableLineSkippedInTheTaskThreadKeepsItsOffset() throws Exception {
        java.nio.file.Path dir = root.resolve("t").resolve("partition=0");
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("t+0+0000000000.json"), "a\npoison\n\nd\n");
        ArchiveBackfillLog<String> log =
                new ArchiveBackfillLog<>(
                        LiveTopics.standIn(new NothingLive()),
                        new Path(root.toUri()),
                        ArchiveLayout.kafkaConnect(),
                        ArchiveFormat.lines(new PoisonRejecting()),
                        null,
                        100,
                        true,
                        (v, file, offset) -> v + "#" + offset);
        TestingReaderOutput<String> output = new TestingReaderOutput<>();
        try (BackfillSourceReader<String> reader =
                BackfillSourceReader.create(
                        log,
                        BackfillSourceConfig.<String>defaults()
                                .withPollTimeout(Duration.ofMillis(5)),
                        new TestingReaderContext())) {
            reader.start();
            reader.addSplits(
                    List.of(
                            new BackfillSplit(
                                    "t-0", HandoverState.BACKFILLING, 0, 4, OptionalLong.empty())));
            long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (reader.snapshotState(1).get(0).nextOffset() < 4) {
                assertThat(System.nanoTime()).as("waiting for offset 4").isLessThan(deadline);
                reader.pollNext(output);
                Thread.sleep(1);
            }
            // the empty line (offset 2) is a record SimpleStringSchema makes "" of
            assertThat(output.getEmittedRecords()).containsExactly("a#0", "#2", "d#3");
        }
    }

    /** A live log that has nothing yet: the test never gets to the handover. */
    private static final class NothingLive implements BackfillLog<String> {
        private static final long serialVersionUID = 1L;

        @Override
        public LogSplitDiscoverer createSplitDiscoverer() {
            return initial -> List.of();
        }

        @Override
        public LogReading<String, String> backfillReading() {
            return LogReading.ofValues(context -> new EmptyReader());
        }

        @Override
        public LogReading<String, String> liveReading() {
            return LogReading.ofValues(context -> new EmptyReader());
        }

        @Override
        public boolean isLiveSeekable() {
            return true;
        }

        @Override
        public TypeInformation<String> getProducedType() {
            return TypeInformation.of(String.class);
        }
    }

    private static final class EmptyReader implements LogReader<String> {
        private final Map<String, Long> positions = new HashMap<>();

        @Override
        public void addSplit(String splitId, long startOffset) {
            positions.put(splitId, startOffset);
        }

        @Override
        public void removeSplit(String splitId) {
            positions.remove(splitId);
        }

        @Override
        public void poll(Duration maxWait, LogRecordCollector<String> collector) {}

        @Override
        public long position(String splitId) {
            return positions.get(splitId);
        }

        @Override
        public long earliestOffset(String splitId) {
            return 0;
        }

        @Override
        public void wakeUp() {}

        @Override
        public void close() {}
    }
}
