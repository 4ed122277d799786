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
package dev.sourcebackfill.benchmark;

import com.sun.management.GarbageCollectionNotificationInfo;

import javax.management.NotificationEmitter;
import javax.management.NotificationListener;
import javax.management.openmbean.CompositeData;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The heap a job holds, in this JVM: the live heap after full collections the benchmark asks for at
 * chosen moments, and the most heap any collection left behind while the probe was open. Both above
 * the heap of the idle cluster, which the caller measures before its first job: measured right
 * after a job was cancelled, it would still hold some of that job's objects (the task manager
 * releases them after the job's result is out), and a larger job before a small one would make the
 * small one's heap look smaller than it is.
 */
final class HeapProbe implements AutoCloseable {

    private final long idleBytes;
    private final AtomicLong peakAfterGc = new AtomicLong();
    private long peakLive;
    private final List<Runnable> unsubscribe = new ArrayList<>();

    /**
     * @param idleBytes the idle cluster's live heap ({@link #liveHeapBytes()})
     */
    HeapProbe(long idleBytes) {
        this.idleBytes = idleBytes;
        Set<String> heapPools = new HashSet<>();
        for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
            if (pool.getType() == MemoryType.HEAP) {
                heapPools.add(pool.getName());
            }
        }
        NotificationListener listener =
                (notification, handback) -> {
                    if (!GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(
                            notification.getType())) {
                        return;
                    }
                    GarbageCollectionNotificationInfo info =
                            GarbageCollectionNotificationInfo.from(
                                    (CompositeData) notification.getUserData());
                    long used = 0;
                    for (Map.Entry<String, MemoryUsage> pool :
                            info.getGcInfo().getMemoryUsageAfterGc().entrySet()) {
                        // the map has the non-heap pools (metaspace, code cache) too
                        if (heapPools.contains(pool.getKey())) {
                            used += pool.getValue().getUsed();
                        }
                    }
                    peakAfterGc.accumulateAndGet(used, Math::max);
                };
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            NotificationEmitter emitter = (NotificationEmitter) gc;
            emitter.addNotificationListener(listener, null, null);
            unsubscribe.add(
                    () -> {
                        try {
                            emitter.removeNotificationListener(listener);
                        } catch (Exception ignored) {
                            // already gone
                        }
                    });
        }
    }

    /** Takes a live-heap sample now (a full collection). */
    void sampleLive() {
        peakLive = Math.max(peakLive, liveHeapBytes());
    }

    double peakLiveMegabytes() {
        return Math.max(0, peakLive - idleBytes) / 1e6;
    }

    double peakAfterAnyGcMegabytes() {
        return Math.max(0, Math.max(peakAfterGc.get(), peakLive) - idleBytes) / 1e6;
    }

    static long liveHeapBytes() {
        for (int i = 0; i < 2; i++) {
            System.gc();
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    @Override
    public void close() {
        unsubscribe.forEach(Runnable::run);
    }
}
