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
package dev.sourcebackfill.examples.iceberg;

import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.io.FanoutDataWriter;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.iceberg.rest.RESTCatalogAdapter;
import org.apache.iceberg.rest.RESTCatalogServlet;
import org.apache.iceberg.types.Types;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * Iceberg's REST catalog as a local process for the e2e check's Iceberg phase: Iceberg's own {@code
 * RESTCatalogServlet} and {@code RESTCatalogAdapter} (iceberg-core's tests jar) on Jetty, listening
 * on 127.0.0.1 only (a port the system picks), over a {@code JdbcCatalog} on a SQLite file, the
 * warehouse on the local file system.
 *
 * <p>Before it reports ready it writes, through the REST catalog as any client would, a table in
 * Redpanda's layout in key-value mode (a {@code redpanda} struct with the record's partition,
 * offset, timestamp and key, the value's bytes in {@code value}), partitioned as Redpanda
 * partitions by default ({@code hour(redpanda.timestamp)}, so that data files mix Kafka
 * partitions), with Iceberg's generic Parquet writers behind a {@code FanoutDataWriter}. Partition
 * {@code p} holds offsets {@code [0, rows[p])}, each row's value {@code table|<p>|<offset>} and key
 * {@code k<offset>}, its timestamp {@code 2025-01-01T00:00:00Z} plus 100 ms per offset; one commit
 * per {@code rowsPerCommit} offsets, the partitions interleaved in offset order as a writer that
 * consumes them together would write them.
 *
 * <p>Arguments: {@code <warehouse dir> <namespace.table> <rows of partition 0,1,...>
 * [rowsPerCommit, 10000]}. Prints {@code CATALOG READY <uri> table <table> snapshot <id> data-files
 * <n> rows <n>} once the table is committed, then serves until killed.
 */
public final class IcebergCatalogServer {

    private static final long BASE_MILLIS = Instant.parse("2025-01-01T00:00:00Z").toEpochMilli();

    private IcebergCatalogServer() {}

    public static void main(String[] args) throws Exception {
        if (args.length < 3) {
            System.err.println(
                    "usage: IcebergCatalogServer <warehouse dir> <namespace.table> <rows of partition 0,1,...> [rows per commit]");
            System.exit(2);
        }
        Path warehouse = Path.of(args[0]).toAbsolutePath();
        TableIdentifier tableId = TableIdentifier.parse(args[1]);
        long[] rows = Arrays.stream(args[2].split(",")).mapToLong(Long::parseLong).toArray();
        long rowsPerCommit = args.length > 3 ? Long.parseLong(args[3]) : 10_000;

        Files.createDirectories(warehouse);
        Map<String, String> backendProperties = new HashMap<>();
        backendProperties.put(CatalogProperties.CATALOG_IMPL, JdbcCatalog.class.getName());
        backendProperties.put(
                CatalogProperties.URI, "jdbc:sqlite:" + warehouse.resolve("catalog.db"));
        backendProperties.put("jdbc.schema-version", "V1");
        backendProperties.put(CatalogProperties.WAREHOUSE_LOCATION, warehouse.toUri().toString());
        Catalog backend =
                CatalogUtil.buildIcebergCatalog("backend", backendProperties, new Configuration());

        ServletContextHandler handler =
                new ServletContextHandler(ServletContextHandler.NO_SESSIONS);
        handler.addServlet(
                new ServletHolder(new RESTCatalogServlet(new RESTCatalogAdapter(backend))), "/*");
        Server http = new Server();
        ServerConnector connector = new ServerConnector(http);
        connector.setHost("127.0.0.1");
        connector.setPort(0);
        http.addConnector(connector);
        http.setHandler(handler);
        http.start();
        String uri = "http://127.0.0.1:" + connector.getLocalPort() + "/";

        Catalog client =
                CatalogUtil.buildIcebergCatalog(
                        "writer",
                        Map.of(
                                CatalogUtil.ICEBERG_CATALOG_TYPE,
                                CatalogUtil.ICEBERG_CATALOG_TYPE_REST,
                                CatalogProperties.URI,
                                uri),
                        new Configuration());
        Table table = createTable(client, tableId);
        int files = 0;
        long total = 0;
        long most = Arrays.stream(rows).max().orElse(0);
        for (long from = 0, commit = 0; from < most; from += rowsPerCommit, commit++) {
            long to = Math.min(most, from + rowsPerCommit);
            FanoutDataWriter<org.apache.iceberg.data.Record> writer = newWriter(table, commit);
            PartitionKey key = new PartitionKey(table.spec(), table.schema());
            InternalRecordWrapper wrapper = new InternalRecordWrapper(table.schema().asStruct());
            for (long offset = from; offset < to; offset++) {
                for (int p = 0; p < rows.length; p++) {
                    if (offset < rows[p]) {
                        GenericRecord row = row(table.schema(), p, offset);
                        key.partition(wrapper.wrap(row));
                        writer.write(row, table.spec(), key.copy());
                        total++;
                    }
                }
            }
            writer.close();
            org.apache.iceberg.AppendFiles append = table.newAppend();
            for (DataFile file : writer.result().dataFiles()) {
                append.appendFile(file);
                files++;
            }
            append.commit();
        }
        table.refresh();
        System.out.println(
                "CATALOG READY "
                        + uri
                        + " table "
                        + tableId
                        + " snapshot "
                        + (table.currentSnapshot() == null
                                ? "none"
                                : table.currentSnapshot().snapshotId())
                        + " data-files "
                        + files
                        + " rows "
                        + total);
        http.join();
    }

    /** The table in Redpanda's key-value layout, partitioned by the hour of the timestamp. */
    private static Table createTable(Catalog catalog, TableIdentifier id) {
        if (!id.namespace().isEmpty()) {
            try {
                ((SupportsNamespaces) catalog).createNamespace(id.namespace());
            } catch (AlreadyExistsException e) {
                // a warehouse of an earlier run
            }
        }
        Schema schema =
                new Schema(
                        Types.NestedField.optional(
                                1,
                                "redpanda",
                                Types.StructType.of(
                                        Types.NestedField.required(
                                                3, "partition", Types.IntegerType.get()),
                                        Types.NestedField.required(
                                                4, "offset", Types.LongType.get()),
                                        Types.NestedField.required(
                                                5, "timestamp", Types.TimestampType.withZone()),
                                        Types.NestedField.optional(
                                                6, "key", Types.BinaryType.get()))),
                        Types.NestedField.optional(2, "value", Types.BinaryType.get()));
        PartitionSpec spec = PartitionSpec.builderFor(schema).hour("redpanda.timestamp").build();
        return catalog.createTable(id, schema, spec, Map.of(TableProperties.FORMAT_VERSION, "2"));
    }

    private static FanoutDataWriter<org.apache.iceberg.data.Record> newWriter(
            Table table, long commit) {
        GenericFileWriterFactory writers =
                new GenericFileWriterFactory.Builder(table)
                        .dataFileFormat(FileFormat.PARQUET)
                        .build();
        OutputFileFactory files =
                OutputFileFactory.builderFor(table, 0, commit).format(FileFormat.PARQUET).build();
        return new FanoutDataWriter<>(
                writers, files, table.io(), TableProperties.WRITE_TARGET_FILE_SIZE_BYTES_DEFAULT);
    }

    private static GenericRecord row(Schema schema, int partition, long offset) {
        Types.StructType metadataType = schema.findField("redpanda").type().asStructType();
        GenericRecord metadata = GenericRecord.create(metadataType);
        metadata.setField("partition", partition);
        metadata.setField("offset", offset);
        metadata.setField(
                "timestamp",
                OffsetDateTime.ofInstant(
                        Instant.ofEpochMilli(BASE_MILLIS + 100 * offset), ZoneOffset.UTC));
        metadata.setField("key", bytes("k" + offset));
        GenericRecord row = GenericRecord.create(schema);
        row.setField("redpanda", metadata);
        row.setField("value", bytes("table|" + partition + "|" + offset));
        return row;
    }

    private static ByteBuffer bytes(String s) {
        return ByteBuffer.wrap(s.getBytes(StandardCharsets.UTF_8));
    }
}
