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
package dev.sourcebackfill.source.enumerator;

import dev.sourcebackfill.source.control.BackfillControl;
import dev.sourcebackfill.source.control.ControlFile;
import dev.sourcebackfill.source.event.BackfillControlEvent;
import dev.sourcebackfill.source.spi.DiscoveredSplit;

import org.apache.flink.api.connector.source.ReaderInfo;
import org.apache.flink.api.connector.source.SourceEvent;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.annotation.Nullable;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;

import static org.assertj.core.api.Assertions.assertThat;

/** The enumerator's control channel: the control file read, applied, sent and checkpointed. */
class ControlChannelTest {

    private static final int PARALLELISM = 2;

    private final BackfillSplitEnumeratorTest.RecordingContext context =
            new BackfillSplitEnumeratorTest.RecordingContext(PARALLELISM);
    private final BackfillSplitEnumeratorTest.FakeDiscoverer discoverer =
            new BackfillSplitEnumeratorTest.FakeDiscoverer();
    private BackfillSplitEnumerator enumerator;

    @TempDir Path dir;

    @AfterEach
    void tearDown() throws Throwable {
        context.close();
    }

    private Path file() {
        return dir.resolve("backfill.control");
    }

    private void start(@Nullable BackfillEnumeratorState restored) throws Throwable {
        discoverer.splits.add(DiscoveredSplit.backfilled("s-0", 0, 100));
        enumerator =
                new BackfillSplitEnumerator(
                        context,
                        discoverer,
                        false,
                        Duration.ZERO,
                        OptionalLong.empty(),
                        new BackfillSplitEnumerator.ControlSettings(
                                file().toString(), Duration.ofMillis(100)),
                        restored);
        enumerator.start();
        context.runNextOneTimeCallable();
        for (int subtask = 0; subtask < PARALLELISM; subtask++) {
            context.registerReader(new ReaderInfo(subtask, "localhost"));
            enumerator.addReader(subtask);
        }
    }

    /** The controls each reader was sent, in order. */
    private List<BackfillControl> controlsSentTo(int subtask) throws Exception {
        List<BackfillControl> controls = new ArrayList<>();
        for (SourceEvent event : context.getSentSourceEvent().getOrDefault(subtask, List.of())) {
            if (event instanceof BackfillControlEvent) {
                controls.add(((BackfillControlEvent) event).control());
            }
        }
        return controls;
    }

    private void readTheFile() throws Throwable {
        context.runPeriodicCallable(0);
    }

    @Test
    void aRegisteringReaderGetsTheControlAndEveryReaderGetsAChangeOnce() throws Throwable {
        start(null);
        assertThat(context.getPeriodicCallables()).hasSize(1);
        readTheFile(); // no file: nothing changes
        for (int subtask = 0; subtask < PARALLELISM; subtask++) {
            assertThat(controlsSentTo(subtask)).containsExactly(BackfillControl.asBuilt());
        }

        BackfillControl paused = BackfillControl.asBuilt().withPaused(true);
        new ControlFile(file().toString()).write(paused);
        readTheFile();
        readTheFile(); // the same file again: no second event
        for (int subtask = 0; subtask < PARALLELISM; subtask++) {
            assertThat(controlsSentTo(subtask)).containsExactly(BackfillControl.asBuilt(), paused);
        }
        assertThat(enumerator.snapshotState(1).control()).isEqualTo(paused);

        // a reader that registers again (a regional failover) is told at once
        enumerator.addReader(1);
        assertThat(controlsSentTo(1)).containsExactly(BackfillControl.asBuilt(), paused, paused);
    }

    @Test
    void aFileWithoutAControlIsCountedAndIgnoredAndTheControlStays() throws Throwable {
        start(null);
        new ControlFile(file().toString()).write(BackfillControl.asBuilt().withRate(300));
        readTheFile();
        Files.write(file(), "rate=lots\n".getBytes(StandardCharsets.UTF_8));
        readTheFile();
        assertThat(enumerator.controlErrors()).isOne();
        // the first read found the rate: the readers never heard of the control as built
        assertThat(controlsSentTo(0)).containsExactly(BackfillControl.asBuilt().withRate(300));
        assertThat(enumerator.snapshotState(1).control())
                .isEqualTo(BackfillControl.asBuilt().withRate(300));
    }

    /**
     * A restored enumerator keeps the control its checkpoint had, also without a file (deleted),
     * and sends it to each reader that registers: a restore and a rescale keep a pause.
     */
    @Test
    void aRestoredControlIsKeptWithoutAFileAndSentToTheRegisteringReaders() throws Throwable {
        BackfillControl paused = BackfillControl.asBuilt().withRate(10).withPaused(true);
        start(new BackfillEnumeratorState(List.of(), true, paused));
        readTheFile();
        assertThat(controlsSentTo(0)).containsExactly(paused);
        assertThat(controlsSentTo(1)).containsExactly(paused);
        assertThat(enumerator.snapshotState(3).control()).isEqualTo(paused);
    }

    /** Without a control file, readers get no control event, and the state says "as built". */
    @Test
    void withoutAControlFileNothingIsSent() throws Throwable {
        discoverer.splits.add(DiscoveredSplit.backfilled("s-0", 0, 100));
        enumerator =
                new BackfillSplitEnumerator(
                        context,
                        discoverer,
                        false,
                        Duration.ZERO,
                        OptionalLong.empty(),
                        null,
                        new BackfillEnumeratorState(
                                List.of(), true, BackfillControl.asBuilt().withPaused(true)));
        enumerator.start();
        context.registerReader(new ReaderInfo(0, "localhost"));
        enumerator.addReader(0);
        assertThat(context.getPeriodicCallables()).isEmpty();
        assertThat(controlsSentTo(0)).isEmpty();
        assertThat(enumerator.snapshotState(1).control()).isEqualTo(BackfillControl.asBuilt());
    }

    /**
     * Readers that register before the file was read first get no control until it was: a job
     * started, or restored from a checkpoint taken while running, with a file that says "paused"
     * never tells a reader to run (from the review of the control channel).
     */
    @Test
    void noReaderIsToldToRunBeforeTheFileWasReadOnce() throws Throwable {
        BackfillControl paused = BackfillControl.asBuilt().withRate(50).withPaused(true);
        new ControlFile(file().toString()).write(paused);
        start(new BackfillEnumeratorState(List.of(), true, BackfillControl.asBuilt().withRate(50)));
        for (int subtask = 0; subtask < PARALLELISM; subtask++) {
            assertThat(controlsSentTo(subtask)).as("before the first read").isEmpty();
        }
        readTheFile();
        for (int subtask = 0; subtask < PARALLELISM; subtask++) {
            assertThat(controlsSentTo(subtask)).containsExactly(paused);
        }
    }

    /** A file that cannot be read at the first read still lets the readers go as the state says. */
    @Test
    void aFirstReadThatFailsSendsTheControlTheEnumeratorHas() throws Throwable {
        Files.write(file(), "paused=perhaps\n".getBytes(StandardCharsets.UTF_8));
        start(null);
        readTheFile();
        assertThat(enumerator.controlErrors()).isOne();
        assertThat(controlsSentTo(0)).containsExactly(BackfillControl.asBuilt());
    }
}
