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
import dev.sourcebackfill.source.event.SplitStatusReportEvent;
import dev.sourcebackfill.source.spi.BackfillLog;
import dev.sourcebackfill.source.spi.LogReading;
import dev.sourcebackfill.source.spi.LogSplitDiscoverer;
import dev.sourcebackfill.source.spi.OffsetCommitter;
import dev.sourcebackfill.source.split.BackfillSplit;
import dev.sourcebackfill.source.split.HandoverState;
import dev.sourcebackfill.source.testutils.FakeLog;
import dev.sourcebackfill.source.testutils.IdleAwareReaderOutput;

import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.connector.testutils.source.reader.TestingReaderContext;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The reader keeps ended splits in its snapshot, and hands them to the offset committer too: a
 * bounded split's final offset (its stopping offset) is committed (Kafka: the group's committed
 * offset of an ended partition reaches its stopping offset, so lag tools show zero).
 */
class EndedSplitOffsetCommitTest {

    /** FakeLog plus an offset committer that records what it is given. */
    static final class CommittingLog implements BackfillLog<String> {
        private static final long serialVersionUID = 1L;
        final transient FakeLog log;
        final transient List<Map<String, Long>> commits = new CopyOnWriteArrayList<>();

        CommittingLog(FakeLog log) {
            this.log = log;
        }

        @Override
        public LogSplitDiscoverer createSplitDiscoverer() {
            return log.createSplitDiscoverer();
        }

        @Override
        public LogReading<String, String> backfillReading() {
            return log.backfillReading();
        }

        @Override
        public LogReading<String, String> liveReading() {
            return log.liveReading();
        }

        @Override
        public boolean isLiveSeekable() {
            return log.isLiveSeekable();
        }

        @Override
        public Optional<OffsetCommitter> createOffsetCommitter(SourceReaderContext context) {
            return Optional.of((checkpointId, nextOffsets) -> commits.add(Map.copyOf(nextOffsets)));
        }

        @Override
        public TypeInformation<String> getProducedType() {
            return log.getProducedType();
        }
    }

    @Test
    void anEndedSplitsFinalOffsetIsCommitted() throws Exception {
        CommittingLog log =
                new CommittingLog(new FakeLog(true).write("a", 0, 1, 2).write("b", 0, 1));
        TestingReaderContext context = new TestingReaderContext();
        IdleAwareReaderOutput<String> output = new IdleAwareReaderOutput<>();
        BackfillSourceReader<String> reader =
                BackfillSourceReader.create(
                        log,
                        BackfillSourceConfig.<String>defaults()
                                .withPollTimeout(Duration.ofMillis(5))
                                .withListener(BackfillListener.NO_OP),
                        context);
        try {
            reader.start();
            reader.addSplits(
                    List.of(
                            new BackfillSplit(
                                    "a", HandoverState.BACKFILLING, 0, 3, OptionalLong.of(3)),
                            new BackfillSplit(
                                    "b", HandoverState.BACKFILLING, 0, 2, OptionalLong.empty())));
            long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (!endedReported(context, "a")) {
                assertThat(System.nanoTime()).as("waiting for a to end").isLessThan(deadline);
                reader.pollNext(output);
                Thread.sleep(1);
            }
            List<BackfillSplit> snapshot = reader.snapshotState(1);
            assertThat(snapshot).anyMatch(s -> s.splitId().equals("a") && s.isEnded());
            reader.notifyCheckpointComplete(1);
            assertThat(log.commits).isNotEmpty();
            assertThat(log.commits.get(log.commits.size() - 1))
                    .as(
                            "offsets committed for completed checkpoint 1, whose snapshot has a ended at 3")
                    .containsEntry("a", 3L);
        } finally {
            reader.close();
        }
    }

    private static boolean endedReported(TestingReaderContext context, String splitId) {
        return context.getSentEvents().stream()
                .filter(e -> e instanceof SplitStatusReportEvent)
                .flatMap(e -> ((SplitStatusReportEvent) e).statuses().stream())
                .anyMatch(s -> s.splitId().equals(splitId) && s.ended());
    }
}
