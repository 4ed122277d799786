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

import dev.sourcebackfill.source.spi.LogReader;

import org.apache.flink.annotation.Internal;

import java.io.IOException;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;

/**
 * The live reader's side of a split reader, in the fetcher thread: which splits it reads, giving it
 * the splits their handovers ask for (queued in the {@link FetchAssembly}, carried out once the
 * handover's call returned), and what the handovers ask of it ({@link
 * SplitHandover.LivePositions}).
 */
@Internal
final class LiveSide implements SplitHandover.LivePositions {

    private final LogReaders readers;
    private final AlignmentPauses pauses;
    private final FetchAssembly assembly;
    private final Map<String, SplitHandover<Object>> handovers;

    /** Splits given to the live reader. */
    private final Set<String> reading = new LinkedHashSet<>();

    private final Set<String> readingView = Collections.unmodifiableSet(reading);

    LiveSide(
            LogReaders readers,
            AlignmentPauses pauses,
            FetchAssembly assembly,
            Map<String, SplitHandover<Object>> handovers) {
        this.readers = readers;
        this.pauses = pauses;
        this.assembly = assembly;
        this.handovers = handovers;
    }

    /** The splits the live reader reads. */
    Set<String> reading() {
        return readingView;
    }

    /**
     * Polls the live reader; splits its records brought to their handover go live at once.
     *
     * @return whether it delivered a record
     */
    boolean poll(Duration wait, PolledRecordRouter router) throws IOException {
        readers.live().poll(wait, router.forLivePoll());
        startRequested();
        return router.liveDelivered();
    }

    /** Gives the live reader the splits their handovers asked it to read, in the order asked. */
    void startRequested() throws IOException {
        FetchAssembly.LiveStart start;
        while ((start = assembly.nextLiveStart()) != null) {
            start(handovers.get(start.splitId()), start.offset());
        }
    }

    /**
     * Gives the live reader the split at {@code offset} and then tells its handover, in a call of
     * its own; a seekable live reader given the split at offsets the log no longer has is moved to
     * where the handover goes on.
     */
    void start(SplitHandover<Object> handover, long offset) throws IOException {
        String splitId = handover.splitId();
        if (!handover.readsLive()) {
            throw new IllegalStateException(
                    "History split "
                            + splitId
                            + " cannot be read live: it is read by the backfill alone");
        }
        if (reading.add(splitId)) {
            LogReader<Object> live = readers.live();
            live.addSplit(splitId, offset);
            pauses.keepPausedIn(live, splitId, splitId, "live");
        }
        OptionalLong goOnAt = handover.onLiveStarted();
        if (goOnAt.isPresent()) {
            // given at offsets the log no longer has, and the handover skipped them
            LogReader<Object> live = readers.live();
            live.removeSplit(splitId);
            live.addSplit(splitId, goOnAt.getAsLong());
            // removing the split dropped its pause in the reader
            pauses.keepPausedIn(live, splitId, splitId, "live");
        }
    }

    void remove(String splitId) throws IOException {
        if (reading.remove(splitId)) {
            readers.live().removeSplit(splitId);
        }
    }

    /** Tells the handovers that follow the live reader's position where it stands. */
    void observePositions() throws IOException {
        for (String splitId : reading) {
            SplitHandover<Object> handover = handovers.get(splitId);
            if (handover.followsLivePosition()) {
                handover.onLiveProgress(readers.live().position(splitId));
            }
        }
    }

    /** The live reader's lag, or none while it is not open. */
    OptionalLong pendingRecords() throws IOException {
        LogReader<Object> live = readers.openLive();
        return live != null ? live.pendingRecords() : OptionalLong.of(0);
    }

    @Override
    public long earliestOffset(String splitId) throws IOException {
        return readers.live().earliestOffset(splitId);
    }

    @Override
    public long position(String splitId) throws IOException {
        return readers.live().position(splitId);
    }
}
