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
import dev.sourcebackfill.source.OffsetGapPolicy;
import dev.sourcebackfill.source.SplitTransition;
import dev.sourcebackfill.source.datagen.DatagenLog;
import dev.sourcebackfill.source.datagen.DatagenRecord;
import dev.sourcebackfill.source.split.BackfillSplit;
import dev.sourcebackfill.source.split.HandoverState;

import org.apache.flink.api.connector.source.ReaderOutput;
import org.apache.flink.connector.testutils.source.reader.TestingReaderContext;
import org.apache.flink.connector.testutils.source.reader.TestingReaderOutput;
import org.apache.flink.core.io.InputStatus;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The datagen log with its non-seekable feed as the live reader, through the whole source reader:
 * the fetcher's raw records (a partition number) made values by the emitter on the task thread,
 * with the emitter's check that a record comes from the reader its split's state says. A feed is
 * given every split at once, also the backfilling ones, and delivers records ahead of the backfill
 * that the handover drops: none of them may reach the emitter while its split backfills.
 */
class DatagenFeedThroughTheEmitterTest {

    private static final int PARTITIONS = 3;
    private static final long HISTORY = 400;

    /** Per split, the offsets at which its transitions were applied, as "STATE@next". */
    private final Map<String, List<String>> transitions = new ConcurrentHashMap<>();

    private BackfillSourceReader<DatagenRecord> reader(DatagenLog log) throws Exception {
        return reader(log, OffsetGapPolicy.FAIL);
    }

    private BackfillSourceReader<DatagenRecord> reader(DatagenLog log, OffsetGapPolicy gaps)
            throws Exception {
        BackfillSourceReader<DatagenRecord> reader =
                BackfillSourceReader.create(
                        log,
                        BackfillSourceConfig.<DatagenRecord>defaults()
                                .withGapPolicy(gaps)
                                .withPollTimeout(Duration.ofMillis(2))
                                .withListener(
                                        new BackfillListener() {
                                            @Override
                                            public void onTransition(SplitTransition t) {
                                                transitions
                                                        .computeIfAbsent(
                                                                t.splitId(), k -> new ArrayList<>())
                                                        .add(t.to() + "@" + t.nextOffset());
                                            }
                                        }),
                        new TestingReaderContext());
        reader.start();
        return reader;
    }

    private static DatagenLog feedLog(long epoch) {
        return DatagenLog.builder()
                .partitions(PARTITIONS)
                .historyPerPartition(HISTORY)
                .liveRatePerSecond(200)
                .epochMillis(epoch)
                .feedLive(150)
                // small polls: the backfill takes many fetches, the feed runs ahead meanwhile
                .maxRecordsPerPoll(12)
                .build();
    }

    /** Polls until every split is FINISHED and has emitted up to {@code upTo} at least. */
    private static void pollUntilLive(
            BackfillSourceReader<DatagenRecord> reader,
            ReaderOutput<DatagenRecord> output,
            Map<Integer, List<Long>> emitted,
            long upTo)
            throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (true) {
            InputStatus status;
            int polls = 0;
            do {
                status = reader.pollNext(output);
            } while (status == InputStatus.MORE_AVAILABLE && ++polls < 1_000);
            boolean done =
                    reader.snapshotState(0).stream()
                            .allMatch(s -> s.state() == HandoverState.FINISHED);
            for (int p = 0; p < PARTITIONS && done; p++) {
                List<Long> offsets = emitted.getOrDefault(p, List.of());
                done = !offsets.isEmpty() && offsets.get(offsets.size() - 1) >= upTo;
            }
            if (done) {
                return;
            }
            assertThat(System.nanoTime())
                    .as("waiting for every split to be live past " + upTo + ": " + emitted.keySet())
                    .isLessThan(deadline);
            if (status != InputStatus.MORE_AVAILABLE) {
                Thread.sleep(1);
            }
        }
    }

    /** Collects the emitted records' offsets by partition. */
    private static final class ByPartition extends TestingReaderOutput<DatagenRecord> {
        final Map<Integer, List<Long>> offsets = new HashMap<>();

        @Override
        public void collect(DatagenRecord record, long timestamp) {
            offsets.computeIfAbsent(record.partition, k -> new ArrayList<>()).add(record.offset);
        }
    }

    @Test
    void everyOffsetOfEveryPartitionIsEmittedOnceAcrossTheFeedHandover() throws Exception {
        long epoch = System.currentTimeMillis() - 500;
        DatagenLog log = feedLog(epoch);
        ByPartition output = new ByPartition();
        try (BackfillSourceReader<DatagenRecord> reader = reader(log)) {
            List<BackfillSplit> splits = new ArrayList<>();
            long now = System.currentTimeMillis();
            for (int p = 0; p < PARTITIONS; p++) {
                splits.add(
                        new BackfillSplit(
                                DatagenLog.splitId(p),
                                HandoverState.BACKFILLING,
                                0,
                                log.headAt(p, now),
                                OptionalLong.empty()));
            }
            reader.addSplits(splits);
            pollUntilLive(reader, output, output.offsets, HISTORY + 300);
        }
        for (int p = 0; p < PARTITIONS; p++) {
            List<Long> offsets = output.offsets.get(p);
            long last = offsets.get(offsets.size() - 1);
            assertThat(offsets)
                    .as("partition %d: every offset 0..%d once, in order", p, last)
                    .hasSize((int) last + 1)
                    .isSorted()
                    .doesNotHaveDuplicates();
            assertThat(transitions.get(DatagenLog.splitId(p)))
                    .last()
                    .asString()
                    .startsWith("FINISHED");
        }
    }

    /**
     * A split restored CACHING_UP (a checkpoint taken after the backfill caught up, before the feed
     * delivered the handover's record) goes on at its next offset: the feed's replay below it is
     * dropped, the rest emitted once, as live records of a CACHING_UP or FINISHED split.
     */
    @Test
    void aSplitRestoredCachingUpOnAFeedGoesOnAtItsNextOffset() throws Exception {
        long epoch = System.currentTimeMillis() - 500;
        DatagenLog log = feedLog(epoch);
        ByPartition output = new ByPartition();
        Map<Integer, Long> restoredAt = new HashMap<>();
        try (BackfillSourceReader<DatagenRecord> reader = reader(log)) {
            List<BackfillSplit> splits = new ArrayList<>();
            // the feed starts 150 behind the head when it is given the splits, right after this
            long now = System.currentTimeMillis();
            for (int p = 0; p < PARTITIONS; p++) {
                // inside the feed's replay window (150 behind the head), so no gap
                long next = log.headAt(p, now) - 40 - 10 * p;
                restoredAt.put(p, next);
                splits.add(
                        new BackfillSplit(
                                DatagenLog.splitId(p),
                                HandoverState.CACHING_UP,
                                next,
                                next,
                                OptionalLong.empty()));
            }
            reader.addSplits(splits);
            pollUntilLive(reader, output, output.offsets, HISTORY + 300);
        }
        for (int p = 0; p < PARTITIONS; p++) {
            List<Long> offsets = output.offsets.get(p);
            long first = restoredAt.get(p);
            long last = offsets.get(offsets.size() - 1);
            assertThat(offsets)
                    .as("partition %d: every offset %d..%d once", p, first, last)
                    .startsWith(first)
                    .hasSize((int) (last - first + 1))
                    .isSorted()
                    .doesNotHaveDuplicates();
        }
    }

    /**
     * An archive that ends below where the feed starts, under SKIP: the gap is skipped at the
     * handover and the feed's records after it are emitted as live records once each; the emitter's
     * check holds across the skip.
     */
    @Test
    void aGapSkippedAtAFeedHandoverIsFollowedByLiveRecordsOnce() throws Exception {
        long epoch = System.currentTimeMillis() - 500;
        DatagenLog log =
                DatagenLog.builder()
                        .partitions(PARTITIONS)
                        .historyPerPartition(HISTORY)
                        .liveRatePerSecond(200)
                        .epochMillis(epoch)
                        .archiveBackfill(true)
                        .feedLive(0)
                        .maxRecordsPerPoll(12)
                        .build();
        ByPartition output = new ByPartition();
        List<BackfillSplit> restored;
        try (BackfillSourceReader<DatagenRecord> reader = reader(log, OffsetGapPolicy.SKIP)) {
            List<BackfillSplit> splits = new ArrayList<>();
            for (int p = 0; p < PARTITIONS; p++) {
                splits.add(
                        new BackfillSplit(
                                DatagenLog.splitId(p),
                                HandoverState.BACKFILLING,
                                0,
                                HISTORY,
                                OptionalLong.empty()));
            }
            reader.addSplits(splits);
            pollUntilLive(reader, output, output.offsets, HISTORY + 250);
            restored = reader.snapshotState(2);
        }
        for (int p = 0; p < PARTITIONS; p++) {
            List<Long> offsets = output.offsets.get(p);
            assertThat(offsets).isSorted().doesNotHaveDuplicates();
            assertThat(offsets.subList(0, (int) HISTORY))
                    .as("partition %d: the archive's offsets", p)
                    .hasSize((int) HISTORY)
                    .endsWith(HISTORY - 1);
            long firstLive = offsets.get((int) HISTORY);
            long last = offsets.get(offsets.size() - 1);
            assertThat(firstLive).as("partition %d: a gap was skipped", p).isGreaterThan(HISTORY);
            assertThat(offsets.subList((int) HISTORY, offsets.size()))
                    .as("partition %d: live %d..%d once", p, firstLive, last)
                    .hasSize((int) (last - firstLive + 1));
        }
        assertThat(restored)
                .allSatisfy(s -> assertThat(s.state()).isEqualTo(HandoverState.FINISHED));
    }
}
