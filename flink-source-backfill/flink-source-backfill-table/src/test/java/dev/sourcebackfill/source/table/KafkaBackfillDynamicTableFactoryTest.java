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
package dev.sourcebackfill.source.table;

import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.connectors.kafka.table.KafkaDynamicTableFactory;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.factories.Factory;
import org.apache.flink.table.types.DataType;

import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The options of {@code kafka-backfill} against those of Flink's {@code kafka} connector. */
class KafkaBackfillDynamicTableFactoryTest {

    private static Set<String> keys(Set<ConfigOption<?>> options) {
        return options.stream().map(ConfigOption::key).collect(Collectors.toSet());
    }

    private static Set<String> allKeys(Factory factory) {
        Set<String> keys = new HashSet<>(keys(factory.requiredOptions()));
        keys.addAll(keys(factory.optionalOptions()));
        return keys;
    }

    /**
     * A DDL that {@code kafka} accepts has no option {@code kafka-backfill} does not know: every
     * option of Flink's factory, read and sink alike (a new one in a Flink release fails here).
     */
    @Test
    void everyOptionOfFlinksKafkaConnectorIsAnOptionOfOurs() {
        assertThat(allKeys(new KafkaBackfillDynamicTableFactory()))
                .containsAll(allKeys(new KafkaDynamicTableFactory()));
    }

    /**
     * The SQL jar carries no Iceberg: a table with {@code backfill.iceberg.*} options on a class
     * path without the Iceberg module fails at planning naming the option and what is missing; a
     * table without them never looks for it.
     */
    @Test
    void icebergOptionsWithoutTheIcebergModuleFailNamingTheOption() {
        Map<String, String> table =
                Map.of("backfill.iceberg.table", "ns.t", "backfill.iceberg.layout", "redpanda");
        DataType row = DataTypes.ROW(DataTypes.FIELD("v", DataTypes.STRING()));
        assertThatThrownBy(
                        () ->
                                KafkaBackfillDynamicTableFactory.iceberg(
                                        Configuration.fromMap(table),
                                        table,
                                        row,
                                        "dev.sourcebackfill.source.iceberg.NotOnTheClassPath"))
                .isInstanceOf(ValidationException.class)
                .hasMessageContaining("backfill.iceberg.table")
                .hasMessageContaining("flink-source-backfill-iceberg")
                .hasMessageContaining("NotOnTheClassPath");
        assertThat(
                        KafkaBackfillDynamicTableFactory.iceberg(
                                new Configuration(),
                                Map.of("topic", "t"),
                                row,
                                "dev.sourcebackfill.source.iceberg.NotOnTheClassPath"))
                .isNull();
        // with the module: the options are read
        assertThat(
                        KafkaBackfillDynamicTableFactory.iceberg(
                                Configuration.fromMap(table),
                                Map.of(
                                        "backfill.iceberg.table",
                                        "ns.t",
                                        "backfill.iceberg.layout",
                                        "redpanda",
                                        "backfill.iceberg.catalog.type",
                                        "rest"),
                                row,
                                KafkaBackfillDynamicTableFactory.ICEBERG_MODULE_CLASS))
                .isNotNull();
    }

    /** Nothing is required that {@code kafka} does not require. */
    @Test
    void noOptionIsRequiredThatKafkaDoesNotRequire() {
        assertThat(keys(new KafkaDynamicTableFactory().requiredOptions()))
                .containsAll(keys(new KafkaBackfillDynamicTableFactory().requiredOptions()));
    }

    /**
     * {@code backfill.control.file} and {@code backfill.control.interval} reach the source's
     * builder; an empty path or an interval that is not positive fails naming the option.
     */
    @Test
    void theControlOptionsReachTheSourceAndBadOnesFailNamingTheOption() {
        Map<String, String> table =
                Map.of(
                        "topic", "orders",
                        "properties.bootstrap.servers", "127.0.0.1:1",
                        "backfill.control.file", "/tmp/orders.control",
                        "backfill.control.interval", "2 s");
        KafkaReadOptions read = KafkaReadOptions.of(Configuration.fromMap(table), properties());
        assertThat(read.backfillControlFile()).isEqualTo("/tmp/orders.control");
        assertThat(read.backfillControlInterval()).isEqualTo(java.time.Duration.ofSeconds(2));
        assertThat(
                        KafkaReadOptions.of(
                                        Configuration.fromMap(Map.of("topic", "orders")),
                                        properties())
                                .backfillControlFile())
                .isNull();

        Map<String, String> empty = new java.util.HashMap<>(table);
        empty.put("backfill.control.file", " ");
        assertThatThrownBy(() -> KafkaReadOptions.of(Configuration.fromMap(empty), properties()))
                .isInstanceOf(ValidationException.class)
                .hasMessageContaining("'backfill.control.file' is empty");
        Map<String, String> zero = new java.util.HashMap<>(table);
        zero.put("backfill.control.interval", "0 s");
        assertThatThrownBy(() -> KafkaReadOptions.of(Configuration.fromMap(zero), properties()))
                .isInstanceOf(ValidationException.class)
                .hasMessageContaining("'backfill.control.interval'")
                .hasMessageContaining("must be at least 1 ms");
    }

    private static java.util.Properties properties() {
        java.util.Properties properties = new java.util.Properties();
        properties.setProperty("bootstrap.servers", "127.0.0.1:1");
        return properties;
    }
}
