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

import com.sun.management.OperatingSystemMXBean;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The CPU time the benchmark's jobs cost this JVM: the process's CPU time (every thread, user and
 * system time, the garbage collector's and the JIT compiler's threads included) minus that of the
 * in-process Kafka brokers' threads, which serve the jobs but are no part of them.
 *
 * <p>Why not the sum of the jobs' own threads (the task threads and the {@code Source Data Fetcher
 * for ...} threads): it leaves out the garbage collector, which is where what a source allocates
 * per record is paid (docs/benchmarks.md, the profile), and those threads end with their job while
 * a thread's CPU time can be read only as long as it lives, so they would have to be polled. The
 * brokers' threads live across the runs instead: two readings per run give theirs exactly.
 *
 * <p>Also counted, alike for a contender and its baseline: the MiniCluster's own threads (job
 * submission and deployment, checkpoints, the operator events between readers and enumerator), the
 * benchmark's main thread, and what the JIT compiler still does. The process's CPU time has the
 * resolution of the kernel's clock tick (10 ms on Linux).
 */
final class JobCpu {

    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    /** Threads whose CPU time is not counted: the brokers'. Java never reuses a thread id. */
    private static final Set<Long> UNCOUNTED = ConcurrentHashMap.newKeySet();

    private JobCpu() {}

    /**
     * Runs {@code setUp}, which starts something that serves the jobs with threads of its own (a
     * Kafka broker) and prepares it: the threads it leaves running are not counted from then on.
     */
    static <T> T setUpUncounted(Callable<T> setUp) throws Exception {
        Set<Long> before = new HashSet<>();
        for (long id : THREADS.getAllThreadIds()) {
            before.add(id);
        }
        T result = setUp.call();
        for (long id : THREADS.getAllThreadIds()) {
            if (!before.contains(id)) {
                UNCOUNTED.add(id);
            }
        }
        return result;
    }

    /** The clocks now; {@link Reading#countedNanosSince()} is the CPU time counted since. */
    static Reading now() {
        if (!THREADS.isThreadCpuTimeSupported()) {
            throw new IllegalStateException("This JVM does not measure threads' CPU time");
        }
        if (!THREADS.isThreadCpuTimeEnabled()) {
            THREADS.setThreadCpuTimeEnabled(true);
        }
        Map<Long, Long> uncounted = new HashMap<>();
        for (long id : UNCOUNTED) {
            long nanos = THREADS.getThreadCpuTime(id);
            if (nanos >= 0) {
                uncounted.put(id, nanos);
            }
        }
        return new Reading(processNanos(), uncounted);
    }

    private static long processNanos() {
        long nanos =
                ((OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                        .getProcessCpuTime();
        if (nanos < 0) {
            throw new IllegalStateException("This JVM does not measure its process's CPU time");
        }
        return nanos;
    }

    /** A reading of the process's CPU time and of each uncounted thread's. */
    static final class Reading {

        private final long processNanos;
        private final Map<Long, Long> uncountedNanos;

        private Reading(long processNanos, Map<Long, Long> uncountedNanos) {
            this.processNanos = processNanos;
            this.uncountedNanos = uncountedNanos;
        }

        /**
         * The process's CPU time since this reading minus that of the uncounted threads alive then
         * and now (one that ended in between would be counted from this reading on; a broker keeps
         * its threads until it stops).
         */
        long countedNanosSince() {
            long process = processNanos() - processNanos;
            long uncounted = 0;
            for (Map.Entry<Long, Long> thread : uncountedNanos.entrySet()) {
                long nanos = THREADS.getThreadCpuTime(thread.getKey());
                if (nanos >= 0) {
                    uncounted += nanos - thread.getValue();
                }
            }
            return process - uncounted;
        }
    }
}
