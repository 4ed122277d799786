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

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.annotation.Nullable;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * The splits of one split reader that watermark alignment holds back, in the fetcher thread. A
 * split is paused in whichever log reader reads it (the backfill reader, the live reader, or both
 * when a non-seekable live reader reads a backfilling split too), and stays paused when it moves
 * from one to the other: a reader is told as the split reaches it ({@link #keepPausedIn}).
 *
 * <p>A log reader that cannot pause splits fails the job unless Flink's {@code
 * pipeline.watermark-alignment.allow-unaligned-source-splits} is set; then, as Flink does with such
 * a reader, the split is read unaligned.
 */
@Internal
final class AlignmentPauses {

    private static final Logger LOG = LoggerFactory.getLogger(AlignmentPauses.class);

    /** What alignment asked for that changes something: splits newly paused and resumed. */
    record Change(List<String> pause, List<String> resume) {
        boolean isEmpty() {
            return pause.isEmpty() && resume.isEmpty();
        }

        /** The splits either paused or resumed. */
        List<String> splits() {
            List<String> splits = new ArrayList<>(pause);
            splits.addAll(resume);
            return splits;
        }
    }

    private final Set<String> paused = new HashSet<>();
    private final boolean allowUnalignedSplits;
    private final int subtask;

    AlignmentPauses(boolean allowUnalignedSplits, int subtask) {
        this.allowUnalignedSplits = allowUnalignedSplits;
        this.subtask = subtask;
    }

    boolean isPaused(String splitId) {
        return paused.contains(splitId);
    }

    /**
     * Notes what alignment asks for. Splits the split reader does not hold are not paused: a pause
     * may cross the split's end or removal.
     *
     * @return the splits whose pause this changes
     */
    Change request(
            Collection<String> toPause, Collection<String> toResume, Predicate<String> holds) {
        List<String> pause = new ArrayList<>(toPause.size());
        for (String splitId : toPause) {
            if (holds.test(splitId) && paused.add(splitId)) {
                pause.add(splitId);
            }
        }
        List<String> resume = new ArrayList<>(toResume.size());
        for (String splitId : toResume) {
            if (paused.remove(splitId)) {
                resume.add(splitId);
            }
        }
        return new Change(pause, resume);
    }

    /** The split is no longer held. */
    void forget(String splitId) {
        paused.remove(splitId);
    }

    /**
     * Pauses and resumes the splits of a change in the log readers that read them: the backfill
     * reader by the ids of the log splits it reads for them, the live reader by split id. Each
     * reader is told on its own, so that one that cannot pause (tolerated with Flink's {@code
     * allow-unaligned-source-splits}) does not keep the other from pausing or resuming; its refusal
     * is thrown after both were told.
     */
    void applyTo(
            @Nullable LogReader<?> backfillReader,
            Set<String> backfillReads,
            Function<String, String> logSplitIdOf,
            @Nullable LogReader<?> liveReader,
            Set<String> liveReads,
            Change change) {
        LOG.debug(
                "Subtask {} pauses {} and resumes {} for watermark alignment",
                subtask,
                change.pause(),
                change.resume());
        UnsupportedOperationException backfillCannot =
                applyTo(backfillReader, backfillReads, logSplitIdOf, change);
        UnsupportedOperationException liveCannot =
                applyTo(liveReader, liveReads, Function.identity(), change);
        if (backfillCannot != null) {
            throw backfillCannot;
        }
        if (liveCannot != null) {
            throw liveCannot;
        }
    }

    /**
     * @return the reader's refusal if it cannot pause splits, else {@code null}
     */
    @Nullable
    private static UnsupportedOperationException applyTo(
            @Nullable LogReader<?> reader,
            Set<String> reads,
            Function<String, String> readerSplitIdOf,
            Change change) {
        if (reader == null) {
            return null;
        }
        List<String> readerPause = readerSplitIds(change.pause(), reads, readerSplitIdOf);
        List<String> readerResume = readerSplitIds(change.resume(), reads, readerSplitIdOf);
        if (!readerPause.isEmpty() || !readerResume.isEmpty()) {
            try {
                reader.pauseOrResumeSplits(readerPause, readerResume);
            } catch (UnsupportedOperationException e) {
                return e;
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return null;
    }

    private static List<String> readerSplitIds(
            List<String> splitIds, Set<String> reads, Function<String, String> readerSplitIdOf) {
        List<String> ids = new ArrayList<>(splitIds.size());
        for (String splitId : splitIds) {
            if (reads.contains(splitId)) {
                ids.add(readerSplitIdOf.apply(splitId));
            }
        }
        return ids;
    }

    /**
     * A split that reaches a log reader (under {@code readerSplitId}) stays paused there if
     * alignment holds it back.
     *
     * @param readerName the reader's role, for the log
     */
    void keepPausedIn(LogReader<?> reader, String splitId, String readerSplitId, String readerName)
            throws IOException {
        if (!paused.contains(splitId)) {
            return;
        }
        try {
            reader.pauseOrResumeSplits(List.of(readerSplitId), List.of());
        } catch (UnsupportedOperationException e) {
            if (!allowUnalignedSplits) {
                throw e;
            }
            // as Flink does with a reader that cannot pause: the split is read unaligned
            paused.remove(splitId);
            LOG.debug(
                    "The {} reader cannot pause split {}; it reads it unaligned",
                    readerName,
                    splitId);
        }
    }
}
