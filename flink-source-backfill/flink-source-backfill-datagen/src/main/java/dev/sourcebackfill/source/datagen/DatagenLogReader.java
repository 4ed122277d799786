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
package dev.sourcebackfill.source.datagen;

import dev.sourcebackfill.source.spi.LogReader;
import dev.sourcebackfill.source.spi.LogRecordCollector;

import org.apache.flink.annotation.Internal;

import java.time.Duration;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * Reads a {@link DatagenLog}: delivers the offsets that have records, each with its timestamp and
 * its partition as the raw record (the record itself is made as it is emitted).
 */
@Internal
final class DatagenLogReader implements LogReader<Integer> {

    enum Role {
        BACKFILL,
        LIVE_SEEKABLE,
        LIVE_FEED
    }

    private final DatagenLog log;
    private final Role role;

    /** Split id to next position. */
    private final Map<String, ReadPosition> positions = new LinkedHashMap<>();

    /** Splits paused for watermark alignment; they keep their position. */
    private final Set<String> paused = new HashSet<>();

    private final Object wakeUpLock = new Object();
    private boolean wokenUp;

    DatagenLogReader(DatagenLog log, Role role) {
        this.log = log;
        this.role = role;
    }

    @Override
    public void addSplit(String splitId, long startOffset) {
        int partition = DatagenLog.partitionOf(splitId);
        long start = startOffset;
        if (role == Role.LIVE_FEED) {
            // a feed starts near its head, whatever the caller wants
            long head = log.headAt(partition, System.currentTimeMillis());
            start = Math.max(0, head - log.feedReplay);
        }
        positions.put(splitId, new ReadPosition(start));
    }

    @Override
    public void removeSplit(String splitId) {
        positions.remove(splitId);
        paused.remove(splitId);
    }

    @Override
    public void pauseOrResumeSplits(Collection<String> toPause, Collection<String> toResume) {
        for (String splitId : toPause) {
            if (positions.containsKey(splitId)) {
                paused.add(splitId);
            }
        }
        paused.removeAll(toResume);
    }

    @Override
    public void poll(Duration maxWait, LogRecordCollector<Integer> collector) {
        long now = System.currentTimeMillis();
        int budget = log.maxRecordsPerPoll;
        int perSplit = Math.max(1, budget / Math.max(1, positions.size() - paused.size()));
        boolean delivered = false;
        for (Map.Entry<String, ReadPosition> entry : positions.entrySet()) {
            if (!paused.isEmpty() && paused.contains(entry.getKey())) {
                continue;
            }
            int partition = DatagenLog.partitionOf(entry.getKey());
            Integer raw = partition;
            ReadPosition position = entry.getValue();
            long limit = limit(partition, now);
            int n = 0;
            while (position.next < limit && n < perSplit) {
                long offset = position.next++;
                if (log.exists(partition, offset)) {
                    collector.collect(
                            entry.getKey(), offset, log.timestampOf(partition, offset), raw);
                    n++;
                }
            }
            delivered |= n > 0;
        }
        if (!delivered && !maxWait.isZero()) {
            waitForData(maxWait, now);
        }
    }

    private long limit(int partition, long now) {
        long head = log.headAt(partition, now);
        return role == Role.BACKFILL && log.archiveBackfill
                ? Math.min(head, log.historyOf(partition))
                : head;
    }

    private void waitForData(Duration maxWait, long now) {
        // the next live offset arrives within 1 / rate seconds
        long untilNext = (long) Math.ceil(1000.0 / log.liveRatePerSecond);
        long waitMs = Math.max(1, Math.min(maxWait.toMillis(), untilNext));
        synchronized (wakeUpLock) {
            if (!wokenUp) {
                try {
                    wakeUpLock.wait(waitMs);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            wokenUp = false;
        }
    }

    @Override
    public long position(String splitId) {
        return positions.get(splitId).next;
    }

    /**
     * Nothing is ever deleted from the datagen log, so the backfill and a seekable live reader have
     * every offset. A feed delivers a split only from where it stands: the start of its replay
     * window when it was given the split, and then its read position.
     */
    @Override
    public long earliestOffset(String splitId) {
        if (role != Role.LIVE_FEED) {
            return 0;
        }
        ReadPosition position = positions.get(splitId);
        if (position != null) {
            return position.next;
        }
        long head = log.headAt(DatagenLog.partitionOf(splitId), System.currentTimeMillis());
        return Math.max(0, head - log.feedReplay);
    }

    @Override
    public boolean isEndOfSplit(String splitId) {
        return role == Role.BACKFILL
                && log.archiveBackfill
                && positions.get(splitId).next >= log.historyOf(DatagenLog.partitionOf(splitId));
    }

    @Override
    public void wakeUp() {
        synchronized (wakeUpLock) {
            wokenUp = true;
            wakeUpLock.notifyAll();
        }
    }

    @Override
    public void close() {
        positions.clear();
    }

    /** A split's next read offset. */
    private static final class ReadPosition {
        long next;

        ReadPosition(long next) {
            this.next = next;
        }
    }
}
