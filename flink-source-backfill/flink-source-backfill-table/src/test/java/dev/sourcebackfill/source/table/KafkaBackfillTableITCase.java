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

import dev.sourcebackfill.source.kafka.FailOnce;
import dev.sourcebackfill.source.kafka.KafkaExactlyOnceChecker;
import dev.sourcebackfill.source.kafka.KafkaTestEnvironment;
import dev.sourcebackfill.source.kafka.PartitionDigest;
import dev.sourcebackfill.source.kafka.PartitionRecord;
import dev.sourcebackfill.source.testutils.RestartCounter;

import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.formats.avro.AvroRowDataSerializationSchema;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;
import org.apache.flink.util.ExceptionUtils;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Queue;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The {@code kafka-backfill} table connector planned by Flink's planner against an in-process
 * broker: history and live records through SQL, exactly once per partition across a failure at the
 * handover; every metadata column; key and value formats; option errors at planning time.
 */
class KafkaBackfillTableITCase {

    private static final RestartCounter RESTARTS = new RestartCounter();

    @RegisterExtension static final MiniClusterExtension CLUSTER = RESTARTS.miniCluster();

    @RegisterExtension static final KafkaTestEnvironment KAFKA = new KafkaTestEnvironment();

    /**
     * 3 partitions of history, then live records while the job runs, read through a SQL table with
     * its partition and offset as metadata columns, a failure at partition 0's first live record:
     * per partition, every record once and in order, as the topic holds them. With {@code
     * 'backfill.chunk-size'}, each partition's history in chunks of 300 rows read by both readers:
     * every record once, in order within a chunk.
     */
    @ParameterizedTest(name = "chunk size {0} (0: no chunks)")
    @ValueSource(longs = {0, 300})
    void historyThenLiveThroughSqlExactlyOnceWithAFailureAtTheHandover(long chunkSize)
            throws Exception {
        String topic = "sql-" + UUID.randomUUID();
        KAFKA.createTopic(topic, 3);
        produce(topic, 3, 0, 1_000);

        Configuration conf = new Configuration();
        conf.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
        conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 3);
        conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofMillis(200));
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(2);
        env.enableCheckpointing(200);
        StreamTableEnvironment tEnv = StreamTableEnvironment.create(env);
        tEnv.executeSql(
                "CREATE TABLE orders (\n"
                        + "  id BIGINT,\n"
                        + "  payload STRING,\n"
                        + "  `topic` STRING METADATA VIRTUAL,\n"
                        + "  `partition` INT METADATA VIRTUAL,\n"
                        + "  `offset` BIGINT METADATA VIRTUAL,\n"
                        + "  `origin` STRING METADATA VIRTUAL\n"
                        + ") WITH (\n"
                        + "  'connector' = 'kafka-backfill',\n"
                        + "  'topic' = '"
                        + topic
                        + "',\n"
                        + "  'properties.bootstrap.servers' = '"
                        + KAFKA.bootstrapServers()
                        + "',\n"
                        + "  'scan.startup.mode' = 'earliest-offset',\n"
                        + "  'backfill.poll-timeout' = '20 ms',\n"
                        // the history at most 2 x 2,000 rows per second, the live rows unlimited
                        + "  'backfill.rate-limit.records-per-second' = '2000',\n"
                        + (chunkSize > 0 ? "  'backfill.chunk-size' = '" + chunkSize + "',\n" : "")
                        + "  'format' = 'json'\n"
                        + ")");
        String run = UUID.randomUUID().toString();
        tEnv.toDataStream(tEnv.sqlQuery("SELECT * FROM orders"))
                .map(new Origins(run))
                .map(KafkaBackfillTableITCase::partitionRecord)
                .returns(TypeInformation.of(PartitionRecord.class))
                .map(FailOnce.atOffset(run, topic + "-0", 1_000))
                .keyBy(PartitionRecord::partitionKey)
                .process(new KafkaExactlyOnceChecker(run, chunkSize > 0))
                .sinkTo(new DiscardingSink<>());
        JobClient job = env.executeAsync("sql " + run);

        KafkaExactlyOnceChecker.awaitCount(run, topic + "-1", 1_000, Duration.ofSeconds(120));
        produce(topic, 3, 1_000, 1_500); // live
        Map<String, PartitionDigest> truth =
                chunkSize > 0
                        ? PartitionDigest.unorderedOf(KAFKA.readAll(topic, false))
                        : KAFKA.digests(topic, false);
        KafkaExactlyOnceChecker.awaitDigests(run, truth, Duration.ofSeconds(120));
        job.cancel().get(30, TimeUnit.SECONDS);

        assertThat(KafkaExactlyOnceChecker.violations(run)).isEmpty();
        assertThat(Origins.WRONG.getOrDefault(run, new ConcurrentLinkedQueue<>()))
                .as("history rows not marked backfill")
                .isEmpty();
        assertThat(Origins.LIVE.getOrDefault(run, new AtomicLong()).get())
                .as("rows marked live")
                .isPositive();
        assertThat(FailOnce.firedAtOffset(run, topic + "-0", 1_000)).isTrue();
        assertThat(RESTARTS.restartsOf(job, Duration.ofSeconds(30))).as("restarts").isEqualTo(1);
    }

    /**
     * {@code WATERMARK FOR} in the DDL: a tumbling-window count per partition over history and live
     * records, read as they arrive, equals the same query run as a batch over the same records
     * afterwards (the windows that the last records' watermark closed).
     */
    @Test
    void aWindowedAggregateOverHistoryAndLiveEqualsTheSameQueryAsABatch() throws Exception {
        String topic = "windows-" + UUID.randomUUID();
        KAFKA.createTopic(topic, 3);
        long base = 1_700_000_000_000L;
        produceTimed(topic, 0, 3_000, base); // history
        String columns =
                "id BIGINT, ts_ms BIGINT, ts AS TO_TIMESTAMP_LTZ(ts_ms, 3),"
                        + " `partition` INT METADATA VIRTUAL,"
                        + " WATERMARK FOR ts AS ts - INTERVAL '1' SECOND";
        String query =
                "SELECT `partition`, window_start, COUNT(*) AS n FROM TABLE(TUMBLE(TABLE w,"
                        + " DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY `partition`,"
                        + " window_start, window_end";
        // the last records (id 5,000) stand at base + 500 s: windows before base + 490 s close
        long closed = base + 490_000;

        TableEnvironment streaming = TableEnvironment.create(EnvironmentSettings.inStreamingMode());
        streaming.getConfig().set("parallelism.default", "2");
        streaming.getConfig().set("table.local-time-zone", "UTC");
        streaming.getConfig().set("restart-strategy.type", "none");
        streaming.getConfig().set("execution.checkpointing.interval", "200 ms");
        streaming.executeSql(
                "CREATE TABLE w ("
                        + columns
                        + ") WITH ('connector' = 'kafka-backfill', 'topic' = '"
                        + topic
                        + "', 'properties.bootstrap.servers' = '"
                        + KAFKA.bootstrapServers()
                        + "', 'scan.startup.mode' = 'earliest-offset', 'format' = 'json',"
                        + " 'backfill.poll-timeout' = '20 ms')");
        List<String> live = new ArrayList<>();
        try (CloseableIterator<Row> it = streaming.executeSql(query).collect()) {
            produceTimed(topic, 3_000, 5_001, base); // live, while the query runs
            // 3 partitions x 49 closed windows of 100 records each
            while (live.size() < 3 * 49) {
                Row row = it.next();
                if (windowStart(row) < closed) {
                    live.add(windowRow(row));
                }
            }
        }

        TableEnvironment batch = TableEnvironment.create(EnvironmentSettings.inBatchMode());
        batch.getConfig().set("parallelism.default", "2");
        batch.getConfig().set("table.local-time-zone", "UTC");
        batch.executeSql(ddl("w", columns, topic, "'format' = 'json'"));
        List<String> expected = new ArrayList<>();
        for (Row row : collect(batch, query)) {
            if (windowStart(row) < closed) {
                expected.add(windowRow(row));
            }
        }
        assertThat(expected).hasSize(3 * 49);
        assertThat(live).containsExactlyInAnyOrderElementsOf(expected);
    }

    private static String windowRow(Row row) {
        return row.getField(0) + "@" + windowStart(row) + "=" + row.getField(2);
    }

    /** A window's start in epoch milliseconds (the session time zone is UTC). */
    private static long windowStart(Row row) {
        return row.<LocalDateTime>getFieldAs("window_start")
                .toInstant(ZoneOffset.UTC)
                .toEpochMilli();
    }

    /** Records [from, to) in every partition, record i at base + i * 100 ms. */
    private static void produceTimed(String topic, int from, int to, long base) throws Exception {
        KAFKA.produce(
                3,
                from,
                to,
                (p, i) ->
                        new ProducerRecord<>(
                                topic,
                                p,
                                "k",
                                "{\"id\":" + i + ",\"ts_ms\":" + (base + i * 100L) + "}"));
    }

    /**
     * Checks the origin column: the history at the start (offsets below 1,000) is read by the
     * backfill; some rows must come live.
     */
    static final class Origins implements MapFunction<Row, Row> {
        static final Map<String, Queue<String>> WRONG = new ConcurrentHashMap<>();
        static final Map<String, AtomicLong> LIVE = new ConcurrentHashMap<>();
        private final String run;

        Origins(String run) {
            this.run = run;
        }

        @Override
        public Row map(Row row) {
            String origin = row.getFieldAs("origin");
            long offset = row.<Long>getFieldAs("offset");
            if (offset < 1_000 && !"backfill".equals(origin)) {
                WRONG.computeIfAbsent(run, k -> new ConcurrentLinkedQueue<>())
                        .add(row.getField("partition") + "@" + offset + ": " + origin);
            }
            if ("live".equals(origin)) {
                LIVE.computeIfAbsent(run, k -> new AtomicLong()).incrementAndGet();
            } else if (!"backfill".equals(origin)) {
                WRONG.computeIfAbsent(run, k -> new ConcurrentLinkedQueue<>())
                        .add(row.getField("partition") + "@" + offset + ": " + origin);
            }
            return row;
        }
    }

    /**
     * {@code backfill.archive.path}: each partition's history from an archive of JSON lines in the
     * Kafka Connect layout, then the topic after the last archived offset; partition 0's archive
     * overlaps the topic, partition 1's meets it (retention deleted what the archive holds). Every
     * offset once, the archived ones from the archive (their payload says so) and marked {@code
     * backfill}, the others from the topic and marked {@code live}. With {@code
     * 'backfill.chunk-size'} as well, each archive is read in chunks of file runs by both readers:
     * the same rows, in no order across chunks.
     */
    @ParameterizedTest(name = "chunk size {0} (0: no chunks)")
    @ValueSource(longs = {0, 200})
    void anArchiveThenTheTopicThroughSql(long chunkSize, @TempDir java.nio.file.Path archive)
            throws Exception {
        String topic = "archive-" + UUID.randomUUID();
        KAFKA.createTopic(topic, 2);
        produce(topic, 2, 0, 1_000);
        for (int p = 0; p < 2; p++) {
            java.nio.file.Path dir = archive.resolve(topic).resolve("partition=" + p);
            Files.createDirectories(dir);
            for (int from = 0; from < 600; from += 200) {
                StringBuilder lines = new StringBuilder();
                for (int o = from; o < from + 200; o++) {
                    lines.append("{\"id\":")
                            .append(o)
                            .append(",\"payload\":\"archived-")
                            .append(o)
                            .append("\"}\n");
                }
                Files.writeString(
                        dir.resolve(String.format("%s+%d+%010d.json", topic, p, from)),
                        lines.toString());
            }
        }
        KAFKA.deleteRecordsBelow(topic, 1, 600);

        TableEnvironment tEnv = boundedTables();
        tEnv.getConfig().set("execution.checkpointing.interval", "200 ms");
        tEnv.executeSql(
                ddl(
                        "archived",
                        "id BIGINT, payload STRING, `partition` INT METADATA VIRTUAL,"
                                + " `offset` BIGINT METADATA VIRTUAL,"
                                + " `origin` STRING METADATA VIRTUAL",
                        topic,
                        "'format' = 'json', 'backfill.archive.path' = '"
                                + archive.toUri()
                                + "'"
                                + (chunkSize > 0
                                        ? ", 'backfill.chunk-size' = '" + chunkSize + "'"
                                        : "")));
        Map<Integer, List<String>> rows = new TreeMap<>();
        for (Row row :
                collect(
                        tEnv,
                        "SELECT `partition`, `offset`, id, payload, `origin` FROM archived")) {
            rows.computeIfAbsent(row.<Integer>getFieldAs(0), k -> new ArrayList<>())
                    .add(
                            row.getField(1)
                                    + ":"
                                    + row.getField(2)
                                    + ":"
                                    + row.getField(3)
                                    + ":"
                                    + row.getField(4));
        }
        for (int p = 0; p < 2; p++) {
            List<String> expected = new ArrayList<>();
            for (int o = 0; o < 1_000; o++) {
                expected.add(
                        o < 600
                                ? o + ":" + o + ":archived-" + o + ":backfill"
                                : o + ":" + o + ":p-" + o + ":live");
            }
            if (chunkSize > 0) {
                assertThat(rows.get(p))
                        .as("partition %d", p)
                        .containsExactlyInAnyOrderElementsOf(expected);
            } else {
                assertThat(rows.get(p)).as("partition %d", p).containsExactlyElementsOf(expected);
            }
        }
    }

    /**
     * The DDL of the README's SQL section and of docs/sql.md, as written (the broker's address
     * replaced): planned, bounded to the topic's end, and read; the topic found through a pattern.
     */
    @Test
    void theDocumentedDdlRunsAsWritten() throws Exception {
        String topic = "orders";
        KAFKA.createTopic(topic, 2);
        KAFKA.produce(
                1,
                0,
                10,
                (ignored, i) ->
                        new ProducerRecord<>(
                                topic,
                                (int) i % 2,
                                "k",
                                "{\"user\":\"u"
                                        + i
                                        + "\",\"amount\":"
                                        + i
                                        + ",\"ts_ms\":"
                                        + i
                                        + "}"));
        for (String doc : List.of("../../README.md", "../../docs/sql.md")) {
            String text = Files.readString(java.nio.file.Path.of(doc));
            int start = text.indexOf("```sql\nCREATE TABLE orders (");
            assertThat(start).as("the DDL in %s", doc).isPositive();
            String ddl =
                    text.substring(start + 7, text.indexOf("```", start + 7))
                            .trim()
                            .replace(";", "")
                            .replace("broker-1:9092", KAFKA.bootstrapServers())
                            .replace(
                                    "'format' = 'json'",
                                    "'format' = 'json', 'scan.bounded.mode' = 'latest-offset'");
            TableEnvironment tEnv = boundedTables();
            tEnv.executeSql(ddl);
            assertThat(collect(tEnv, "SELECT `user`, amount FROM orders")).as(doc).hasSize(10);
        }
        TableEnvironment tEnv = boundedTables();
        tEnv.executeSql(
                "CREATE TABLE by_pattern (`user` STRING) WITH ('connector' = 'kafka-backfill',"
                        + " 'topic-pattern' = 'ord.rs', 'properties.bootstrap.servers' = '"
                        + KAFKA.bootstrapServers()
                        + "', 'scan.startup.mode' = 'earliest-offset',"
                        + " 'scan.bounded.mode' = 'latest-offset', 'format' = 'json')");
        assertThat(collect(tEnv, "SELECT `user` FROM by_pattern")).hasSize(10);
    }

    /** Every metadata column of Flink's Kafka connector, read by a bounded query. */
    @Test
    void everyMetadataColumn() throws Exception {
        String topic = "metadata-" + UUID.randomUUID();
        // the record's timestamp is old: time retention must not delete it
        KAFKA.createTopic(topic, 2, Map.of("retention.ms", "-1"));
        long timestamp = 1_700_000_000_000L;
        // the record checked is partition 1's second: no column can pass for another
        ProducerRecord<String, String> record =
                new ProducerRecord<>(topic, 1, timestamp, "k", "{\"id\":7,\"payload\":\"x\"}");
        record.headers().add(new RecordHeader("trace", "abc".getBytes(StandardCharsets.UTF_8)));
        KAFKA.produce(
                List.of(
                        new ProducerRecord<>(topic, 1, "k", "{\"id\":6,\"payload\":\"w\"}"),
                        record));
        TableEnvironment tEnv = boundedTables();
        tEnv.executeSql(
                ddl(
                        "meta",
                        "id BIGINT, payload STRING,"
                                + " `topic` STRING METADATA VIRTUAL,"
                                + " `partition` INT METADATA VIRTUAL,"
                                + " `offset` BIGINT METADATA VIRTUAL,"
                                + " `timestamp` TIMESTAMP_LTZ(3) METADATA,"
                                + " `timestamp-type` STRING METADATA VIRTUAL,"
                                + " `headers` MAP<STRING, BYTES> METADATA VIRTUAL,"
                                + " `leader-epoch` INT METADATA VIRTUAL,"
                                + " `origin` STRING METADATA VIRTUAL",
                        topic,
                        "'format' = 'json'"));
        List<Row> rows =
                collect(
                        tEnv,
                        "SELECT id, payload, `topic`, `partition`, `offset`, `timestamp`,"
                                + " `timestamp-type`, `headers`['trace'], `leader-epoch`, `origin`"
                                + " FROM meta WHERE id = 7");

        assertThat(rows).hasSize(1);
        Row row = rows.get(0);
        assertThat(row.getField(0)).isEqualTo(7L);
        assertThat(row.getField(1)).isEqualTo("x");
        assertThat(row.getField(2)).isEqualTo(topic);
        assertThat(row.getField(3)).isEqualTo(1);
        assertThat(row.getField(4)).isEqualTo(1L);
        assertThat(row.getField(5)).isEqualTo(Instant.ofEpochMilli(timestamp));
        assertThat(row.getField(6)).isEqualTo("CreateTime");
        assertThat((byte[]) row.getField(7)).isEqualTo("abc".getBytes(StandardCharsets.UTF_8));
        assertThat(row.getField(8)).isEqualTo(0);
        assertThat(row.getField(9))
                .as("a bounded table's rows are all history")
                .isEqualTo("backfill");
        // some of the columns, in another order than declared
        assertThat(collect(tEnv, "SELECT `offset`, id, `partition` FROM meta WHERE id = 7"))
                .singleElement()
                .satisfies(
                        r -> {
                            assertThat(r.getField(0)).isEqualTo(1L);
                            assertThat(r.getField(1)).isEqualTo(7L);
                            assertThat(r.getField(2)).isEqualTo(1);
                        });
    }

    /** A key format with a prefix, the value format without the key's columns. */
    @Test
    void keyAndValueFormats() throws Exception {
        String topic = "keys-" + UUID.randomUUID();
        KAFKA.createTopic(topic, 2);
        KAFKA.produce(
                1,
                0,
                10,
                (ignored, i) ->
                        new ProducerRecord<>(
                                topic,
                                (int) i % 2,
                                "{\"user\":\"u" + i + "\",\"region\":\"r" + (i % 3) + "\"}",
                                "{\"amount\":" + i + "}"));
        TableEnvironment tEnv = boundedTables();
        tEnv.executeSql(
                ddl(
                        "keyed",
                        "amount INT, k_region STRING, k_user STRING",
                        topic,
                        // key fields in another order than the columns
                        "'key.format' = 'json', 'key.fields' = 'k_user;k_region',"
                                + " 'key.fields-prefix' = 'k_',"
                                + " 'value.format' = 'json', 'value.fields-include' = 'EXCEPT_KEY'"));
        List<String> rows = new ArrayList<>();
        for (Row row : collect(tEnv, "SELECT k_user, k_region, amount FROM keyed")) {
            rows.add(row.getField(0) + "/" + row.getField(1) + "=" + row.getField(2));
        }
        List<String> expected = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            expected.add("u" + i + "/r" + (i % 3) + "=" + i);
        }
        assertThat(rows).containsExactlyInAnyOrderElementsOf(expected);
    }

    /**
     * Projection push-down: the source produces only the columns a query reads (the plan shows them
     * in the scan), in the query's order, key and value columns and metadata alike.
     */
    @Test
    void projectionIsPushedIntoTheSource() throws Exception {
        String topic = "projection-" + UUID.randomUUID();
        KAFKA.createTopic(topic, 1);
        KAFKA.produce(
                1,
                0,
                5,
                (p, i) ->
                        new ProducerRecord<>(
                                topic,
                                p,
                                "{\"user\":\"u" + i + "\",\"region\":\"r" + i + "\"}",
                                "{\"a\":" + i + ",\"b\":\"b" + i + "\",\"c\":" + (10 * i) + "}"));
        TableEnvironment tEnv = boundedTables();
        tEnv.executeSql(
                ddl(
                        "projected",
                        "k_user STRING, a INT, k_region STRING, b STRING, c INT,"
                                + " `offset` BIGINT METADATA VIRTUAL",
                        topic,
                        "'key.format' = 'json', 'key.fields' = 'k_user;k_region',"
                                + " 'key.fields-prefix' = 'k_', 'value.format' = 'json',"
                                + " 'value.fields-include' = 'EXCEPT_KEY'"));
        String query = "SELECT c, `offset`, k_region, a FROM projected";
        assertThat(tEnv.explainSql(query)).contains("project=[c, k_region, a]");
        List<String> rows = new ArrayList<>();
        for (Row row : collect(tEnv, query)) {
            rows.add(
                    row.getField(0)
                            + "/"
                            + row.getField(1)
                            + "/"
                            + row.getField(2)
                            + "/"
                            + row.getField(3));
        }
        assertThat(rows)
                .containsExactly("0/0/r0/0", "10/1/r1/1", "20/2/r2/2", "30/3/r3/3", "40/4/r4/4");
    }

    /**
     * Values in Flink's {@code avro} format, written by its own serializer for the same row type.
     */
    @Test
    void avroValues() throws Exception {
        String topic = "avro-" + UUID.randomUUID();
        KAFKA.createTopic(topic, 1);
        RowType rowType =
                (RowType)
                        DataTypes.ROW(
                                        DataTypes.FIELD("user", DataTypes.STRING()),
                                        DataTypes.FIELD("amount", DataTypes.INT()))
                                .notNull()
                                .getLogicalType();
        AvroRowDataSerializationSchema avro = new AvroRowDataSerializationSchema(rowType);
        avro.open(null);
        Properties props = new Properties();
        props.put("bootstrap.servers", KAFKA.bootstrapServers());
        try (KafkaProducer<byte[], byte[]> producer =
                new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer())) {
            for (int i = 0; i < 5; i++) {
                producer.send(
                        new ProducerRecord<>(
                                topic,
                                0,
                                null,
                                avro.serialize(
                                        GenericRowData.of(StringData.fromString("u" + i), i))));
            }
        }
        TableEnvironment tEnv = boundedTables();
        tEnv.executeSql(ddl("avro_t", "`user` STRING, amount INT", topic, "'format' = 'avro'"));
        List<String> rows = new ArrayList<>();
        for (Row row : collect(tEnv, "SELECT `user`, amount FROM avro_t")) {
            rows.add(row.getField(0) + "=" + row.getField(1));
        }
        assertThat(rows).containsExactly("u0=0", "u1=1", "u2=2", "u3=3", "u4=4");
        // one column only: the source is given the projection, the format still reads by position
        List<Object> amounts = new ArrayList<>();
        for (Row row : collect(tEnv, "SELECT amount FROM avro_t")) {
            amounts.add(row.getField(0));
        }
        assertThat(amounts).containsExactly(0, 1, 2, 3, 4);
    }

    /** Wrong options fail when the query is planned, naming the option. */
    @Test
    void optionErrorsFailAtPlanningNamingTheOption() throws Exception {
        String topic = "errors-" + UUID.randomUUID();
        KAFKA.createTopic(topic, 1);
        assertPlanningFails(
                ddl("t1", "v STRING", topic, "'format' = 'raw', 'scan.startup.modes' = 'x'"),
                "scan.startup.modes");
        assertPlanningFails(
                "CREATE TABLE t2 (v STRING) WITH ('connector' = 'kafka-backfill', 'topic' = '"
                        + topic
                        + "', 'format' = 'raw')",
                "properties.bootstrap.servers");
        assertPlanningFails(
                ddl("t3", "v STRING", topic, "'format' = 'raw', 'topic-pattern' = 'x.*'"),
                "topic-pattern");
        assertPlanningFails(
                ddl(
                        "t4",
                        "v STRING",
                        topic,
                        "'format' = 'raw', 'scan.startup.mode' = 'specific-offsets',"
                                + " 'scan.startup.specific-offsets' = 'partition:0;offset:1'"),
                "scan.startup.specific-offsets");
        assertPlanningFails(
                ddl("t5", "v STRING", topic, "'format' = 'raw', 'scan.startup.mode' = 'timestamp'"),
                "scan.startup.timestamp-millis");
        assertPlanningFails(
                ddl(
                        "t6",
                        "v STRING",
                        topic,
                        "'format' = 'raw', 'backfill.offset-gap-policy' = 'x'"),
                "backfill.offset-gap-policy");
        assertPlanningFails(
                ddl("t7", "v STRING", topic, "'format' = 'raw', 'key.fields' = 'v'"), "key.format");
        assertPlanningFails(ddl("t8", "v STRING", topic, "'format' = 'nope'"), "nope");
        assertPlanningFails(
                ddl(
                        "t9",
                        "v STRING, ts TIMESTAMP_LTZ(3) METADATA FROM 'timestamp'",
                        topic,
                        "'format' = 'raw', 'backfill.archive.path' = 'file:///tmp/none'"),
                "timestamp");
        assertPlanningFails(
                ddl(
                        "t10",
                        "k STRING, v STRING",
                        topic,
                        "'key.format' = 'raw', 'key.fields' = 'k', 'value.format' = 'raw',"
                                + " 'value.fields-include' = 'EXCEPT_KEY',"
                                + " 'backfill.archive.path' = 'file:///tmp/none'"),
                "key.format");
        assertPlanningFails(
                ddl(
                        "t11",
                        "v STRING",
                        topic,
                        "'format' = 'raw', 'backfill.archive.path' = 'file:///tmp/none',"
                                + " 'backfill.archive.offset-field' = 'v'"),
                "backfill.archive.offset-field");
        assertPlanningFails(
                ddl(
                        "t12",
                        "v STRING",
                        topic,
                        "'format' = 'raw', 'backfill.rate-limit.records-per-second' = '0'"),
                "backfill.rate-limit.records-per-second");
        assertPlanningFails(
                ddl("t13", "v STRING", topic, "'format' = 'raw', 'backfill.chunk-size' = '0'"),
                "backfill.chunk-size");
    }

    // ------------------------------------------------------------------ helpers

    private static void assertPlanningFails(String ddl, String named) {
        TableEnvironment tEnv = boundedTables();
        tEnv.executeSql(ddl);
        String table = ddl.substring("CREATE TABLE ".length(), ddl.indexOf(' ', 13));
        assertThatThrownBy(() -> tEnv.explainSql("SELECT * FROM " + table))
                .satisfies(
                        e ->
                                assertThat(
                                                ExceptionUtils.findThrowable(
                                                                e, ValidationException.class)
                                                        .map(ExceptionUtils::stringifyException))
                                        .as("a ValidationException naming %s", named)
                                        .hasValueSatisfying(m -> assertThat(m).contains(named)));
    }

    private static TableEnvironment boundedTables() {
        TableEnvironment tEnv = TableEnvironment.create(EnvironmentSettings.inStreamingMode());
        tEnv.getConfig().set("parallelism.default", "2");
        tEnv.getConfig().set("restart-strategy.type", "none");
        return tEnv;
    }

    /** A bounded table over the topic from its earliest offsets to its end at the start. */
    private static String ddl(String table, String columns, String topic, String formats) {
        return "CREATE TABLE "
                + table
                + " ("
                + columns
                + ") WITH ('connector' = 'kafka-backfill', 'topic' = '"
                + topic
                + "', 'properties.bootstrap.servers' = '"
                + KAFKA.bootstrapServers()
                + "', 'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset', "
                + formats
                + ")";
    }

    private static List<Row> collect(TableEnvironment tEnv, String query) throws Exception {
        List<Row> rows = new ArrayList<>();
        try (CloseableIterator<Row> it = tEnv.executeSql(query).collect()) {
            it.forEachRemaining(rows::add);
        }
        return rows;
    }

    /** JSON values {"id":o,"payload":"p-o"} for offsets [from, to) of every partition. */
    private static void produce(String topic, int partitions, int from, int to) throws Exception {
        KAFKA.produce(partitions, from, to, (p, o) -> new ProducerRecord<>(topic, p, "k", json(o)));
    }

    private static String json(long id) {
        return "{\"id\":" + id + ",\"payload\":\"p-" + id + "\"}";
    }

    /** A SQL row as the checker's record: the JSON it was read from, rebuilt from its columns. */
    private static PartitionRecord partitionRecord(Row row) {
        long id = (Long) row.getFieldAs("id");
        assertThat((String) row.getFieldAs("payload")).isEqualTo("p-" + id);
        return new PartitionRecord(
                row.getFieldAs("topic"),
                row.<Integer>getFieldAs("partition"),
                row.<Long>getFieldAs("offset"),
                json(id));
    }
}
