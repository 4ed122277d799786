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
import org.apache.flink.streaming.connectors.kafka.table.KafkaDynamicTableFactory;
import org.apache.flink.table.factories.Factory;

import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.Set;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

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

    /** Nothing is required that {@code kafka} does not require. */
    @Test
    void noOptionIsRequiredThatKafkaDoesNotRequire() {
        assertThat(keys(new KafkaDynamicTableFactory().requiredOptions()))
                .containsAll(keys(new KafkaBackfillDynamicTableFactory().requiredOptions()));
    }
}
