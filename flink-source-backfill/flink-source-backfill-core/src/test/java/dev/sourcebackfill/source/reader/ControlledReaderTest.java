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
import dev.sourcebackfill.source.control.BackfillControl;
import dev.sourcebackfill.source.event.BackfillControlEvent;
import dev.sourcebackfill.source.split.BackfillSplit;
import dev.sourcebackfill.source.testutils.FakeLog;
import dev.sourcebackfill.source.testutils.IdleAwareReaderOutput;

import org.apache.flink.connector.testutils.source.reader.TestingReaderContext;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.OptionalLong;

import static dev.sourcebackfill.source.split.HandoverState.BACKFILLING;
import static org.assertj.core.api.Assertions.assertThat;

/** A reader of a source with a control file, through its public surface. */
class ControlledReaderTest {

    private final TestingReaderContext context = new TestingReaderContext();
    private final IdleAwareReaderOutput<String> output = new IdleAwareReaderOutput<>();
    private BackfillSourceReader<String> reader;

    @AfterEach
    void close() throws Exception {
        if (reader != null) {
            reader.close();
        }
    }

    private void start(FakeLog log) throws Exception {
        reader =
                BackfillSourceReader.create(
                        log,
                        BackfillSourceConfig.<String>defaults()
                                .withControlFile("/nowhere/backfill.control")
                                .withPollTimeout(Duration.ofMillis(5))
                                .withListener(BackfillListener.NO_OP),
                        context);
        reader.start();
    }

    private void pollFor(Duration time) throws Exception {
        long end = System.nanoTime() + time.toNanos();
        while (System.nanoTime() < end) {
            reader.pollNext(output);
            Thread.sleep(1);
        }
    }

    private long history() {
        return output.getEmittedRecords().stream().filter(r -> r.startsWith("a@")).count();
    }

    /**
     * The reader of a controlled source holds its history until the first control, holds it while
     * paused, and reads it once running (from the review: without it, building the reader's limit
     * uncontrolled or an onControl that does nothing passed every core test).
     */
    @Test
    void aControlledReaderHoldsItsHistoryUntilAControlLetsItRun() throws Exception {
        FakeLog log = new FakeLog(true).write("a", 0, 1, 2);
        start(log);
        reader.addSplits(List.of(new BackfillSplit("a", BACKFILLING, 0, 3, OptionalLong.empty())));
        pollFor(Duration.ofMillis(300));
        assertThat(history()).as("history before the first control").isZero();
        reader.handleSourceEvents(
                new BackfillControlEvent(BackfillControl.asBuilt().withPaused(true)));
        pollFor(Duration.ofMillis(300));
        assertThat(history()).as("history while paused").isZero();
        reader.handleSourceEvents(new BackfillControlEvent(BackfillControl.asBuilt()));
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (history() < 3 && System.nanoTime() < deadline) {
            pollFor(Duration.ofMillis(10));
        }
        assertThat(output.getEmittedRecords()).containsExactly("a@0", "a@1", "a@2");
    }
}
