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

import dev.sourcebackfill.source.split.HandoverState;

import org.apache.flink.annotation.Internal;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.annotation.Nullable;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.OptionalInt;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Predicate;

/**
 * Which split reads each log split on the backfill reader, and which wait for their turn, in the
 * fetcher thread. A log reader reads a log split once at a time, and a log split's chunks of
 * history (and the log split itself) share it: one holds it, the others wait in turn order. This
 * class decides and keeps the books; the split reader gives and takes the log splits on the
 * backfill reader as the decisions say.
 *
 * <pre>
 *   admit ──▶ READS / DISPLACES ──▶ reading ──stopReading──▶ stopped ──takeStopped/release──▶ next
 *     └────▶ WAITS ──▶ waiting ──release / giveWay──▶ reading
 * </pre>
 *
 * <p>Turn order: with a seekable live reader the chunks go first, oldest first ({@link
 * SplitHandover#chunkIndex}), then the log split's own part; with a feed (a live reader given every
 * split at once that cannot seek) the own part goes first, so that it reaches its handover before
 * the feed runs past what its backfill can cover.
 */
@Internal
final class BackfillTurns {

    private static final Logger LOG = LoggerFactory.getLogger(BackfillTurns.class);

    /** What becomes of a split that asks for its log split on the backfill reader. */
    enum Admission {
        /** The log split was free: the split reads it. */
        READS,
        /**
         * The split is older than the one that reads the log split: it reads first, the other
         * waits; the split reader takes the log split off the backfill reader and gives it again.
         */
        DISPLACES,
        /** Another split reads the log split: this one waits for its turn. */
        WAITS
    }

    private final boolean ownPartFirst;
    private final AlignmentPauses pauses;

    /** Whether a waiting split is still held by the split reader (not removed and added again). */
    private final Predicate<SplitHandover<Object>> held;

    private final int subtask;

    /** The split each log split is read for; records of the log split go to its handover. */
    private final Map<String, SplitHandover<Object>> holders = new HashMap<>();

    /** Splits waiting for their log split, by log split, in turn order. */
    private final Map<String, NavigableMap<Integer, SplitHandover<Object>>> waiting =
            new HashMap<>();

    /** Splits the backfill reader reads, by split id. */
    private final Map<String, SplitHandover<Object>> reading = new LinkedHashMap<>();

    private final Set<String> readingView = Collections.unmodifiableSet(reading.keySet());

    /**
     * Holders that stopped backfilling during a poll: their log splits are taken off the backfill
     * reader once the poll returned.
     */
    private final List<SplitHandover<Object>> stopped = new ArrayList<>();

    BackfillTurns(
            boolean ownPartFirst,
            AlignmentPauses pauses,
            Predicate<SplitHandover<Object>> held,
            int subtask) {
        this.ownPartFirst = ownPartFirst;
        this.pauses = pauses;
        this.held = held;
        this.subtask = subtask;
    }

    /** The splits the backfill reader reads. */
    Set<String> reading() {
        return readingView;
    }

    boolean isReading(String splitId) {
        return reading.containsKey(splitId);
    }

    /** The split the log split is read for on the backfill reader, if any. */
    @Nullable
    SplitHandover<Object> holder(String logSplitId) {
        return holders.get(logSplitId);
    }

    /** A split asks to read its log split on the backfill reader. */
    Admission admit(SplitHandover<Object> handover) {
        String logSplitId = handover.logSplitId();
        SplitHandover<Object> holder = holders.get(logSplitId);
        if (holder == null) {
            take(handover);
            return Admission.READS;
        }
        if (turnOf(handover) < turnOf(holder)
                && reading.containsKey(holder.splitId())
                && !pauses.isPaused(handover.splitId())) {
            // an older split of the log split came (a chunk after the log split's own, or after a
            // restore): it reads first (one that stopped backfilling in this fetch is let go of
            // after it; the older one then comes next)
            LOG.debug(
                    "Split {} reads {} before {} on subtask {}: it is older",
                    handover.splitId(),
                    logSplitId,
                    holder.splitId(),
                    subtask);
            reading.remove(holder.splitId());
            waitFor(holder);
            take(handover);
            return Admission.DISPLACES;
        }
        waitFor(handover);
        LOG.debug(
                "Split {} waits on subtask {} while {} is read for {}",
                handover.splitId(),
                subtask,
                logSplitId,
                holder.splitId());
        return Admission.WAITS;
    }

    /**
     * A split alignment paused gives its log split to one of the same log split that waits and is
     * not paused: the waiting one holds the reader's watermark back (it has emitted nothing), so it
     * must read for alignment to let the paused one go on. The one that gave way waits for its turn
     * and goes on at its next offset.
     *
     * @return the split that reads the log split now (the split reader takes the log split off the
     *     backfill reader and gives it again for it), or {@code null} if nothing changed
     */
    @Nullable
    SplitHandover<Object> giveWayIfPaused(String logSplitId) {
        SplitHandover<Object> holder = holders.get(logSplitId);
        if (holder == null || !pauses.isPaused(holder.splitId())) {
            return null;
        }
        SplitHandover<Object> next = nextWaiting(logSplitId, true);
        if (next == null) {
            return null;
        }
        LOG.debug(
                "Split {} is paused for watermark alignment on subtask {}: it lets {} read {}",
                holder.splitId(),
                subtask,
                next.splitId(),
                logSplitId);
        reading.remove(holder.splitId());
        waiting.get(logSplitId).remove(turnOf(next));
        waitFor(holder);
        take(next);
        return next;
    }

    /** The split stopped backfilling during a poll; its log split is let go of after the poll. */
    void stopReading(String splitId) {
        SplitHandover<Object> handover = reading.remove(splitId);
        if (handover != null) {
            stopped.add(handover);
        }
    }

    /** The log splits of the splits that stopped backfilling since the last call. */
    List<String> takeStopped() {
        List<String> logSplitIds = new ArrayList<>(stopped.size());
        for (SplitHandover<Object> handover : stopped) {
            logSplitIds.add(handover.logSplitId());
        }
        stopped.clear();
        return logSplitIds;
    }

    /**
     * The backfill reader let go of the log split: the next split waiting for it that still
     * backfills reads it.
     *
     * @return that split (the split reader gives it the log split), or {@code null} if none waits
     */
    @Nullable
    SplitHandover<Object> release(String logSplitId) {
        holders.remove(logSplitId);
        SplitHandover<Object> next = nextWaiting(logSplitId, false);
        if (next == null) {
            return null;
        }
        NavigableMap<Integer, SplitHandover<Object>> queue = waiting.get(logSplitId);
        queue.remove(turnOf(next));
        if (queue.isEmpty()) {
            waiting.remove(logSplitId);
        }
        take(next);
        return next;
    }

    /**
     * The split is no longer held.
     *
     * @return whether it held its log split (reading, or stopped and not yet let go of): the split
     *     reader takes the log split off the backfill reader and {@link #release}s it
     */
    boolean remove(SplitHandover<Object> handover) {
        NavigableMap<Integer, SplitHandover<Object>> queue = waiting.get(handover.logSplitId());
        if (queue != null) {
            queue.values().remove(handover);
        }
        if (reading.remove(handover.splitId()) != null) {
            return true;
        }
        if (holders.get(handover.logSplitId()) == handover) {
            stopped.remove(handover);
            return true;
        }
        return false;
    }

    private void take(SplitHandover<Object> handover) {
        holders.put(handover.logSplitId(), handover);
        reading.put(handover.splitId(), handover);
    }

    private void waitFor(SplitHandover<Object> handover) {
        waiting.computeIfAbsent(handover.logSplitId(), k -> new TreeMap<>())
                .put(turnOf(handover), handover);
    }

    /**
     * The split waiting for the log split that reads next: the first in turn that still backfills,
     * one not paused first; {@code null} if none (or, with {@code unpausedOnly}, none not paused).
     * Waiting splits that no longer backfill are dropped.
     */
    @Nullable
    private SplitHandover<Object> nextWaiting(String logSplitId, boolean unpausedOnly) {
        NavigableMap<Integer, SplitHandover<Object>> queue = waiting.get(logSplitId);
        if (queue == null) {
            return null;
        }
        queue.values()
                .removeIf(
                        handover ->
                                !held.test(handover)
                                        || handover.state() != HandoverState.BACKFILLING
                                        || handover.isComplete());
        SplitHandover<Object> first = null;
        for (SplitHandover<Object> handover : queue.values()) {
            if (!pauses.isPaused(handover.splitId())) {
                return handover;
            }
            if (first == null) {
                first = handover;
            }
        }
        if (queue.isEmpty()) {
            waiting.remove(logSplitId);
        }
        return unpausedOnly ? null : first;
    }

    /**
     * The split's turn on the backfill reader among the splits of its log split this reader holds,
     * lowest first: its chunks in offset order, then the log split's own part (it goes live after
     * its last part), or with a feed that part first if it goes live (a history split has no
     * handover to reach before the feed passes it: its own part comes last). Oldest first: the
     * split that reads is older than every split waiting for it, so the reader's watermark, which a
     * waiting split marked idle no longer holds back, never passes the waiting splits' records
     * (their event time follows their offsets, as Kafka's partitions' does).
     */
    private int turnOf(SplitHandover<Object> handover) {
        OptionalInt chunk = handover.chunkIndex();
        if (chunk.isPresent()) {
            return chunk.getAsInt();
        }
        return ownPartFirst && handover.readsLive() ? -1 : Integer.MAX_VALUE;
    }
}
