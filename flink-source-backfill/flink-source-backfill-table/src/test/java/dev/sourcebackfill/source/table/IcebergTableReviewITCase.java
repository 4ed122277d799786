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

import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;

import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetWriter;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.types.Types;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Review finding, at run time: FORMAT with a layout that keeps no key column accepts {@code
 * key.fields}, and every history row's key column is NULL (live rows have it).
 */
class IcebergTableReviewITCase {

    private static final RestartCounter RESTARTS = new RestartCounter();

    @RegisterExtension static final MiniClusterExtension CLUSTER = RESTARTS.miniCluster();

    @RegisterExtension static final KafkaTestEnvironment KAFKA = new KafkaTestEnvironment();

    private static final long BASE_MILLIS = Instant.parse("2025-01-01T00:00:00Z").toEpochMilli();

    @TempDir static Path warehouse;

    @Test
    void historyRowsKeepTheirKeyColumns() throws Exception {
        String topic = "keys-" + UUID.randomUUID();
        KAFKA.createTopic(topic, 1);
        KAFKA.produce(
                1,
                0,
                10,
                (p, o) -> new ProducerRecord<>(topic, p, "k" + o, "{\"v\":\"p-" + o + "\"}"));
        KAFKA.deleteRecordsBelow(topic, 0, 5);

        Schema schema =
                new Schema(
                        Types.NestedField.required(1, "p", Types.IntegerType.get()),
                        Types.NestedField.required(2, "o", Types.LongType.get()),
                        Types.NestedField.required(3, "ts", Types.TimestampType.withZone()),
                        Types.NestedField.optional(4, "value", Types.BinaryType.get()));
        String table = "ns." + topic.replace('-', '_');
        Catalog catalog =
                CatalogUtil.buildIcebergCatalog(
                        "iceberg",
                        Map.of(
                                CatalogUtil.ICEBERG_CATALOG_TYPE,
                                CatalogUtil.ICEBERG_CATALOG_TYPE_HADOOP,
                                CatalogProperties.WAREHOUSE_LOCATION,
                                warehouse.toUri().toString()),
                        new Configuration());
        Table iceberg =
                catalog.createTable(
                        TableIdentifier.parse(table),
                        schema,
                        PartitionSpec.unpartitioned(),
                        Map.of(TableProperties.FORMAT_VERSION, "2"));
        List<Record> rows = new ArrayList<>();
        for (int o = 0; o < 5; o++) {
            GenericRecord row = GenericRecord.create(schema);
            row.setField("p", 0);
            row.setField("o", (long) o);
            row.setField(
                    "ts",
                    OffsetDateTime.ofInstant(
                            Instant.ofEpochMilli(BASE_MILLIS + o), ZoneOffset.UTC));
            row.setField(
                    "value",
                    ByteBuffer.wrap(
                            ("{\"v\":\"table-" + o + "\"}").getBytes(StandardCharsets.UTF_8)));
            rows.add(row);
        }
        DataWriter<Record> writer =
                Parquet.writeData(
                                iceberg.io()
                                        .newOutputFile(
                                                iceberg.locationProvider()
                                                        .newDataLocation(
                                                                UUID.randomUUID() + ".parquet")))
                        .forTable(iceberg)
                        .withSpec(iceberg.spec())
                        .createWriterFunc(GenericParquetWriter::create)
                        .overwrite()
                        .build();
        try (writer) {
            rows.forEach(writer::write);
        }
        AppendFiles append = iceberg.newAppend();
        append.appendFile(writer.toDataFile());
        append.commit();

        TableEnvironment tEnv = TableEnvironment.create(EnvironmentSettings.inStreamingMode());
        tEnv.getConfig().set("parallelism.default", "1");
        tEnv.getConfig().set("restart-strategy.type", "none");
        tEnv.executeSql(
                "CREATE TABLE keyed (k STRING, v STRING,"
                        + " `offset` BIGINT METADATA VIRTUAL, `origin` STRING METADATA VIRTUAL"
                        + ") WITH ('connector' = 'kafka-backfill', 'topic' = '"
                        + topic
                        + "', 'properties.bootstrap.servers' = '"
                        + KAFKA.bootstrapServers()
                        + "', 'scan.startup.mode' = 'earliest-offset',"
                        + " 'scan.bounded.mode' = 'latest-offset',"
                        + " 'key.format' = 'raw', 'key.fields' = 'k',"
                        + " 'value.format' = 'json', 'value.fields-include' = 'EXCEPT_KEY',"
                        + " 'backfill.iceberg.table' = '"
                        + table
                        + "', 'backfill.iceberg.layout' = 'custom',"
                        + " 'backfill.iceberg.partition-column' = 'p',"
                        + " 'backfill.iceberg.offset-column' = 'o',"
                        + " 'backfill.iceberg.timestamp-column' = 'ts',"
                        + " 'backfill.iceberg.value-column' = 'value',"
                        + " 'backfill.iceberg.catalog.type' = 'hadoop',"
                        + " 'backfill.iceberg.catalog.warehouse' = '"
                        + warehouse.toUri()
                        + "')");
        List<String> read = new ArrayList<>();
        try (CloseableIterator<Row> it =
                tEnv.executeSql("SELECT k, v, `offset`, `origin` FROM keyed").collect()) {
            it.forEachRemaining(
                    r ->
                            read.add(
                                    r.getField(2)
                                            + ":"
                                            + r.getField(0)
                                            + ":"
                                            + r.getField(1)
                                            + ":"
                                            + r.getField(3)));
        }
        List<String> expected = new ArrayList<>();
        for (int o = 0; o < 10; o++) {
            expected.add(
                    o
                            + ":k"
                            + o
                            + ":"
                            + (o < 5 ? "table-" : "p-")
                            + o
                            + ":"
                            + (o < 5 ? "backfill" : "live"));
        }
        // either planning refuses the table, or every row keeps its key
        assertThat(read).containsExactlyInAnyOrderElementsOf(expected);
    }
}
