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
package dev.sourcebackfill.source.testframe;

import dev.sourcebackfill.source.spi.BackfillLog;
import dev.sourcebackfill.source.spi.DiscoveredSplit;
import dev.sourcebackfill.source.spi.LogReader;
import dev.sourcebackfill.source.spi.LogReading;
import dev.sourcebackfill.source.spi.LogRecordCollector;
import dev.sourcebackfill.source.spi.LogSplitDiscoverer;

import org.apache.flink.api.common.typeinfo.TypeInformation;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A writable in-memory log shared through a static registry, for Flink's connector test suite on a
 * MiniCluster (one JVM). Offsets of a split are 0, 1, 2, ...; the seekable live reader and the
 * backfill read the same records.
 */
final class SharedMemoryLog implements BackfillLog<String> {

    private static final long serialVersionUID = 1L;
    private static final Map<String, Map<String, Split>> LOGS = new ConcurrentHashMap<>();

    /** One split's records and its planned end (a bounded split stops there). */
    static final class Split {
        final List<String> records = new ArrayList<>();
        long plannedEnd;

        /** How many times a reader took the split: a write's second half waits for it. */
        final AtomicInteger readersAttached = new AtomicInteger();

        synchronized int size() {
            return records.size();
        }

        synchronized void append(List<String> more) {
            records.addAll(more);
        }

        synchronized String get(int offset) {
            return records.get(offset);
        }
    }

    private final String logId;
    private final boolean bounded;

    SharedMemoryLog(String logId, boolean bounded) {
        this.logId = logId;
        this.bounded = bounded;
    }

    static Map<String, Split> splitsOf(String logId) {
        return LOGS.computeIfAbsent(logId, k -> new ConcurrentHashMap<>());
    }

    static void drop(String logId) {
        LOGS.remove(logId);
    }

    @Override
    public LogSplitDiscoverer createSplitDiscoverer() {
        return new LogSplitDiscoverer() {
            @Override
            public List<DiscoveredSplit> discoverSplits(boolean initial) {
                List<DiscoveredSplit> found = new ArrayList<>();
                splitsOf(logId)
                        .forEach(
                                (id, split) -> {
                                    DiscoveredSplit d =
                                            initial
                                                    ? DiscoveredSplit.backfilled(
                                                            id, 0, split.size())
                                                    : DiscoveredSplit.readByLive(id, 0);
                                    found.add(bounded ? d.withStoppingOffset(split.plannedEnd) : d);
                                });
                return found;
            }

            @Override
            public boolean mayDiscoverMoreSplits() {
                // like a bounded Kafka source: the splits of the first discovery are all
                return !bounded;
            }
        };
    }

    @Override
    public LogReading<String, String> backfillReading() {
        return LogReading.ofValues(context -> new Reader());
    }

    @Override
    public LogReading<String, String> liveReading() {
        return LogReading.ofValues(context -> new Reader());
    }

    @Override
    public boolean isLiveSeekable() {
        return true;
    }

    @Override
    public boolean hasStoppingOffsets() {
        return bounded;
    }

    @Override
    public TypeInformation<String> getProducedType() {
        return TypeInformation.of(String.class);
    }

    private final class Reader implements LogReader<String> {
        private final Map<String, ReadPosition> positions = new HashMap<>();
        private volatile boolean wakeUp;

        @Override
        public void addSplit(String splitId, long startOffset) {
            positions.put(splitId, new ReadPosition(startOffset));
            splitsOf(logId).get(splitId).readersAttached.incrementAndGet();
        }

        @Override
        public void removeSplit(String splitId) {
            positions.remove(splitId);
        }

        @Override
        public void poll(Duration maxWait, LogRecordCollector<String> collector)
                throws IOException {
            boolean any = false;
            for (Map.Entry<String, ReadPosition> e : positions.entrySet()) {
                Split split = splitsOf(logId).get(e.getKey());
                ReadPosition position = e.getValue();
                int n = 0;
                while (position.next < split.size() && n < 1000) {
                    collector.collect(
                            e.getKey(), position.next, 0L, split.get((int) position.next));
                    position.next++;
                    n++;
                }
                any |= n > 0;
            }
            if (!any && !maxWait.isZero()) {
                long until = System.nanoTime() + maxWait.toNanos();
                while (!wakeUp && System.nanoTime() < until) {
                    try {
                        Thread.sleep(1);
                    } catch (InterruptedException ex) {
                        Thread.currentThread().interrupt();
                        throw new InterruptedIOException();
                    }
                }
                wakeUp = false;
            }
        }

        @Override
        public long position(String splitId) {
            return positions.get(splitId).next;
        }

        @Override
        public long earliestOffset(String splitId) {
            return 0;
        }

        @Override
        public void wakeUp() {
            wakeUp = true;
        }

        @Override
        public void close() {
            positions.clear();
        }
    }

    /** A split's next read offset. */
    private static final class ReadPosition {
        long next;

        ReadPosition(long next) {
            this.next = next;
        }
    }
}
