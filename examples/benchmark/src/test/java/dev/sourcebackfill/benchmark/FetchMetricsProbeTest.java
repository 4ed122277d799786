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

import org.junit.jupiter.api.Test;

import javax.management.Attribute;
import javax.management.AttributeList;
import javax.management.DynamicMBean;
import javax.management.MBeanInfo;
import javax.management.MBeanServer;
import javax.management.ObjectName;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.lang.reflect.Constructor;
import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Review of issue 24: a consumer whose metrics disappear while the probe reads them (it closed
 * between the listing and the reading, as every consumer does at a run's end) must not replace the
 * last full sample with a partial or empty one.
 */
class FetchMetricsProbeTest {

    /** A consumer's metrics that unregister themselves on their first read of the second sample. */
    static final class ClosingConsumerMetrics implements DynamicMBean {
        final MBeanServer server;
        final ObjectName name;
        volatile int reads;

        ClosingConsumerMetrics(MBeanServer server, ObjectName name) {
            this.server = server;
            this.name = name;
        }

        @Override
        public Object getAttribute(String attribute) {
            if (++reads == 11) { // the consumer closes right after the probe listed it again
                try {
                    server.unregisterMBean(name);
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }
            return 42.0;
        }

        @Override
        public void setAttribute(Attribute attribute) {}

        @Override
        public AttributeList getAttributes(String[] attributes) {
            return new AttributeList();
        }

        @Override
        public AttributeList setAttributes(AttributeList attributes) {
            return attributes;
        }

        @Override
        public Object invoke(String actionName, Object[] params, String[] signature) {
            return null;
        }

        @Override
        public MBeanInfo getMBeanInfo() {
            return new MBeanInfo(getClass().getName(), "", null, null, null, null);
        }
    }

    @Test
    void aConsumerClosingWhileSampledKeepsItsLastFullSample() throws Exception {
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        ObjectName name = new ObjectName("kafka.consumer:type=consumer-metrics,client-id=review");
        server.registerMBean(new ClosingConsumerMetrics(server, name), name);

        Constructor<FetchMetricsProbe> open =
                FetchMetricsProbe.class.getDeclaredConstructor(String.class);
        open.setAccessible(true);
        PrintStream out = System.out;
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        try {
            FetchMetricsProbe probe = open.newInstance("review");
            Thread.sleep(2_000); // two samples: the first full, the second racing the close
            System.setOut(new PrintStream(printed, true, StandardCharsets.UTF_8));
            probe.close();
        } finally {
            System.setOut(out);
            if (server.isRegistered(name)) {
                server.unregisterMBean(name);
            }
        }
        String line = printed.toString(StandardCharsets.UTF_8);
        out.println("printed: " + line);
        // the first sample read all 10 attributes of consumer-metrics
        assertThat(line).contains("last-poll-seconds-ago=42.0");
    }
}
