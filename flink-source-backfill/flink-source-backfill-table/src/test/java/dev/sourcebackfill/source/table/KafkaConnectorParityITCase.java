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

import dev.sourcebackfill.source.kafka.KafkaTestEnvironment;
import dev.sourcebackfill.source.testutils.RestartCounter;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;
import org.apache.flink.util.ExceptionUtils;

import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The {@code kafka-backfill} connector against Flink's own {@code kafka} connector: the same
 * columns, the same WITH options and the same bounded query on the same topic give the same rows
 * (compared as multisets), or both fail at planning naming the same option.
 */
class KafkaConnectorParityITCase {

    private static final RestartCounter RESTARTS = new RestartCounter();

    /**
     * Two TaskManagers: a test whose jobs fail at their start (both connectors, by design) once
     * took the cluster's only TaskManager down with it (Flink's collect sink failing in its failure
     * handler, "bufferLock is null", a fatal error of the TaskManager), and every later test found
     * no slot. The other TaskManager's slots keep the later tests running.
     */
    @RegisterExtension
    static final MiniClusterExtension CLUSTER =
            new MiniClusterExtension(
                    new MiniClusterResourceConfiguration.Builder()
                            .setConfiguration(RESTARTS.addTo(new Configuration()))
                            .setNumberTaskManagers(2)
                            .setNumberSlotsPerTaskManager(4)
                            .build());

    @RegisterExtension static final KafkaTestEnvironment KAFKA = new KafkaTestEnvironment();

    // ------------------------------------------------------------------ keys

    /**
     * Offsets 0 to 6 of one partition: a JSON key, no key, an unparseable key, a JSON key with a
     * tombstone, a JSON key, an empty key, a JSON key.
     */
    private static String keyedTopic() throws Exception {
        String topic = "keys-" + UUID.randomUUID();
        KAFKA.createTopic(topic, 1);
        KAFKA.produce(
                List.of(
                        new ProducerRecord<>(topic, 0, "{\"kid\":1}", "{\"kid\":1,\"v\":\"a\"}"),
                        new ProducerRecord<>(topic, 0, null, "{\"kid\":2,\"v\":\"b\"}"),
                        new ProducerRecord<>(topic, 0, "not json", "{\"kid\":3,\"v\":\"c\"}"),
                        new ProducerRecord<>(topic, 0, "{\"kid\":4}", null),
                        new ProducerRecord<>(topic, 0, "{\"kid\":5}", "{\"kid\":5,\"v\":\"e\"}"),
                        new ProducerRecord<>(topic, 0, "", "{\"kid\":6,\"v\":\"f\"}"),
                        new ProducerRecord<>(topic, 0, "{\"kid\":7}", "{\"kid\":7,\"v\":\"g\"}")));
        return topic;
    }

    private static final String KEYED_COLUMNS =
            "kid BIGINT, v STRING, off BIGINT METADATA FROM 'offset' VIRTUAL";

    private static final String JSON_KEY =
            "'key.format' = 'json', 'key.json.ignore-parse-errors' = 'true', 'key.fields' = 'kid',"
                    + " 'value.format' = 'json', ";

    /**
     * {@code value.fields-include} = {@code EXCEPT_KEY}: a record whose key the JSON key format
     * makes nothing of (no key, an unparseable key) gives no row, as a tombstone gives none.
     */
    @Test
    void aKeylessOrUnparseableKeyGivesNoRowAsInKafkaExceptKey() throws Exception {
        String topic = keyedTopic();
        String options = bounded(topic) + JSON_KEY + "'value.fields-include' = 'EXCEPT_KEY'";
        assertKeylessAndUnparseableKeysGiveNoRow(KEYED_COLUMNS, options);
    }

    /**
     * The same rows from both connectors, with and without key columns in the query: the key rows'
     * offsets 1 and 2 (no key, an unparseable key) give none, the others one each.
     */
    private static void assertKeylessAndUnparseableKeysGiveNoRow(String columns, String options)
            throws Exception {
        List<String> rows = sameRows(columns, options, "SELECT * FROM %s");
        assertThat(rows).contains("+I[1, a, 0]", "+I[5, e, 4]", "+I[7, g, 6]");
        assertThat(rows).noneMatch(r -> r.endsWith(", 1]") || r.endsWith(", 2]"));
        // the query reads no key column: the key still decides whether there is a row
        sameRows(columns, options, "SELECT v, off FROM %s");
    }

    /** As above, with {@code value.fields-include} = {@code ALL}. */
    @Test
    void aKeylessOrUnparseableKeyGivesNoRowAsInKafkaAll() throws Exception {
        String topic = keyedTopic();
        String options = bounded(topic) + JSON_KEY + "'value.fields-include' = 'ALL'";
        assertKeylessAndUnparseableKeysGiveNoRow(KEYED_COLUMNS, options);
    }

    /** As above, with {@code key.fields-prefix}. */
    @Test
    void aKeylessOrUnparseableKeyGivesNoRowAsInKafkaWithAKeyPrefix() throws Exception {
        String topic = keyedTopic();
        String options =
                bounded(topic)
                        + "'key.format' = 'json', 'key.json.ignore-parse-errors' = 'true',"
                        + " 'key.fields' = 'k_kid', 'key.fields-prefix' = 'k_',"
                        + " 'value.format' = 'json', 'value.fields-include' = 'EXCEPT_KEY'";
        String columns = "k_kid BIGINT, v STRING, off BIGINT METADATA FROM 'offset' VIRTUAL";
        assertKeylessAndUnparseableKeysGiveNoRow(columns, options);
    }

    /**
     * The {@code raw} key format makes a row of a missing key (a NULL column): a keyless record
     * gives a row with a NULL key, as in {@code kafka}.
     */
    @Test
    void aKeylessRecordUnderTheRawKeyFormatGivesARowWithANullKeyAsInKafka() throws Exception {
        String topic = keyedTopic();
        String options =
                bounded(topic)
                        + "'key.format' = 'raw', 'key.fields' = 'k', 'value.format' = 'json',"
                        + " 'value.fields-include' = 'EXCEPT_KEY'";
        String columns = "k STRING, v STRING, off BIGINT METADATA FROM 'offset' VIRTUAL";
        List<String> rows = sameRows(columns, options, "SELECT * FROM %s");
        assertThat(rows).contains("+I[null, b, 1]", "+I[not json, c, 2]");
    }

    /**
     * Partition 0 of {@code topic} starts at 5 now (retention); a new group has committed offset 1
     * there. Returns the group.
     */
    private static String committedBelowTheLogsStart(String topic) throws Exception {
        KAFKA.deleteRecordsBelow(topic, 0, 5);
        String group = "group-" + UUID.randomUUID();
        KAFKA.commitOffset(group, topic, 0, 1);
        return group;
    }

    // ------------------------------------------------------------------ options at planning

    /**
     * {@code group-offsets} (the default start, and a bounded mode) without {@code
     * properties.group.id}: both connectors fail when the query is planned, naming the group id;
     * {@code kafka-backfill} with a ValidationException naming {@code properties.group.id}.
     */
    @Test
    void aMissingGroupIdFailsAtPlanningAsInKafka() throws Exception {
        String topic = "no-group-" + UUID.randomUUID();
        KAFKA.createTopic(topic, 1);
        String startsAtGroupOffsets =
                "'topic' = '"
                        + topic
                        + "', 'properties.bootstrap.servers' = '"
                        + KAFKA.bootstrapServers()
                        + "', 'scan.bounded.mode' = 'latest-offset', 'format' = 'json'";
        String endsAtGroupOffsets =
                "'topic' = '"
                        + topic
                        + "', 'properties.bootstrap.servers' = '"
                        + KAFKA.bootstrapServers()
                        + "', 'scan.startup.mode' = 'earliest-offset',"
                        + " 'scan.bounded.mode' = 'group-offsets', 'format' = 'json'";
        for (String options : List.of(startsAtGroupOffsets, endsAtGroupOffsets)) {
            TableEnvironment tEnv = tables();
            tEnv.executeSql(ddl("kafka_t", "kafka", "v STRING", options));
            tEnv.executeSql(ddl("backfill_t", "kafka-backfill", "v STRING", options));
            assertThatThrownBy(() -> tEnv.executeSql("SELECT * FROM kafka_t"))
                    .as("kafka, %s", options)
                    .satisfies(e -> assertThat(stackOf(e)).contains("group.id"));
            assertThatThrownBy(() -> tEnv.executeSql("SELECT * FROM backfill_t"))
                    .as("kafka-backfill, %s", options)
                    .satisfies(
                            e ->
                                    assertThat(
                                                    ExceptionUtils.findThrowable(
                                                                    e, ValidationException.class)
                                                            .map(
                                                                    ExceptionUtils
                                                                            ::stringifyException))
                                            .hasValueSatisfying(
                                                    m ->
                                                            assertThat(m)
                                                                    .contains(
                                                                            "properties.group.id")));
        }
    }

    /**
     * The DDL of a table that is also written to, with every sink option of {@code kafka}: read,
     * the options are ignored and the rows are those of {@code kafka}.
     */
    @Test
    void sinkOptionsOnATableThatIsOnlyReadGiveTheSameRowsAsInKafka() throws Exception {
        String topic = "sink-options-" + UUID.randomUUID();
        KAFKA.createTopic(topic, 2);
        KAFKA.produce(
                1,
                0,
                10,
                (ignored, i) ->
                        new ProducerRecord<>(topic, (int) i % 2, null, "{\"id\":" + i + "}"));
        String options =
                bounded(topic)
                        + "'format' = 'json', 'sink.partitioner' = 'fixed',"
                        + " 'sink.parallelism' = '1', 'sink.delivery-guarantee' = 'exactly-once',"
                        + " 'sink.transactional-id-prefix' = 'tx',"
                        // the naming strategy only where the line's Kafka connector has it (4.0+)
                        + (KafkaSinkNamingOptions.options().isEmpty()
                                ? ""
                                : " 'sink.transaction-naming-strategy' = 'POOLING',")
                        + " 'sink.semantic' = 'exactly-once'";
        List<String> rows = sameRows("id BIGINT", options, "SELECT * FROM %s");
        assertThat(rows).hasSize(10);
    }

    // ------------------------------------------------------------------ start and stop offsets

    /** Offsets 0 to 9 of each partition, JSON {"id": partition * 100 + offset}. */
    private static String tenPerPartition(int partitions) throws Exception {
        String topic = "offsets-" + UUID.randomUUID();
        KAFKA.createTopic(topic, partitions);
        KAFKA.produce(
                partitions,
                0,
                10,
                (p, o) -> new ProducerRecord<>(topic, p, null, "{\"id\":" + (p * 100 + o) + "}"));
        return topic;
    }

    private static final String OFFSET_COLUMNS =
            "id BIGINT, p INT METADATA FROM 'partition' VIRTUAL,"
                    + " off BIGINT METADATA FROM 'offset' VIRTUAL";

    /**
     * {@code specific-offsets} at 2 where partition 0 starts at 5 starts at 5 (the specific
     * offsets' reset is earliest), partition 1 at its offset 1.
     */
    @Test
    void aSpecificStartOffsetBelowTheLogStartStartsAtTheEarliestAsInKafka() throws Exception {
        String topic = tenPerPartition(2);
        KAFKA.deleteRecordsBelow(topic, 0, 5);
        String options =
                topicOptions(topic)
                        + "'scan.startup.mode' = 'specific-offsets',"
                        + " 'scan.startup.specific-offsets' = 'partition:0,offset:2;partition:1,offset:1',"
                        + " 'scan.bounded.mode' = 'latest-offset', 'format' = 'json'";
        List<String> rows = sameRows(OFFSET_COLUMNS, options, "SELECT * FROM %s");
        assertThat(rows).hasSize(5 + 9).contains("+I[5, 0, 5]").doesNotContain("+I[2, 0, 2]");
    }

    /**
     * {@code group-offsets} with a committed offset of 1 where the partition starts at 5 and {@code
     * auto.offset.reset} = {@code earliest} starts at 5.
     */
    @Test
    void aCommittedOffsetBelowTheLogStartWithEarliestResetStartsAtTheEarliestAsInKafka()
            throws Exception {
        String topic = tenPerPartition(1);
        String group = committedBelowTheLogsStart(topic);
        String options =
                topicOptions(topic)
                        + "'properties.group.id' = '"
                        + group
                        + "', 'properties.auto.offset.reset' = 'earliest',"
                        + " 'scan.startup.mode' = 'group-offsets',"
                        + " 'scan.bounded.mode' = 'latest-offset', 'format' = 'json'";
        List<String> rows = sameRows(OFFSET_COLUMNS, options, "SELECT * FROM %s");
        assertThat(rows).hasSize(5).contains("+I[5, 0, 5]");
    }

    /**
     * A start after the bounded timestamp makes each partition's stop fall below its start; both
     * connectors read nothing and finish.
     */
    @Test
    void aTimestampStartAfterTheBoundedTimestampReadsNothingAsInKafka() throws Exception {
        String topic = "timestamps-" + UUID.randomUUID();
        KAFKA.createTopic(topic, 2);
        long base = 1_700_000_000_000L;
        KAFKA.produce(
                2,
                0,
                10,
                (p, o) ->
                        new ProducerRecord<>(
                                topic, p, base + o * 1_000L, null, "{\"id\":" + o + "}"));
        String options =
                topicOptions(topic)
                        + "'scan.startup.mode' = 'timestamp',"
                        + " 'scan.startup.timestamp-millis' = '"
                        + (base + 7_000)
                        + "', 'scan.bounded.mode' = 'timestamp',"
                        + " 'scan.bounded.timestamp-millis' = '"
                        + (base + 3_000)
                        + "', 'format' = 'json'";
        assertThat(sameRows(OFFSET_COLUMNS, options, "SELECT * FROM %s")).isEmpty();
    }

    /**
     * {@code specific-offsets} starting partition 0 at 5 and stopping it at 3 reads nothing of it,
     * and partition 1 (1 to 8) as usual.
     */
    @Test
    void aSpecificStopBelowTheStartReadsNothingOfThatPartitionAsInKafka() throws Exception {
        String topic = tenPerPartition(2);
        String options =
                topicOptions(topic)
                        + "'scan.startup.mode' = 'specific-offsets',"
                        + " 'scan.startup.specific-offsets' = 'partition:0,offset:5;partition:1,offset:1',"
                        + " 'scan.bounded.mode' = 'specific-offsets',"
                        + " 'scan.bounded.specific-offsets' = 'partition:0,offset:3;partition:1,offset:8',"
                        + " 'format' = 'json'";
        List<String> rows = sameRows(OFFSET_COLUMNS, options, "SELECT * FROM %s");
        assertThat(rows).hasSize(7).allMatch(r -> r.contains(", 1, "));
    }

    /**
     * {@code group-offsets} with a committed offset of 1 where the partition starts at 5 and no
     * {@code auto.offset.reset}: both connectors fail the job ({@code kafka}'s consumer resets
     * nothing), {@code kafka-backfill} naming the topic (the default {@code
     * backfill.offset-gap-policy} = {@code FAIL}).
     */
    @Test
    void aCommittedOffsetBelowTheLogStartWithNoResetFailsAsInKafka() throws Exception {
        String topic = tenPerPartition(1);
        String group = committedBelowTheLogsStart(topic);
        String options =
                topicOptions(topic)
                        + "'properties.group.id' = '"
                        + group
                        + "', 'scan.startup.mode' = 'group-offsets',"
                        + " 'scan.bounded.mode' = 'latest-offset', 'format' = 'json'";
        TableEnvironment tEnv = tables();
        tEnv.executeSql(ddl("kafka_t", "kafka", OFFSET_COLUMNS, options));
        tEnv.executeSql(ddl("backfill_t", "kafka-backfill", OFFSET_COLUMNS, options));
        assertJobFails(tEnv, "SELECT * FROM kafka_t", "OffsetOutOfRangeException");
        assertJobFails(tEnv, "SELECT * FROM backfill_t", topic);
    }

    /** Runs the query; its job fails, with {@code named} in the failure, and does not restart. */
    private static void assertJobFails(TableEnvironment tEnv, String query, String named)
            throws Exception {
        TableResult result = tEnv.executeSql(query);
        JobClient job = result.getJobClient().orElseThrow();
        assertThatThrownBy(
                        () -> {
                            try (CloseableIterator<Row> it = result.collect()) {
                                it.forEachRemaining(row -> {});
                            }
                        })
                .as(query)
                .satisfies(e -> assertThat(stackOf(e)).contains(named));
        assertThat(RESTARTS.restartsOf(job, Duration.ofSeconds(30))).as("restarts").isZero();
    }

    /**
     * As above with {@code backfill.offset-gap-policy} = {@code SKIP}, {@code kafka-backfill}
     * starts at the earliest offset, the rows {@code kafka} gives with {@code auto.offset.reset} =
     * {@code earliest}.
     */
    @Test
    void aCommittedOffsetBelowTheLogStartWithNoResetStartsAtTheEarliestUnderSkip()
            throws Exception {
        String topic = tenPerPartition(1);
        String group = committedBelowTheLogsStart(topic);
        String common =
                topicOptions(topic)
                        + "'properties.group.id' = '"
                        + group
                        + "', 'scan.startup.mode' = 'group-offsets',"
                        + " 'scan.bounded.mode' = 'latest-offset', 'format' = 'json', ";
        TableEnvironment tEnv = tables();
        tEnv.executeSql(
                ddl(
                        "kafka_t",
                        "kafka",
                        OFFSET_COLUMNS,
                        common + "'properties.auto.offset.reset' = 'earliest'"));
        tEnv.executeSql(
                ddl(
                        "backfill_t",
                        "kafka-backfill",
                        OFFSET_COLUMNS,
                        common + "'backfill.offset-gap-policy' = 'SKIP'"));
        List<String> expected = rows(tEnv, "SELECT * FROM kafka_t");
        assertThat(expected).hasSize(5);
        assertThat(rows(tEnv, "SELECT * FROM backfill_t"))
                .containsExactlyInAnyOrderElementsOf(expected);
    }

    // ------------------------------------------------------------------ helpers

    /**
     * Creates the table under {@code kafka} and under {@code kafka-backfill} with the same columns
     * and options, runs the query ({@code %s} the table) on each, and checks that both give the
     * same rows; returns them.
     */
    private static List<String> sameRows(String columns, String options, String query)
            throws Exception {
        TableEnvironment tEnv = tables();
        tEnv.executeSql(ddl("kafka_t", "kafka", columns, options));
        tEnv.executeSql(ddl("backfill_t", "kafka-backfill", columns, options));
        List<String> expected = rows(tEnv, String.format(query, "kafka_t"));
        assertThat(rows(tEnv, String.format(query, "backfill_t")))
                .as("kafka-backfill's rows, against kafka's")
                .containsExactlyInAnyOrderElementsOf(expected);
        return expected;
    }

    /** The rows of a bounded query, as strings, after the job finished without a restart. */
    private static List<String> rows(TableEnvironment tEnv, String query) throws Exception {
        TableResult result = tEnv.executeSql(query);
        JobClient job = result.getJobClient().orElseThrow();
        List<String> rows = new ArrayList<>();
        try (CloseableIterator<Row> it = result.collect()) {
            it.forEachRemaining(row -> rows.add(row.toString()));
        }
        assertThat(RESTARTS.restartsOf(job, Duration.ofSeconds(30))).as("restarts").isZero();
        return rows;
    }

    private static TableEnvironment tables() {
        TableEnvironment tEnv = TableEnvironment.create(EnvironmentSettings.inStreamingMode());
        tEnv.getConfig().set("parallelism.default", "2");
        tEnv.getConfig().set("restart-strategy.type", "none");
        return tEnv;
    }

    private static String ddl(String table, String connector, String columns, String options) {
        return "CREATE TABLE "
                + table
                + " ("
                + columns
                + ") WITH ('connector' = '"
                + connector
                + "', "
                + options
                + ")";
    }

    private static String topicOptions(String topic) {
        return "'topic' = '"
                + topic
                + "', 'properties.bootstrap.servers' = '"
                + KAFKA.bootstrapServers()
                + "', ";
    }

    /** The topic from its earliest offsets to its end offsets at the start. */
    private static String bounded(String topic) {
        return topicOptions(topic)
                + "'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset', ";
    }

    private static String stackOf(Throwable e) {
        return ExceptionUtils.stringifyException(e);
    }
}
