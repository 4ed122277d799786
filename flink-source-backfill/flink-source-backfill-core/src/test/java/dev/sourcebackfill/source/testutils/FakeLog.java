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
package dev.sourcebackfill.source.testutils;

import dev.sourcebackfill.source.spi.BackfillLog;
import dev.sourcebackfill.source.spi.LogReader;
import dev.sourcebackfill.source.spi.LogReading;
import dev.sourcebackfill.source.spi.LogRecordCollector;
import dev.sourcebackfill.source.spi.LogSplitDiscoverer;

import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.source.SourceReaderContext;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * An in-memory log for unit tests, in one JVM: the test writes records per split and reads back
 * what the readers were asked to do ({@link #calls}). Both readers see the same records.
 */
public final class FakeLog implements BackfillLog<String> {

    private static final long serialVersionUID = 1L;

    /** split -> offset -> value. */
    public final transient Map<String, NavigableMap<Long, String>> records =
            new ConcurrentHashMap<>();

    /** split -> end (exclusive) of what exists; positions stop there. */
    public final transient Map<String, Long> ends = new ConcurrentHashMap<>();

    public final transient Map<String, Long> earliest = new ConcurrentHashMap<>();

    /** split -> where an archive-like backfill ends. */
    public final transient Map<String, Long> backfillEnds = new ConcurrentHashMap<>();

    public final transient List<String> calls = new CopyOnWriteArrayList<>();

    /** Whether the live reader can pause splits; the backfill reader always can. */
    public volatile boolean livePausable = true;

    /** Whether the backfill reader can pause splits. */
    public volatile boolean backfillPausable = true;

    /**
     * Whether the readers find offsets below {@link #earliest} deleted where they read (as a Kafka
     * consumer whose position retention passed) and report them to the collector.
     */
    public volatile boolean reportsDeletedOffsets;

    /** Whether the backfill reader delivers records without a timestamp, as an archive may. */
    public volatile boolean backfillWithoutTimestamps;

    /** What closing the backfill reader throws (after it noted the call); {@code null}: nothing. */
    public volatile Throwable backfillCloseFailure;

    private final boolean seekable;

    public FakeLog(boolean seekable) {
        this.seekable = seekable;
    }

    /** Writes {@code value@offset} records at the given offsets and moves the split's end. */
    public FakeLog write(String split, long... offsets) {
        // written by a test while the fetcher thread polls: a concurrent map
        NavigableMap<Long, String> r =
                records.computeIfAbsent(split, k -> new ConcurrentSkipListMap<>());
        for (long o : offsets) {
            r.put(o, split + "@" + o);
            ends.merge(split, o + 1, Math::max);
        }
        return this;
    }

    /** Moves the split's end without a record (transaction markers). */
    public FakeLog endAt(String split, long end) {
        ends.put(split, end);
        return this;
    }

    @Override
    public LogSplitDiscoverer createSplitDiscoverer() {
        return initial -> List.of();
    }

    @Override
    public LogReading<String, String> backfillReading() {
        return LogReading.ofValues(this::createBackfillReader);
    }

    @Override
    public LogReading<String, String> liveReading() {
        return LogReading.ofValues(this::createLiveReader);
    }

    /** The backfill reader; its records are their own values. */
    public LogReader<String> createBackfillReader(SourceReaderContext context) {
        calls.add("backfill.create");
        return new Reader("backfill");
    }

    /** The live reader; its records are their own values. */
    public LogReader<String> createLiveReader(SourceReaderContext context) {
        calls.add("live.create");
        return new Reader("live");
    }

    @Override
    public boolean isLiveSeekable() {
        return seekable;
    }

    @Override
    public TypeInformation<String> getProducedType() {
        return TypeInformation.of(String.class);
    }

    private final class Reader implements LogReader<String> {
        private final String role;

        /** In the order the splits were added: a poll delivers them in that order. */
        private final Map<String, Long> positions = new LinkedHashMap<>();

        private final Set<String> paused = new HashSet<>();

        Reader(String role) {
            this.role = role;
        }

        @Override
        public void addSplit(String splitId, long startOffset) {
            calls.add(role + ".add " + splitId + "@" + startOffset);
            positions.put(splitId, startOffset);
        }

        @Override
        public void addSplit(String splitId, long startOffset, String historyVersion) {
            calls.add(role + ".add " + splitId + "@" + startOffset + " version " + historyVersion);
            positions.put(splitId, startOffset);
        }

        @Override
        public void removeSplit(String splitId) {
            calls.add(role + ".remove " + splitId);
            positions.remove(splitId);
            paused.remove(splitId);
        }

        @Override
        public void pauseOrResumeSplits(Collection<String> toPause, Collection<String> toResume)
                throws IOException {
            if (role.equals("live") ? !livePausable : !backfillPausable) {
                LogReader.super.pauseOrResumeSplits(toPause, toResume);
            }
            if (!toPause.isEmpty()) {
                calls.add(role + ".pause " + toPause);
            }
            if (!toResume.isEmpty()) {
                calls.add(role + ".resume " + toResume);
            }
            paused.addAll(toPause);
            paused.removeAll(toResume);
        }

        @Override
        public void poll(Duration maxWait, LogRecordCollector<String> collector) {
            for (Map.Entry<String, Long> e : new ArrayList<>(positions.entrySet())) {
                String split = e.getKey();
                if (paused.contains(split)) {
                    continue;
                }
                long first = earliest.getOrDefault(split, 0L);
                if (reportsDeletedOffsets && e.getValue() < first) {
                    collector.offsetsDeleted(split, e.getValue(), first);
                    positions.put(split, first);
                    e.setValue(first);
                }
                long end = end(split);
                if (end <= e.getValue()) {
                    continue;
                }
                NavigableMap<Long, String> r = records.getOrDefault(split, new TreeMap<>());
                for (Map.Entry<Long, String> rec :
                        r.subMap(e.getValue(), true, end, false).entrySet()) {
                    long timestamp =
                            role.equals("backfill") && backfillWithoutTimestamps
                                    ? Long.MIN_VALUE
                                    : rec.getKey();
                    collector.collect(split, rec.getKey(), timestamp, rec.getValue());
                }
                positions.put(split, Math.max(e.getValue(), end));
            }
        }

        private long end(String split) {
            long end = ends.getOrDefault(split, 0L);
            if (role.equals("backfill") && backfillEnds.containsKey(split)) {
                end = Math.min(end, backfillEnds.get(split));
            }
            return end;
        }

        @Override
        public long position(String splitId) {
            return positions.get(splitId);
        }

        @Override
        public long earliestOffset(String splitId) {
            return earliest.getOrDefault(splitId, 0L);
        }

        @Override
        public boolean isEndOfSplit(String splitId) {
            return role.equals("backfill")
                    && backfillEnds.containsKey(splitId)
                    && positions.get(splitId) >= backfillEnds.get(splitId);
        }

        @Override
        public void wakeUp() {}

        @Override
        public void close() throws Exception {
            calls.add(role + ".close");
            Throwable failure = backfillCloseFailure;
            if (role.equals("backfill") && failure != null) {
                if (failure instanceof Error) {
                    throw (Error) failure;
                }
                throw (Exception) failure;
            }
        }
    }
}
