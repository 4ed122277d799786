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

import org.apache.flink.annotation.Internal;
import org.apache.flink.configuration.GlobalConfiguration;
import org.apache.flink.connector.kafka.source.KafkaSourceOptions;

import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

import java.io.Serializable;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;

/**
 * The user's Kafka client properties (security settings included) and the ones the source sets for
 * its consumers and admin clients. Values are never logged: {@link #toString()} masks every value
 * whose key Flink counts as sensitive ({@link GlobalConfiguration#isSensitive}: passwords, secrets,
 * tokens, JAAS configurations, ...) and Kafka's private keys and credentials.
 */
@Internal
final class KafkaClientProperties implements Serializable {

    private static final long serialVersionUID = 1L;

    /** Kafka's default of {@code default.api.timeout.ms}. */
    static final long DEFAULT_API_TIMEOUT_MS = 60_000L;

    /**
     * What the backfill consumer reads with unless the properties set it: it reads history, which
     * is all there, so it fetches in bulk (more records per poll, larger fetches per partition, a
     * larger socket buffer), and a fetch at a partition's end waits at most 100 ms for records
     * (Kafka's 500 ms): the consumer sends no other fetch to that broker meanwhile, so the next
     * chunk of history its reader gives it would wait that long. The live consumer keeps Kafka's
     * defaults, as Flink's Kafka source.
     */
    static final Map<String, String> BACKFILL_CONSUMER_DEFAULTS =
            Map.of(
                    ConsumerConfig.MAX_POLL_RECORDS_CONFIG,
                    "2000",
                    ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG,
                    String.valueOf(4 << 20),
                    ConsumerConfig.RECEIVE_BUFFER_CONFIG,
                    String.valueOf(1 << 20),
                    ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG,
                    "100");

    private final Properties properties;
    private final String clientIdPrefix;

    KafkaClientProperties(Properties properties, String clientIdPrefix) {
        this.properties = new Properties();
        this.properties.putAll(properties);
        this.clientIdPrefix = clientIdPrefix;
    }

    String bootstrapServers() {
        return properties.getProperty(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG);
    }

    /**
     * Whether the consumers' own metrics are registered in Flink's metric system: Flink's Kafka
     * source option {@link KafkaSourceOptions#REGISTER_KAFKA_CONSUMER_METRICS} (its key and
     * default), set among the properties. Not a Kafka client setting.
     */
    boolean registerConsumerMetrics() {
        return KafkaSourceOptions.getOption(
                properties,
                KafkaSourceOptions.REGISTER_KAFKA_CONSUMER_METRICS,
                set -> Boolean.parseBoolean(set.trim()));
    }

    /** The isolation level both consumers read with, and the end offsets discovery lists. */
    IsolationLevel isolationLevel() {
        String level =
                properties.getProperty(
                        ConsumerConfig.ISOLATION_LEVEL_CONFIG,
                        IsolationLevel.READ_UNCOMMITTED.toString());
        return IsolationLevel.valueOf(level.toUpperCase(Locale.ROOT));
    }

    /** The admin calls' timeout: {@code default.api.timeout.ms}, or Kafka's own default. */
    long apiTimeoutMs() {
        String set = properties.getProperty(CommonClientConfigs.DEFAULT_API_TIMEOUT_MS_CONFIG);
        return set == null ? DEFAULT_API_TIMEOUT_MS : Long.parseLong(set.trim());
    }

    /**
     * A consumer that is assigned partitions and seeks them itself: no group (offsets are committed
     * by the source through the admin client), no auto commit, and no offset reset (a missing
     * offset is an error, never a silent jump).
     */
    Properties consumer(String role, int subtask) {
        Properties consumer = new Properties();
        if (role.equals("backfill")) {
            consumer.putAll(BACKFILL_CONSUMER_DEFAULTS);
        }
        consumer.putAll(properties);
        consumer.remove(ConsumerConfig.GROUP_ID_CONFIG);
        consumer.remove(KafkaSourceOptions.REGISTER_KAFKA_CONSUMER_METRICS.key());
        consumer.put(
                ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG,
                ByteArrayDeserializer.class.getName());
        consumer.put(
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG,
                ByteArrayDeserializer.class.getName());
        consumer.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        consumer.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "none");
        consumer.put(
                CommonClientConfigs.CLIENT_ID_CONFIG, clientIdPrefix + '-' + role + '-' + subtask);
        return consumer;
    }

    Properties admin(String role) {
        Properties admin = new Properties();
        // consumer-only keys make the admin client warn; it takes the common ones
        for (String key : properties.stringPropertyNames()) {
            if ((!ConsumerConfig.configNames().contains(key)
                            || AdminClientConfig.configNames().contains(key))
                    && !key.equals(KafkaSourceOptions.REGISTER_KAFKA_CONSUMER_METRICS.key())) {
                admin.put(key, properties.getProperty(key));
            }
        }
        admin.put(CommonClientConfigs.CLIENT_ID_CONFIG, clientIdPrefix + '-' + role);
        return admin;
    }

    @Override
    public String toString() {
        Map<String, String> shown = new TreeMap<>();
        for (String key : properties.stringPropertyNames()) {
            shown.put(key, isSecret(key) ? "[hidden]" : properties.getProperty(key));
        }
        return shown + ", client id prefix " + clientIdPrefix;
    }

    /**
     * What Flink counts as sensitive, and Kafka's private keys and credentials, which Flink's list
     * does not cover ({@code ssl.keystore.key}: a PEM private key).
     */
    static boolean isSecret(String key) {
        String lower = key.toLowerCase(Locale.ROOT);
        return GlobalConfiguration.isSensitive(key)
                || lower.endsWith(".key")
                || lower.contains("credential")
                || lower.contains("private");
    }
}
