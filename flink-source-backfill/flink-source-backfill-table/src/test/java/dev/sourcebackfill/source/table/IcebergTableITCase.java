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

import dev.sourcebackfill.source.iceberg.IcebergTestTables;
import dev.sourcebackfill.source.iceberg.IcebergTestTables.Kind;
import dev.sourcebackfill.source.kafka.KafkaTestEnvironment;
import dev.sourcebackfill.source.testutils.RestartCounter;

import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;

import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.data.Record;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * The {@code backfill.iceberg.*} options through SQL: a topic's history from an Iceberg table (a
 * Hadoop catalog on the local file system, tables written with Iceberg's generic Parquet writer),
 * then the topic, on a MiniCluster. Each partition's rows below the handover come from the table
 * (their values say so), the rest from the topic; the topic's own history below the handover is
 * deleted, so a source that read it instead of the table would miss rows.
 */
class IcebergTableITCase {

    private static final RestartCounter RESTARTS = new RestartCounter();

    @RegisterExtension static final MiniClusterExtension CLUSTER = RESTARTS.miniCluster();

    @RegisterExtension static final KafkaTestEnvironment KAFKA = new KafkaTestEnvironment();

    private static final long BASE_MILLIS = IcebergTestTables.BASE_MILLIS;

    @TempDir static Path warehouse;

    /**
     * Redpanda's layout, values through the table's JSON format (the value column's bytes): 3
     * partitions, the table holding offsets [0, 600) of partition 0 and [0, 300) of partition 1 in
     * files mixing both, partition 2 none (read from the topic's start); every metadata column of
     * the rebuilt records. With a chunk size, the table's files read in chunks by both readers.
     */
    @ParameterizedTest(name = "chunk size {0} (0: the default)")
    @ValueSource(longs = {0, 250})
    void redpandaValuesThroughTheFormat(long chunkSize) throws Exception {
        String topic = "rp-" + UUID.randomUUID();
        int[] inTable = {600, 300, 0};
        KAFKA.createTopic(topic, 3);
        KAFKA.produce(
                3, 0, 1_000, (p, o) -> new ProducerRecord<>(topic, p, "k" + o, json(o, "p-" + o)));
        KAFKA.deleteRecordsBelow(topic, 0, 600);
        KAFKA.deleteRecordsBelow(topic, 1, 300);

        String table = "redpanda." + topic.replace('-', '_');
        Table iceberg = IcebergTestTables.create(catalog(), table, Kind.REDPANDA);
        // three files (one commit each), each mixing partitions 0 and 1
        for (int file = 0; file < 3; file++) {
            List<Record> rows = new ArrayList<>();
            for (int p = 0; p < 2; p++) {
                for (int o = file * 200; o < Math.min(inTable[p], file * 200 + 200); o++) {
                    rows.add(
                            IcebergTestTables.row(
                                    Kind.REDPANDA,
                                    iceberg.schema(),
                                    topic,
                                    p,
                                    o,
                                    json(o, "table-" + o)));
                }
            }
            IcebergTestTables.append(iceberg, rows);
        }

        TableEnvironment tEnv = tables();
        tEnv.executeSql(
                "CREATE TABLE orders (id BIGINT, payload STRING,"
                        + " k STRING,"
                        + " `topic` STRING METADATA VIRTUAL,"
                        + " `partition` INT METADATA VIRTUAL,"
                        + " `offset` BIGINT METADATA VIRTUAL,"
                        + " ts TIMESTAMP_LTZ(3) METADATA FROM 'timestamp' VIRTUAL,"
                        + " `origin` STRING METADATA VIRTUAL"
                        + ") WITH ("
                        + common(topic)
                        + ", 'key.format' = 'raw', 'key.fields' = 'k',"
                        + " 'value.format' = 'json', 'value.fields-include' = 'EXCEPT_KEY',"
                        + icebergOptions(table, "redpanda")
                        + (chunkSize > 0 ? ", 'backfill.chunk-size' = '" + chunkSize + "'" : "")
                        + ")");
        Map<Integer, List<String>> rows = new TreeMap<>();
        for (Row row :
                collect(
                        tEnv,
                        "SELECT `partition`, `offset`, id, payload, k, `topic`, `origin`, ts"
                                + " FROM orders")) {
            int p = row.<Integer>getFieldAs(0);
            long o = row.<Long>getFieldAs(1);
            assertThat(row.getField(5)).isEqualTo(topic);
            if ("backfill".equals(row.getField(6))) {
                // the table's timestamp column, through the rebuilt record
                assertThat(row.<Instant>getFieldAs(7))
                        .isEqualTo(Instant.ofEpochMilli(BASE_MILLIS + o));
            }
            rows.computeIfAbsent(p, k -> new ArrayList<>())
                    .add(
                            o
                                    + ":"
                                    + row.getField(2)
                                    + ":"
                                    + row.getField(3)
                                    + ":"
                                    + row.getField(4)
                                    + ":"
                                    + row.getField(6));
        }
        for (int p = 0; p < 3; p++) {
            int n = inTable[p];
            List<String> expected =
                    expected(
                            1_000,
                            o ->
                                    o < n
                                            ? o + ":" + o + ":table-" + o + ":k" + o + ":backfill"
                                            : o + ":" + o + ":p-" + o + ":k" + o + ":live");
            // each partition goes live at once, beside the table's read: no order between
            // history and live rows, nor across files mixing partitions (docs/iceberg.md)
            assertThat(rows.get(p))
                    .as("partition %d", p)
                    .containsExactlyInAnyOrderElementsOf(expected);
        }
    }

    /**
     * The Kafka Connect sink's layout, its value's fields kept as columns: each SQL column from the
     * Iceberg column of its name (COLUMNS, the default without a value column), the metadata from
     * the layout's columns; rows of another topic in the same table skipped; a query reading some
     * columns only (projection pushed into the source).
     */
    @Test
    void kafkaConnectColumnsByName() throws Exception {
        String topic = "kc-" + UUID.randomUUID();
        int[] inTable = {400, 100};
        KAFKA.createTopic(topic, 2);
        KAFKA.produce(2, 0, 500, (p, o) -> new ProducerRecord<>(topic, p, "k", json(o, "p-" + o)));
        KAFKA.deleteRecordsBelow(topic, 0, 400);
        KAFKA.deleteRecordsBelow(topic, 1, 100);

        String table = "connect." + topic.replace('-', '_');
        Table iceberg = IcebergTestTables.create(catalog(), table, Kind.KAFKA_CONNECT);
        List<Record> rows = new ArrayList<>();
        for (int p = 0; p < 2; p++) {
            for (int o = 0; o < inTable[p]; o++) {
                rows.add(
                        IcebergTestTables.row(
                                Kind.KAFKA_CONNECT, iceberg.schema(), topic, p, o, "table-" + o));
                // another topic's rows in the same files: not this table's history
                rows.add(
                        IcebergTestTables.row(
                                Kind.KAFKA_CONNECT,
                                iceberg.schema(),
                                "another-topic",
                                p,
                                o + 10_000,
                                "other-" + o));
            }
        }
        IcebergTestTables.append(iceberg, rows);

        TableEnvironment tEnv = tables();
        tEnv.executeSql(
                "CREATE TABLE kc (payload STRING,"
                        + " `partition` INT METADATA VIRTUAL,"
                        + " `offset` BIGINT METADATA VIRTUAL,"
                        + " ts TIMESTAMP_LTZ(3) METADATA FROM 'timestamp' VIRTUAL,"
                        + " `origin` STRING METADATA VIRTUAL"
                        + ") WITH ("
                        + common(topic)
                        + ", 'format' = 'json',"
                        + icebergOptions(table, "kafka-connect")
                        + ")");
        Map<Integer, List<String>> read = new TreeMap<>();
        for (Row row :
                collect(tEnv, "SELECT `partition`, `offset`, payload, `origin`, ts FROM kc")) {
            long o = row.<Long>getFieldAs(1);
            if ("backfill".equals(row.getField(3))) {
                assertThat(row.<Instant>getFieldAs(4))
                        .isEqualTo(Instant.ofEpochMilli(BASE_MILLIS + o));
            }
            read.computeIfAbsent(row.<Integer>getFieldAs(0), k -> new ArrayList<>())
                    .add(o + ":" + row.getField(2) + ":" + row.getField(3));
        }
        for (int p = 0; p < 2; p++) {
            int n = inTable[p];
            assertThat(read.get(p))
                    .as("partition %d", p)
                    .containsExactlyInAnyOrderElementsOf(
                            expected(
                                    500,
                                    o ->
                                            o < n
                                                    ? o + ":table-" + o + ":backfill"
                                                    : o + ":p-" + o + ":live"));
        }
        // the physical column alone (projection) with the offset
        List<Row> all = collect(tEnv, "SELECT payload, `offset` FROM kc");
        assertThat(all).hasSize(1_000);
        for (Row row : all) {
            assertThat((String) row.getFieldAs(0)).endsWith("-" + row.getField(1));
        }
    }

    /**
     * The Iceberg DDL of the README (Redpanda, through the JSON format) and of docs/iceberg.md
     * (Kafka Connect, column by column), as written but for the broker's address and the catalog (a
     * Hadoop catalog here): both planned and read, the table's rows marked {@code backfill}.
     */
    @Test
    void theDocumentedDdlRunsAsWritten() throws Exception {
        String topic = "orders";
        KAFKA.createTopic(topic, 1);
        KAFKA.produce(
                1,
                0,
                10,
                (p, o) ->
                        new ProducerRecord<>(
                                topic,
                                p,
                                "k",
                                "{\"user\":\"u"
                                        + o
                                        + "\",\"amount\":"
                                        + o
                                        + ",\"id\":"
                                        + o
                                        + ",\"payload\":\"p-"
                                        + o
                                        + "\"}"));
        KAFKA.deleteRecordsBelow(topic, 0, 4);
        Catalog catalog = catalog();
        Table redpanda = IcebergTestTables.create(catalog, "redpanda.orders", Kind.REDPANDA);
        Table connect = IcebergTestTables.create(catalog, "db.orders", Kind.KAFKA_CONNECT);
        List<Record> redpandaRows = new ArrayList<>();
        List<Record> connectRows = new ArrayList<>();
        for (int o = 0; o < 4; o++) {
            redpandaRows.add(
                    IcebergTestTables.row(
                            Kind.REDPANDA,
                            redpanda.schema(),
                            topic,
                            0,
                            o,
                            "{\"user\":\"t" + o + "\",\"amount\":" + o + "}"));
            connectRows.add(
                    IcebergTestTables.row(
                            Kind.KAFKA_CONNECT, connect.schema(), topic, 0, o, "table-" + o));
        }
        IcebergTestTables.append(redpanda, redpandaRows);
        IcebergTestTables.append(connect, connectRows);
        String hadoop =
                "'backfill.iceberg.catalog.type' = 'hadoop',\n"
                        + "  'backfill.iceberg.catalog.warehouse' = '"
                        + warehouse.toUri()
                        + "'";
        for (String[] doc :
                new String[][] {
                    {"../../README.md", "orders_lake", "`user`"},
                    {"../../docs/iceberg.md", "connect_orders", "payload"}
                }) {
            String text = Files.readString(Path.of(doc[0]));
            int start = text.indexOf("```sql\nCREATE TABLE " + doc[1]);
            assertThat(start).as("the DDL in %s", doc[0]).isPositive();
            String written = text.substring(start + 7, text.indexOf("```", start + 7));
            String ddl =
                    written.trim()
                            .replace(";", "")
                            .replace("broker-1:9092", KAFKA.bootstrapServers())
                            .replaceAll(
                                    "'backfill\\.iceberg\\.catalog\\.type' = '[a-z]+',\n"
                                            + "  'backfill\\.iceberg\\.catalog\\.(uri|warehouse)'"
                                            + " = '[^']+'",
                                    hadoop)
                            .replace(
                                    "'format' = 'json'",
                                    "'format' = 'json', 'scan.bounded.mode' = 'latest-offset'");
            assertThat(ddl)
                    .as("the catalog of %s replaced", doc[0])
                    .contains(warehouse.toUri().toString());
            TableEnvironment tEnv = tables();
            tEnv.executeSql(ddl);
            List<Row> rows =
                    collect(tEnv, "SELECT " + doc[2] + ", `offset`, `origin` FROM " + doc[1]);
            List<String> read = new ArrayList<>();
            for (Row row : rows) {
                read.add(row.getField(0) + "@" + row.getField(1) + ":" + row.getField(2));
            }
            List<String> expected = new ArrayList<>();
            for (int o = 0; o < 10; o++) {
                String value =
                        doc[2].equals("payload")
                                ? (o < 4 ? "table-" : "p-") + o
                                : (o < 4 ? "t" : "u") + o;
                expected.add(value + "@" + o + ":" + (o < 4 ? "backfill" : "live"));
            }
            assertThat(read).as(doc[0]).containsExactlyInAnyOrderElementsOf(expected);
        }
    }

    /** Wrong Iceberg options fail when the query is planned, naming the option or column. */
    @Test
    void icebergOptionErrorsFailAtPlanningNamingTheOption() throws Exception {
        String topic = "errors-" + UUID.randomUUID();
        KAFKA.createTopic(topic, 1);
        String catalogOptions =
                "'backfill.iceberg.catalog.type' = 'hadoop', 'backfill.iceberg.catalog.warehouse'"
                        + " = 'file:///tmp/none'";
        assertPlanningFails(
                "t1",
                "v STRING",
                topic,
                "'format' = 'raw', 'backfill.iceberg.table' = 'ns.t', " + catalogOptions,
                "backfill.iceberg.layout");
        assertPlanningFails(
                "t2",
                "v STRING",
                topic,
                "'format' = 'raw', 'backfill.iceberg.table' = 'ns.t', 'backfill.iceberg.layout' ="
                        + " 'kinesis', "
                        + catalogOptions,
                "backfill.iceberg.layout");
        assertPlanningFails(
                "t3",
                "v STRING",
                topic,
                "'format' = 'raw', 'backfill.iceberg.table' = 'ns.t', 'backfill.iceberg.layout' ="
                        + " 'custom', 'backfill.iceberg.offset-column' = 'o',"
                        + " 'backfill.iceberg.timestamp-column' = 't', "
                        + catalogOptions,
                "backfill.iceberg.partition-column");
        assertPlanningFails(
                "t4",
                "v STRING",
                topic,
                "'format' = 'raw', 'backfill.iceberg.table' = 'ns.t', 'backfill.iceberg.layout' ="
                        + " 'redpanda', 'backfill.iceberg.catalog.uri' = 'http://127.0.0.1:1'",
                "backfill.iceberg.catalog.type");
        assertPlanningFails(
                "t5",
                "v STRING",
                topic,
                "'format' = 'raw', 'backfill.iceberg.layout' = 'redpanda'",
                "backfill.iceberg.table");
        assertPlanningFails(
                "t6",
                "v STRING",
                topic,
                "'format' = 'raw', " + catalogOptions,
                "backfill.iceberg.table");
        assertPlanningFails(
                "t7",
                "v STRING",
                topic,
                "'format' = 'raw', 'backfill.iceberg.table' = 'ns.t', 'backfill.iceberg.layout' ="
                        + " 'redpanda', 'backfill.archive.path' = 'file:///tmp/none', "
                        + catalogOptions,
                "backfill.archive.path");
        assertPlanningFails(
                "t8",
                "v STRING",
                topic,
                "'format' = 'raw', 'backfill.iceberg.table' = 'ns.t', 'backfill.iceberg.layout' ="
                        + " 'kafka-connect', 'backfill.iceberg.values' = 'FORMAT', "
                        + catalogOptions,
                "backfill.iceberg.values");
        assertPlanningFails(
                "t9",
                "v STRING, tags ARRAY<STRING>",
                topic,
                "'format' = 'json', 'backfill.iceberg.table' = 'ns.t', 'backfill.iceberg.layout' ="
                        + " 'kafka-connect', "
                        + catalogOptions,
                "tags");
        assertPlanningFails(
                "t10",
                "v STRING, h MAP<STRING, BYTES> METADATA FROM 'headers'",
                topic,
                "'format' = 'json', 'backfill.iceberg.table' = 'ns.t', 'backfill.iceberg.layout' ="
                        + " 'kafka-connect', "
                        + catalogOptions,
                "headers");
        assertPlanningFails(
                "t11",
                "v STRING",
                topic,
                "'format' = 'raw', 'backfill.iceberg.table' = '', 'backfill.iceberg.layout' ="
                        + " 'redpanda', "
                        + catalogOptions,
                "backfill.iceberg.table");
        assertPlanningFails(
                "t13",
                "v STRING",
                topic + ";other-topic",
                "'format' = 'raw', 'backfill.iceberg.table' = 'ns.t', 'backfill.iceberg.layout' ="
                        + " 'redpanda', "
                        + catalogOptions,
                "backfill.iceberg.topic-column");
        // issue 34, item 2: the snapshot tag's options
        assertPlanningFails(
                "t14",
                "v STRING",
                topic,
                "'format' = 'raw', 'backfill.iceberg.table' = 'ns.t', 'backfill.iceberg.layout' ="
                        + " 'redpanda', 'backfill.iceberg.snapshot-tag' = 'job',"
                        + " 'backfill.iceberg.snapshot-tag.max-age' = '-1 h', "
                        + catalogOptions,
                "backfill.iceberg.snapshot-tag.max-age");
        assertPlanningFails(
                "t15",
                "v STRING",
                topic,
                "'format' = 'raw', 'backfill.iceberg.table' = 'ns.t', 'backfill.iceberg.layout' ="
                        + " 'redpanda', 'backfill.iceberg.snapshot-tag' = '', "
                        + catalogOptions,
                "backfill.iceberg.snapshot-tag");
        // a topic pattern: the table's history is per listed topic
        TableEnvironment tEnv = tables();
        tEnv.executeSql(
                "CREATE TABLE t12 (v STRING) WITH ('connector' = 'kafka-backfill',"
                        + " 'topic-pattern' = 'x.*', 'properties.bootstrap.servers' = '"
                        + KAFKA.bootstrapServers()
                        + "', 'scan.startup.mode' = 'earliest-offset', 'format' = 'raw',"
                        + " 'backfill.iceberg.table' = 'ns.t', 'backfill.iceberg.layout' ="
                        + " 'redpanda', "
                        + catalogOptions
                        + ")");
        assertFailsNaming(tEnv, "t12", "topic-pattern");
    }

    // ------------------------------------------------------------------ helpers

    private static String common(String topic) {
        return "'connector' = 'kafka-backfill', 'topic' = '"
                + topic
                + "', 'properties.bootstrap.servers' = '"
                + KAFKA.bootstrapServers()
                + "', 'scan.startup.mode' = 'earliest-offset',"
                + " 'scan.bounded.mode' = 'latest-offset'";
    }

    private static String icebergOptions(String table, String layout) {
        return " 'backfill.iceberg.table' = '"
                + table
                + "', 'backfill.iceberg.layout' = '"
                + layout
                + "', 'backfill.iceberg.catalog.type' = 'hadoop',"
                + " 'backfill.iceberg.catalog.warehouse' = '"
                + warehouse.toUri()
                + "'";
    }

    private static Catalog catalog() {
        return IcebergTestTables.open("iceberg", IcebergTestTables.hadoopCatalog(warehouse));
    }

    private static List<String> expected(int offsets, Function<Integer, String> row) {
        List<String> expected = new ArrayList<>();
        for (int o = 0; o < offsets; o++) {
            expected.add(row.apply(o));
        }
        return expected;
    }

    private static String json(long id, String payload) {
        return "{\"id\":" + id + ",\"payload\":\"" + payload + "\"}";
    }

    private static void assertPlanningFails(
            String table, String columns, String topic, String options, String named) {
        TableEnvironment tEnv = tables();
        tEnv.executeSql(
                "CREATE TABLE "
                        + table
                        + " ("
                        + columns
                        + ") WITH ('connector' = 'kafka-backfill', 'topic' = '"
                        + topic
                        + "', 'properties.bootstrap.servers' = '"
                        + KAFKA.bootstrapServers()
                        + "', 'scan.startup.mode' = 'earliest-offset', "
                        + options
                        + ")");
        assertFailsNaming(tEnv, table, named);
    }

    /**
     * Planning fails with our factory's ValidationException naming {@code named} (its own message,
     * not Flink's wrapper, which lists every option of the table).
     */
    private static void assertFailsNaming(TableEnvironment tEnv, String table, String named) {
        Throwable thrown = catchThrowable(() -> tEnv.explainSql("SELECT * FROM " + table));
        String ours = null;
        for (Throwable t = thrown; t != null; t = t.getCause()) {
            if (t instanceof ValidationException
                    && !String.valueOf(t.getMessage()).startsWith("Unable to create a source")) {
                ours = t.getMessage();
                break;
            }
        }
        assertThat(ours)
                .as("the ValidationException of planning %s (threw %s)", table, thrown)
                .isNotNull()
                .contains(named);
    }

    private static TableEnvironment tables() {
        TableEnvironment tEnv = TableEnvironment.create(EnvironmentSettings.inStreamingMode());
        tEnv.getConfig().set("parallelism.default", "2");
        tEnv.getConfig().set("restart-strategy.type", "none");
        tEnv.getConfig().set("execution.checkpointing.interval", "200 ms");
        return tEnv;
    }

    private static List<Row> collect(TableEnvironment tEnv, String query) throws Exception {
        List<Row> rows = new ArrayList<>();
        try (CloseableIterator<Row> it = tEnv.executeSql(query).collect()) {
            it.forEachRemaining(rows::add);
        }
        return rows;
    }
}
