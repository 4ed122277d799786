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

import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.flink.streaming.connectors.kafka.table.KafkaConnectorOptionsUtilAccess;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.types.DataType;

import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.function.Supplier;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link KafkaTableOptions} reads the options it shares with Flink's Kafka SQL connector as Flink's
 * {@code KafkaConnectorOptionsUtil} does (reached through {@link KafkaConnectorOptionsUtilAccess}):
 * on the same options both give the same starting and stopping offsets and the same key and value
 * projections, or both reject them. Offsets are compared by what the initializers give for the same
 * partitions (Flink's startup and bounded modes become initializers as Flink's {@code
 * KafkaDynamicSource} makes them).
 */
class KafkaTableOptionsParityTest {

    private static final DataType PHYSICAL =
            DataTypes.ROW(
                    DataTypes.FIELD("k_id", DataTypes.INT()),
                    DataTypes.FIELD("name", DataTypes.STRING()),
                    DataTypes.FIELD("k_region", DataTypes.STRING()),
                    DataTypes.FIELD("amount", DataTypes.BIGINT()));

    private static final List<TopicPartition> PARTITIONS =
            List.of(
                    new TopicPartition("orders", 0),
                    new TopicPartition("orders", 1),
                    new TopicPartition("orders", 2));

    // ------------------------------------------------------------------ topic

    @Test
    void exactlyOneOfTopicAndTopicPattern() {
        for (Map<String, String> options :
                List.of(
                        options("topic", "orders"),
                        options("topic", "orders;payments"),
                        options("topic-pattern", "orders-.*"),
                        options("topic", "orders", "topic-pattern", "orders-.*"),
                        options())) {
            assertSame(
                    options,
                    () -> {
                        KafkaConnectorOptionsUtilAccess.validateTopic(config(options));
                        return "valid";
                    },
                    () -> {
                        KafkaTableOptions.validateTopic(config(options));
                        return "valid";
                    });
        }
    }

    // ------------------------------------------------------------------ starting offsets

    @Test
    void startupModesGiveTheSameStartingOffsets() {
        List<Map<String, String>> cases =
                List.of(
                        topic(),
                        topic("scan.startup.mode", "earliest-offset"),
                        topic("scan.startup.mode", "latest-offset"),
                        topic("scan.startup.mode", "group-offsets"),
                        topic(
                                "scan.startup.mode",
                                "group-offsets",
                                "properties.auto.offset.reset",
                                "earliest"),
                        topic(
                                "scan.startup.mode",
                                "group-offsets",
                                "properties.auto.offset.reset",
                                "LATEST"),
                        topic(
                                "scan.startup.mode",
                                "group-offsets",
                                "properties.auto.offset.reset",
                                "none"),
                        topic(
                                "scan.startup.mode",
                                "timestamp",
                                "scan.startup.timestamp-millis",
                                "1700000000000"),
                        topic("scan.startup.mode", "timestamp"),
                        topic("scan.startup.mode", "specific-offsets"),
                        options(
                                "topic-pattern",
                                "orders.*",
                                "scan.startup.mode",
                                "earliest-offset"),
                        options("topic-pattern", "orders.*", "scan.startup.mode", "group-offsets"));
        for (Map<String, String> options : cases) {
            assertSameStart(options);
        }
    }

    @Test
    void specificStartingOffsetsAreParsedAndCheckedAlike() {
        assertSameSpecificStarts(SPECIFIC_OFFSETS);
        // specific offsets need a single topic
        for (Map<String, String> options :
                List.of(
                        options(
                                "topic",
                                "orders;payments",
                                "scan.startup.mode",
                                "specific-offsets",
                                "scan.startup.specific-offsets",
                                "partition:0,offset:42"),
                        options(
                                "topic-pattern",
                                "orders.*",
                                "scan.startup.mode",
                                "specific-offsets",
                                "scan.startup.specific-offsets",
                                "partition:0,offset:42"))) {
            assertSameStart(options);
        }
    }

    // ------------------------------------------------------------------ stopping offsets

    @Test
    void boundedModesGiveTheSameStoppingOffsets() {
        List<Map<String, String>> cases =
                List.of(
                        topic(),
                        topic("scan.bounded.mode", "unbounded"),
                        topic("scan.bounded.mode", "latest-offset"),
                        topic("scan.bounded.mode", "group-offsets"),
                        topic(
                                "scan.bounded.mode",
                                "timestamp",
                                "scan.bounded.timestamp-millis",
                                "1700000000000"),
                        topic("scan.bounded.mode", "timestamp"),
                        topic("scan.bounded.mode", "specific-offsets"));
        for (Map<String, String> options : cases) {
            assertSameStop(options);
        }
        for (String offsets : SPECIFIC_OFFSETS) {
            assertSameStop(
                    topic(
                            "scan.bounded.mode",
                            "specific-offsets",
                            "scan.bounded.specific-offsets",
                            offsets));
        }
    }

    /** Specific offsets, valid and not, both connectors read alike. */
    private static final List<String> SPECIFIC_OFFSETS =
            List.of(
                    "partition:0,offset:42",
                    "partition:0,offset:42;partition:1,offset:300",
                    "partition:0,offset:42;partition:1,offset:300;",
                    "partition:0,offset:42;partition:0,offset:7",
                    "partition:2,offset:0",
                    "",
                    "partition:0",
                    "partition:0,offset:",
                    "partition:x,offset:1",
                    "partition:0,offset:1x",
                    "offset:1,partition:0",
                    "partition:0,offset:1,offset:2",
                    "partition:0;offset:1",
                    "partition:0,offset:42;;partition:1,offset:300");

    // ------------------------------------------------------------------ key and value

    @Test
    void keyAndValueProjectionsAreTheSame() {
        List<Map<String, String>> cases =
                List.of(
                        topic(),
                        topic("key.format", "json", "key.fields", "k_id"),
                        topic("key.format", "json", "key.fields", "k_region;k_id"),
                        topic("key.format", "json", "key.fields", "name;k_id"),
                        topic("key.format", "json"),
                        topic("key.fields", "k_id"),
                        topic("key.format", "json", "key.fields", "missing"),
                        topic(
                                "key.format",
                                "json",
                                "key.fields",
                                "k_id;k_region",
                                "key.fields-prefix",
                                "k_"),
                        topic(
                                "key.format",
                                "json",
                                "key.fields",
                                "k_id;name",
                                "key.fields-prefix",
                                "k_"),
                        topic(
                                "key.format",
                                "json",
                                "key.fields",
                                "k_id",
                                "value.fields-include",
                                "EXCEPT_KEY"),
                        topic(
                                "key.format",
                                "json",
                                "key.fields",
                                "k_id;k_region",
                                "key.fields-prefix",
                                "k_",
                                "value.fields-include",
                                "EXCEPT_KEY"),
                        topic(
                                "key.format",
                                "json",
                                "key.fields",
                                "k_id",
                                "value.fields-include",
                                "ALL"),
                        topic(
                                "key.format",
                                "json",
                                "key.fields",
                                "k_id",
                                "key.fields-prefix",
                                "k_",
                                "value.fields-include",
                                "ALL"),
                        topic("value.fields-include", "EXCEPT_KEY"),
                        topic("value.fields-include", "ALL"));
        for (Map<String, String> options : cases) {
            assertThat(ourProjections(options))
                    .as("ours on %s", options)
                    .isEqualTo(flinkProjections(options));
        }
    }

    // ------------------------------------------------------------------ known differences

    /**
     * Options Flink's connector once read differently from ours (found by this test): offsets
     * {@code ";"} and spaces around a pair, an empty {@code key.fields} without a key format, an
     * empty {@code key.fields-prefix} with {@code ALL}. Each now reads as in Flink's.
     */
    @Test
    void theOnceDifferentOptionsReadAsFlinksDo() {
        assertSameSpecificStarts(List.of(";", "partition:0, offset:42", " partition:0,offset:42"));
        Map<String, String> emptyKeyFields = topic("key.fields", "");
        assertThat(ourProjections(emptyKeyFields)).isEqualTo(flinkProjections(emptyKeyFields));
        Map<String, String> emptyPrefix =
                topic("key.format", "json", "key.fields", "k_id", "key.fields-prefix", "");
        assertThat(ourProjections(emptyPrefix)).isEqualTo(flinkProjections(emptyPrefix));
    }

    // ------------------------------------------------------------------ the comparison

    private static void assertSameSpecificStarts(List<String> specificOffsets) {
        for (String offsets : specificOffsets) {
            assertSameStart(
                    topic(
                            "scan.startup.mode",
                            "specific-offsets",
                            "scan.startup.specific-offsets",
                            offsets));
        }
    }

    private static void assertSameStart(Map<String, String> options) {
        Properties properties = KafkaTableOptions.kafkaProperties(options);
        assertSame(
                options,
                () ->
                        offsets(
                                KafkaConnectorOptionsUtilAccess.startingOffsets(
                                        config(options), properties)),
                () -> {
                    Configuration config = config(options);
                    KafkaTableOptions.validateTopic(config);
                    return offsets(KafkaTableOptions.startingOffsets(config, properties));
                });
    }

    private static void assertSameStop(Map<String, String> options) {
        assertSame(
                options,
                () ->
                        KafkaConnectorOptionsUtilAccess.stoppingOffsets(config(options))
                                .map(KafkaTableOptionsParityTest::offsets),
                () -> {
                    Configuration config = config(options);
                    KafkaTableOptions.validateTopic(config);
                    return KafkaTableOptions.stoppingOffsets(config)
                            .map(KafkaTableOptionsParityTest::offsets);
                });
    }

    /** The key and value projections of Flink's connector, or "rejected". */
    private static Object flinkProjections(Map<String, String> options) {
        return outcome(
                () ->
                        List.of(
                                Arrays.toString(
                                        KafkaConnectorOptionsUtilAccess.keyProjection(
                                                config(options), PHYSICAL)),
                                Arrays.toString(
                                        KafkaConnectorOptionsUtilAccess.valueProjection(
                                                config(options), PHYSICAL))));
    }

    /** Ours, or "rejected". */
    private static Object ourProjections(Map<String, String> options) {
        return outcome(
                () -> {
                    int[] keys = KafkaTableOptions.keyProjection(config(options), PHYSICAL);
                    return List.of(
                            Arrays.toString(keys),
                            Arrays.toString(
                                    KafkaTableOptions.valueProjection(
                                            config(options), PHYSICAL, keys)));
                });
    }

    /** Both give the same result, or both reject the options. */
    private static void assertSame(
            Map<String, String> options, Supplier<Object> flink, Supplier<Object> ours) {
        assertThat(outcome(ours)).as("ours on %s", options).isEqualTo(outcome(flink));
    }

    private static Object outcome(Supplier<Object> reading) {
        try {
            return reading.get();
        } catch (ValidationException e) {
            return "rejected";
        }
    }

    /**
     * What an initializer gives for {@link #PARTITIONS}, and its reset strategy; each kind of
     * offset the retriever answers is told apart by its value.
     */
    private static String offsets(OffsetsInitializer initializer) {
        Map<TopicPartition, Long> offsets =
                initializer.getPartitionOffsets(PARTITIONS, new DistinctOffsets());
        return offsets.entrySet().stream()
                        .sorted(Map.Entry.comparingByKey(Comparator.comparing(Object::toString)))
                        .map(e -> e.getKey() + "=" + e.getValue())
                        .collect(Collectors.joining(", ", "{", "}"))
                + " reset "
                + initializer.getAutoOffsetResetStrategy();
    }

    /** Committed, end, beginning and timestamp offsets that differ from each other. */
    private static final class DistinctOffsets
            implements OffsetsInitializer.PartitionOffsetsRetriever {

        @Override
        public Map<TopicPartition, Long> committedOffsets(Collection<TopicPartition> partitions) {
            return each(partitions, 1_000);
        }

        @Override
        public Map<TopicPartition, Long> endOffsets(Collection<TopicPartition> partitions) {
            return each(partitions, 2_000);
        }

        @Override
        public Map<TopicPartition, Long> beginningOffsets(Collection<TopicPartition> partitions) {
            return each(partitions, 3_000);
        }

        @Override
        public Map<TopicPartition, OffsetAndTimestamp> offsetsForTimes(
                Map<TopicPartition, Long> timestamps) {
            Map<TopicPartition, OffsetAndTimestamp> found = new HashMap<>();
            timestamps.forEach(
                    (tp, ts) ->
                            found.put(
                                    tp, new OffsetAndTimestamp(ts % 10_000 + tp.partition(), ts)));
            return found;
        }

        private static Map<TopicPartition, Long> each(
                Collection<TopicPartition> partitions, long base) {
            Map<TopicPartition, Long> offsets = new HashMap<>();
            partitions.forEach(tp -> offsets.put(tp, base + tp.partition()));
            return offsets;
        }
    }

    // ------------------------------------------------------------------ options

    private static Map<String, String> topic(String... keysAndValues) {
        Map<String, String> options = options(keysAndValues);
        options.put("topic", "orders");
        return options;
    }

    private static Map<String, String> options(String... keysAndValues) {
        Map<String, String> options = new HashMap<>();
        options.put("properties.bootstrap.servers", "broker:9092");
        options.put("properties.group.id", "g");
        for (int i = 0; i < keysAndValues.length; i += 2) {
            options.put(keysAndValues[i], keysAndValues[i + 1]);
        }
        return options;
    }

    private static Configuration config(Map<String, String> options) {
        return Configuration.fromMap(options);
    }
}
