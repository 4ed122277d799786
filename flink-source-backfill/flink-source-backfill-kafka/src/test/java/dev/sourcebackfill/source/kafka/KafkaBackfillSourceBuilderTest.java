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

import org.apache.flink.api.common.serialization.SimpleStringSchema;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class KafkaBackfillSourceBuilderTest {

    private static KafkaBackfillSourceBuilder<String> valid() {
        return KafkaBackfill.<String>sourceBuilder()
                .setBootstrapServers("127.0.0.1:9092")
                .setTopics("t")
                .setValueOnlyDeserializer(new SimpleStringSchema());
    }

    @Test
    void aValidBuilderBuilds() {
        assertThat(valid().build()).isNotNull();
        assertThat(
                        valid().setTopics((List<String>) null)
                                .setTopicPattern(Pattern.compile("t.*"))
                                .build())
                .isNotNull();
    }

    @Test
    void aBoundedSourceDiscoversPartitionsOnlyAtItsStart() {
        assertThat(
                        valid().setBounded(OffsetsInitializer.latest())
                                .setPartitionDiscoveryInterval(Duration.ofSeconds(5))
                                .build()
                                .getSplitDiscoveryInterval())
                .isZero();
        assertThat(
                        valid().setPartitionDiscoveryInterval(Duration.ofSeconds(5))
                                .build()
                                .getSplitDiscoveryInterval())
                .isEqualTo(Duration.ofSeconds(5));
    }

    /**
     * Both builders word an error the same way: the source, the option, its setter, the problem.
     */
    @Test
    void anErrorNamesTheSourceTheOptionAndItsSetter() {
        assertThatThrownBy(() -> valid().setBootstrapServers(null).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage(
                        "Kafka backfill source option 'bootstrap servers' (setBootstrapServers) is"
                                + " not set");
    }

    @Test
    void eachInvalidOptionIsNamedAtBuildTime() {
        assertThatThrownBy(() -> valid().setBootstrapServers(" ").build())
                .hasMessageContaining("bootstrap servers");
        assertThatThrownBy(() -> valid().setTopicPattern(Pattern.compile("x")).build())
                .hasMessageContaining("topics")
                .hasMessageContaining("both");
        assertThatThrownBy(() -> valid().setTopics("a", "").build())
                .hasMessageContaining("empty name");
        assertThatThrownBy(() -> valid().setDeserializer(null).build())
                .hasMessageContaining("deserializer");
        assertThatThrownBy(() -> valid().setCommitOffsetsOnCheckpoint(true).build())
                .hasMessageContaining("group id");
        assertThatThrownBy(() -> valid().setProperty("enable.auto.commit", "true").build())
                .hasMessageContaining("enable.auto.commit");
        assertThatThrownBy(() -> valid().setProperty("auto.offset.reset", "latest").build())
                .hasMessageContaining("auto.offset.reset");
        assertThatThrownBy(() -> valid().setProperty("isolation.level", "committed").build())
                .hasMessageContaining("isolation.level");
        assertThatThrownBy(() -> valid().setClientIdPrefix("").build())
                .hasMessageContaining("client id prefix");
        assertThatThrownBy(() -> valid().setProperty("default.api.timeout.ms", "1m").build())
                .hasMessageContaining("default.api.timeout.ms")
                .hasMessageContaining("'1m'");
        assertThatThrownBy(() -> valid().setPollTimeout(Duration.ZERO).build())
                .hasMessageContaining("poll timeout");
        assertThatThrownBy(
                        () -> valid().setPartitionDiscoveryInterval(Duration.ofSeconds(-1)).build())
                .hasMessageContaining("partition discovery interval");
        assertThatThrownBy(() -> valid().setListener(null).build())
                .hasMessageContaining("listener");
    }
}
