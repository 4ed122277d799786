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
import dev.sourcebackfill.source.split.BackfillSplit;
import dev.sourcebackfill.source.split.HandoverState;
import dev.sourcebackfill.source.testutils.FakeLog;

import org.apache.flink.api.connector.source.SourceOutput;
import org.apache.flink.connector.testutils.source.reader.TestingReaderContext;
import org.apache.flink.connector.testutils.source.reader.TestingReaderOutput;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArraySet;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A split the reader is given ended (a chunk of history restored after it ended) goes through the
 * fetcher, whose first fetch names it finished: the split output Flink made for it is released, as
 * that of a split that ends while read. An output never released would hold the reader's watermark
 * at its start for ever.
 */
class EndedSplitOutputTest {

    /**
     * A reader output that records the split outputs created and released, as Flink's
     * SourceOperator and ProgressiveTimestampsAndWatermarks do: a created split output holds the
     * reader's watermark until it is released.
     */
    private static final class SplitOutputs extends TestingReaderOutput<String> {
        final Set<String> created = new CopyOnWriteArraySet<>();
        final Set<String> released = new CopyOnWriteArraySet<>();

        @Override
        public SourceOutput<String> createOutputForSplit(String splitId) {
            created.add(splitId);
            return super.createOutputForSplit(splitId);
        }

        @Override
        public void releaseOutputForSplit(String splitId) {
            released.add(splitId);
        }

        @Override
        public void markIdle() {}
    }

    /**
     * A restored reader is given, in its state, its partition's own split (live) and two chunks:
     * one that ended before the checkpoint, one that ends now. Flink's SourceOperator creates a
     * split output for every split it gives the reader (SourceOperator#createOutputForSplits,
     * before SourceReader#addSplits); the chunk that ends while read has its output released (its
     * fetch names it finished), the one restored ended never does: its output holds the reader's
     * watermark at Long.MIN_VALUE for ever
     * (HistoryChunksITCase#theWatermarkAdvancesAfterARestartOfAnUnboundedJobWhoseChunksEnded).
     */
    @Test
    void theSplitOutputOfAChunkRestoredEndedIsReleasedAsThatOfAChunkThatEndsWhileRead()
            throws Exception {
        FakeLog log = new FakeLog(true).write("a", 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11);
        BackfillSourceReader<String> reader =
                BackfillSourceReader.create(
                        log,
                        BackfillSourceConfig.<String>defaults()
                                .withPollTimeout(Duration.ofMillis(5)),
                        new TestingReaderContext());
        SplitOutputs output = new SplitOutputs();
        try {
            reader.start();
            List<BackfillSplit> restored =
                    List.of(
                            new BackfillSplit(
                                    "a", HandoverState.FINISHED, 10, 10, OptionalLong.empty()),
                            BackfillSplit.historyChunk("a", 0, 0, 5).asEnded(),
                            BackfillSplit.historyChunk("a", 1, 5, 10));
            // what SourceOperator does with the splits of its state and of an AddSplitEvent
            for (BackfillSplit split : restored) {
                output.createOutputForSplit(split.splitId());
            }
            reader.addSplits(restored);
            for (int i = 0; i < 200 && !output.released.contains("a#chunk-1"); i++) {
                reader.pollNext(output);
                Thread.sleep(2);
            }
            for (int i = 0; i < 50; i++) {
                reader.pollNext(output);
                Thread.sleep(2);
            }
            assertThat(output.released)
                    .as("the chunk that ended while read has its output released")
                    .contains("a#chunk-1");
            assertThat(output.released)
                    .as(
                            "split outputs released (created: %s); a split output not released"
                                    + " holds the reader's watermark back",
                            output.created)
                    .contains("a#chunk-0");
        } finally {
            reader.close();
        }
    }
}
