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
package dev.sourcebackfill.source.kafka;

import dev.sourcebackfill.source.OffsetGapPolicy;

import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.flink.connector.kafka.source.enumerator.subscriber.KafkaSubscriber;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Properties;

import static org.assertj.core.api.Assertions.assertThat;

/** What the discoverer decides without a broker; discovery against a broker is in the ITCase. */
class KafkaPartitionDiscovererTest {

    /** No broker listens here: a discoverer that asks Kafka fails within the short timeout. */
    private static KafkaPartitionDiscoverer discoverer(OffsetsInitializer stoppingOffsets) {
        Properties properties = new Properties();
        properties.setProperty("bootstrap.servers", "127.0.0.1:1");
        properties.setProperty("default.api.timeout.ms", "500");
        properties.setProperty("request.timeout.ms", "400");
        return new KafkaPartitionDiscoverer(
                new KafkaClientProperties(properties, "test"),
                KafkaSubscriber.getTopicListSubscriber(List.of("orders")),
                "[orders]",
                OffsetsInitializer.earliest(),
                stoppingOffsets,
                null,
                OffsetGapPolicy.FAIL);
    }

    @Test
    void aRestoredBoundedSourceDiscoversNothingAndEndsDiscoveryWithoutAskingKafka()
            throws Exception {
        try (KafkaPartitionDiscoverer restored = discoverer(OffsetsInitializer.latest())) {
            assertThat(restored.mayDiscoverMoreSplits()).as("before its first discovery").isTrue();
            // a restored enumerator's first discovery is not the initial one
            assertThat(restored.discoverSplits(false)).isEmpty();
            assertThat(restored.mayDiscoverMoreSplits()).as("after it").isFalse();
            assertThat(restored.discoverSplits(false)).isEmpty();
        }
    }

    @Test
    void anUnboundedSourceMayAlwaysDiscoverMorePartitions() throws Exception {
        try (KafkaPartitionDiscoverer unbounded = discoverer(null)) {
            assertThat(unbounded.mayDiscoverMoreSplits()).isTrue();
        }
    }
}
