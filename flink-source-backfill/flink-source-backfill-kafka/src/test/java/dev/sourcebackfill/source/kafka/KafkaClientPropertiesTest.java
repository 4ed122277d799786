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

import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

import java.util.Properties;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class KafkaClientPropertiesTest {

    @Test
    void toStringHidesEverySecretValueButShowsTheRest() {
        Properties p = new Properties();
        p.setProperty("bootstrap.servers", "10.0.0.1:9093");
        p.setProperty(
                "sasl.jaas.config", "PlainLoginModule required username=\"u\" password=\"s1\";");
        p.setProperty("ssl.keystore.password", "s2");
        p.setProperty("ssl.key.password", "s3");
        p.setProperty("ssl.truststore.password", "s4");
        p.setProperty("sasl.oauthbearer.token.endpoint.url", "https://idp/token");
        p.setProperty("basic.auth.user.info", "u:s5");
        // a PEM private key, which Flink's list of sensitive keys does not name
        p.setProperty("ssl.keystore.key", "-----BEGIN PRIVATE KEY----- s6");
        String shown = new KafkaClientProperties(p, "job").toString();
        assertThat(shown).contains("10.0.0.1:9093").contains("sasl.jaas.config=[hidden]");
        assertThat(shown)
                .doesNotContain("s1")
                .doesNotContain("s2")
                .doesNotContain("s3")
                .doesNotContain("s4")
                .doesNotContain("s6");
    }

    @Test
    void consumersNeverJoinAGroupNorResetOffsetsNorCommitOnTheirOwn() {
        Properties p = new Properties();
        p.setProperty("bootstrap.servers", "b:1");
        p.setProperty("group.id", "g");
        p.setProperty("security.protocol", "SASL_SSL");
        Properties consumer = new KafkaClientProperties(p, "job").consumer("backfill", 3);
        assertThat(consumer.getProperty("group.id")).isNull();
        assertThat(consumer.getProperty("auto.offset.reset")).isEqualTo("none");
        assertThat(consumer.getProperty("enable.auto.commit")).isEqualTo("false");
        assertThat(consumer.getProperty("client.id")).isEqualTo("job-backfill-3");
        assertThat(consumer.getProperty("security.protocol")).isEqualTo("SASL_SSL");
        assertThat(
                        new KafkaClientProperties(p, "job")
                                .admin("enumerator")
                                .getProperty("security.protocol"))
                .isEqualTo("SASL_SSL");
    }

    @Test
    void theBackfillConsumerReadsInBulkUnlessToldOtherwiseAndTheLiveOneKeepsKafkasDefaults() {
        Properties p = new Properties();
        p.setProperty("bootstrap.servers", "b:1");
        p.setProperty("max.partition.fetch.bytes", "12345");
        KafkaClientProperties properties = new KafkaClientProperties(p, "job");
        Properties backfill = properties.consumer("backfill", 0);
        assertThat(backfill.getProperty("max.poll.records")).isEqualTo("2000");
        assertThat(backfill.getProperty("receive.buffer.bytes")).isEqualTo("1048576");
        assertThat(backfill.getProperty("fetch.max.wait.ms")).isEqualTo("100");
        assertThat(backfill.getProperty("max.partition.fetch.bytes"))
                .as("set by the user")
                .isEqualTo("12345");
        Properties live = properties.consumer("live", 0);
        assertThat(live.getProperty("max.poll.records")).isNull();
        assertThat(live.getProperty("receive.buffer.bytes")).isNull();
        assertThat(live.getProperty("fetch.max.wait.ms")).isNull();
    }

    @Test
    void splitIdsRoundTripTopicsWithDashes() {
        TopicPartition tp = new TopicPartition("orders-eu-west", 12);
        assertThat(KafkaSplitIds.of(tp)).isEqualTo("orders-eu-west-12");
        assertThat(KafkaSplitIds.parse("orders-eu-west-12")).isEqualTo(tp);
        assertThatThrownBy(() -> KafkaSplitIds.parse("orders")).hasMessageContaining("orders");
        assertThatThrownBy(() -> KafkaSplitIds.parse("orders-x")).hasMessageContaining("orders-x");
    }
}
