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
import dev.sourcebackfill.source.split.BackfillSplit;
import dev.sourcebackfill.source.split.HandoverState;
import dev.sourcebackfill.source.testutils.FakeLog;
import dev.sourcebackfill.source.testutils.IdleAwareReaderOutput;

import org.apache.flink.connector.testutils.source.reader.TestingReaderContext;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A freshly discovered split that is empty (start == stop, e.g. an empty bounded Kafka partition)
 * needs no fetcher: the reader reports it ended at once and tells the listener so.
 */
class EmptyBoundedSplitTest {

    @Test
    void anEmptyBoundedSplitIsReportedEndedToTheListener() throws Exception {
        List<String> ended = new CopyOnWriteArrayList<>();
        BackfillListener listener =
                new BackfillListener() {
                    @Override
                    public void onSplitEnded(int subtask, String splitId, long nextOffset) {
                        ended.add(splitId);
                    }
                };
        TestingReaderContext context = new TestingReaderContext();
        BackfillSourceReader<String> reader =
                BackfillSourceReader.create(
                        new FakeLog(true),
                        BackfillSourceConfig.<String>defaults()
                                .withPollTimeout(Duration.ofMillis(5))
                                .withListener(listener),
                        context);
        try {
            reader.start();
            reader.addSplits(
                    List.of(
                            new BackfillSplit(
                                    "e", HandoverState.BACKFILLING, 7, 7, OptionalLong.of(7))));
            IdleAwareReaderOutput<String> output = new IdleAwareReaderOutput<>();
            for (int i = 0; i < 50 && ended.isEmpty(); i++) {
                reader.pollNext(output);
                Thread.sleep(2);
            }
            assertThat(ended).containsExactly("e");
        } finally {
            reader.close();
        }
    }
}
