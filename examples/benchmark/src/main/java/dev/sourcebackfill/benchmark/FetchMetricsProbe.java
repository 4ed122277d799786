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

import javax.management.AttributeNotFoundException;
import javax.management.InstanceNotFoundException;
import javax.management.MBeanServer;
import javax.management.ObjectName;

import java.lang.management.ManagementFactory;
import java.util.Map;
import java.util.TreeMap;

/**
 * The Kafka consumers' fetch metrics of one run, for comparing how two sources' consumers fetch
 * ({@code BENCHMARK_FETCH_METRICS=1}): samples every consumer's JMX metrics while the run goes and
 * prints the last sample of each when it ends (a consumer's metrics are gone once it is closed).
 * Off, it starts no thread.
 */
final class FetchMetricsProbe implements AutoCloseable {
    private static final String[] FETCH = {
        "fetch-size-avg",
        "fetch-size-max",
        "fetch-rate",
        "records-per-request-avg",
        "fetch-latency-avg",
        "bytes-consumed-rate",
        "records-consumed-rate",
        "fetch-total"
    };
    private static final String[] CLIENT = {
        "incoming-byte-rate",
        "request-rate",
        "response-rate",
        "select-rate",
        "io-wait-ratio",
        "io-ratio",
        "network-io-rate",
        "poll-idle-ratio-avg",
        "time-between-poll-avg",
        "last-poll-seconds-ago"
    };
    private final String run;
    private final Thread thread;
    private final Map<String, String> last = new TreeMap<>();
    private volatile boolean stop;

    private FetchMetricsProbe(String run) {
        this.run = run;
        thread = new Thread(this::loop, "fetch-metrics-probe");
        thread.setDaemon(true);
        thread.start();
    }

    /**
     * A probe of the run, if {@code BENCHMARK_FETCH_METRICS} is set; else one that does nothing.
     */
    static AutoCloseable open(String run) {
        return System.getenv("BENCHMARK_FETCH_METRICS") == null
                ? () -> {}
                : new FetchMetricsProbe(run);
    }

    private void loop() {
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        while (!stop) {
            try {
                Thread.sleep(700);
                for (ObjectName name :
                        server.queryNames(new ObjectName("kafka.consumer:*"), null)) {
                    String type = name.getKeyProperty("type");
                    String client = name.getKeyProperty("client-id");
                    if (client == null
                            || name.getKeyProperty("topic") != null
                            || name.getKeyProperty("node-id") != null) continue;
                    String[] attrs = null;
                    if ("consumer-fetch-manager-metrics".equals(type)) attrs = FETCH;
                    if ("consumer-metrics".equals(type)) attrs = CLIENT;
                    if (attrs == null) continue;
                    try {
                        String sample = sample(server, name, attrs);
                        synchronized (last) {
                            last.put(client + " " + type, sample);
                        }
                    } catch (InstanceNotFoundException e) {
                        // closed between listing and reading: its last full sample stays
                    }
                }
            } catch (InterruptedException e) {
                return;
            } catch (Exception e) {
                System.err.println("[fetch] " + run + ": sampling failed: " + e);
            }
        }
    }

    /** Every attribute of one consumer's metrics, or none if the consumer is gone. */
    private static String sample(MBeanServer server, ObjectName name, String[] attrs)
            throws Exception {
        StringBuilder sb = new StringBuilder();
        for (String a : attrs) {
            Object v;
            try {
                v = server.getAttribute(name, a);
            } catch (AttributeNotFoundException e) {
                v = "(none)"; // named wrong, or not in this Kafka version: say so
            }
            sb.append(a)
                    .append('=')
                    .append(v instanceof Double ? String.format("%.1f", (Double) v) : v)
                    .append(' ');
        }
        return sb.toString();
    }

    @Override
    public void close() throws Exception {
        stop = true;
        thread.interrupt();
        thread.join();
        synchronized (last) {
            last.forEach((k, v) -> System.out.println("[fetch] " + run + ": " + k + ": " + v));
        }
    }
}
