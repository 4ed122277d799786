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
package dev.sourcebackfill.benchmark;

import dev.sourcebackfill.source.iceberg.IcebergBackfill;
import dev.sourcebackfill.source.iceberg.IcebergBackfillSourceBuilder;
import dev.sourcebackfill.source.iceberg.IcebergLayout;
import dev.sourcebackfill.source.kafka.InProcessKafka;
import dev.sourcebackfill.source.kafka.KafkaBackfill;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichFlatMapFunction;
import org.apache.flink.api.common.serialization.SimpleStringSchema;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.util.Collector;
import org.apache.flink.util.FileUtils;

import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetReaders;
import org.apache.iceberg.data.parquet.GenericParquetWriter;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.types.Types.BinaryType;
import org.apache.iceberg.types.Types.IntegerType;
import org.apache.iceberg.types.Types.LongType;
import org.apache.iceberg.types.Types.NestedField;
import org.apache.iceberg.types.Types.StructType;
import org.apache.iceberg.types.Types.TimestampType;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;

import javax.annotation.Nullable;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Section 11: a topic's history from an Iceberg table in Redpanda's layout (a Hadoop catalog on the
 * local file system, files of 1,000,000 rows mixing the 8 partitions), read by our Iceberg adapter
 * (bounded at the topic's end, which the table reaches: every record from the table) against the
 * same table's data files read with Iceberg's generic Parquet reader in a plain Flink job (the
 * files spread over the subtasks, each read as a tuned user reads it: its value column alone). Both
 * make a string of each row's value bytes.
 */
final class IcebergThroughput implements AutoCloseable {

    static final int PARTITIONS = 8;
    private static final int ROWS_PER_FILE = 1_000_000;

    /**
     * Rows a row group of {@link #startOneFile}'s file at most: about the rows of a 128 MB row
     * group.
     */
    static final int ROWS_PER_ROW_GROUP = 1_000_000;

    static final String TABLE = "bench.history";

    static final Schema SCHEMA =
            new Schema(
                    NestedField.optional(
                            1,
                            "redpanda",
                            StructType.of(
                                    NestedField.required(3, "partition", IntegerType.get()),
                                    NestedField.required(4, "offset", LongType.get()),
                                    NestedField.required(5, "timestamp", TimestampType.withZone()),
                                    NestedField.optional(6, "key", BinaryType.get()))),
                    NestedField.optional(2, "value", BinaryType.get()));

    private final BenchCluster cluster;
    private final BenchmarkSettings settings;
    private final InProcessKafka kafka;
    private final Path warehouse;
    private final String topic = "iceberg-" + UUID.randomUUID();
    private final List<String> dataFiles = new ArrayList<>();

    /** The table's rows, a partition's rows each of the 8. */
    private final long records;

    /** Rows a data file; each row group's rows where set (else as the writer's size rule). */
    private final long rowsPerFile;

    private final long rowGroupRows;

    /** Row groups of the data files, as their footers say. */
    private int rowGroups;

    /** Whether the topic has records past the table ({@link #appendPastTheTable}). */
    private boolean pastTheTable;

    private IcebergThroughput(
            BenchCluster cluster,
            BenchmarkSettings settings,
            InProcessKafka kafka,
            Path warehouse,
            long records,
            long rowsPerFile,
            long rowGroupRows) {
        this.records = records / PARTITIONS * PARTITIONS;
        this.rowsPerFile = rowsPerFile;
        this.rowGroupRows = rowGroupRows;
        this.cluster = cluster;
        this.settings = settings;
        this.kafka = kafka;
        this.warehouse = warehouse;
    }

    /** Writes the topic and the table of the same records (not counted as the jobs' CPU time). */
    static IcebergThroughput start(BenchCluster cluster, BenchmarkSettings settings)
            throws Exception {
        return start(cluster, settings, settings.icebergRecords, ROWS_PER_FILE, 0);
    }

    /**
     * A table of {@code records} rows in one data file, in row groups of {@code rowGroupRows} rows
     * (a compacted table's file of several row groups).
     */
    static IcebergThroughput startOneFile(
            BenchCluster cluster, BenchmarkSettings settings, long records, long rowGroupRows)
            throws Exception {
        return start(cluster, settings, records, Long.MAX_VALUE, rowGroupRows);
    }

    private static IcebergThroughput start(
            BenchCluster cluster,
            BenchmarkSettings settings,
            long records,
            long rowsPerFile,
            long rowGroupRows)
            throws Exception {
        return JobCpu.setUpUncounted(
                () -> {
                    InProcessKafka kafka = InProcessKafka.start();
                    Path warehouse = Files.createTempDirectory("iceberg-benchmark");
                    IcebergThroughput bench =
                            new IcebergThroughput(
                                    cluster,
                                    settings,
                                    kafka,
                                    warehouse,
                                    records,
                                    rowsPerFile,
                                    rowGroupRows);
                    try {
                        bench.write();
                    } catch (Exception e) {
                        bench.close();
                        throw e;
                    }
                    return bench;
                });
    }

    Map<String, String> catalog() {
        return Map.of(
                CatalogUtil.ICEBERG_CATALOG_TYPE,
                CatalogUtil.ICEBERG_CATALOG_TYPE_HADOOP,
                CatalogProperties.WAREHOUSE_LOCATION,
                warehouse.toUri().toString());
    }

    long records() {
        return records;
    }

    /** The table's rows of each partition, offsets 0 to this minus 1. */
    long rowsPerPartition() {
        return records / PARTITIONS;
    }

    /** The data files' row groups. */
    int rowGroups() {
        return rowGroups;
    }

    int dataFiles() {
        return dataFiles.size();
    }

    InProcessKafka kafka() {
        return kafka;
    }

    String topic() {
        return topic;
    }

    /**
     * Writes {@code records} more records to each partition of the topic, past the table's rows
     * (the broker's work not counted as the jobs'), values made as the table's: the record of
     * partition {@code p} at offset {@code o} has {@code value(o * 8 + p)}. The throughput runs,
     * bounded at the topic's end, cannot run after this.
     */
    void appendPastTheTable(long records) throws Exception {
        JobCpu.setUpUncounted(
                () -> {
                    long from = rowsPerPartition();
                    try (KafkaProducer<String, String> producer = kafka.bulkProducer()) {
                        for (long o = from; o < from + records; o++) {
                            for (int p = 0; p < PARTITIONS; p++) {
                                producer.send(
                                        new ProducerRecord<>(
                                                topic, p, null, value(o * PARTITIONS + p)));
                            }
                        }
                        producer.flush();
                    }
                    return null;
                });
        pastTheTable = true;
    }

    /**
     * The value of the record of partition {@code index % 8} at offset {@code index / 8}: the index
     * in 9 digits, then 90 characters.
     */
    static String value(long i) {
        return String.format("%09d", i) + "x".repeat(90);
    }

    private void write() throws Exception {
        long perPartition = records / PARTITIONS;
        kafka.createTopic(topic, PARTITIONS, Map.of());
        try (KafkaProducer<String, String> producer = kafka.bulkProducer()) {
            for (long o = 0; o < perPartition; o++) {
                for (int p = 0; p < PARTITIONS; p++) {
                    // the topic's records are all in the table: their values are not read
                    producer.send(new ProducerRecord<>(topic, p, null, ""));
                }
            }
            producer.flush();
        }
        Catalog catalog =
                CatalogUtil.buildIcebergCatalog(
                        "bench", catalog(), new org.apache.hadoop.conf.Configuration());
        Table table =
                catalog.createTable(
                        TableIdentifier.parse(TABLE),
                        SCHEMA,
                        PartitionSpec.unpartitioned(),
                        rowGroupRows > 0
                                ? Map.of(
                                        TableProperties.FORMAT_VERSION,
                                        "2",
                                        // a row group of exactly that many rows: the writer
                                        // checks the size (past 1 byte) every that many rows
                                        TableProperties.PARQUET_ROW_GROUP_SIZE_BYTES,
                                        "1",
                                        TableProperties.PARQUET_ROW_GROUP_CHECK_MIN_RECORD_COUNT,
                                        Long.toString(rowGroupRows),
                                        TableProperties.PARQUET_ROW_GROUP_CHECK_MAX_RECORD_COUNT,
                                        Long.toString(rowGroupRows))
                                : Map.of(TableProperties.FORMAT_VERSION, "2"));
        AppendFiles append = table.newAppend();
        long base = Instant.parse("2025-01-01T00:00:00Z").toEpochMilli();
        GenericRecord metaTemplate =
                GenericRecord.create(SCHEMA.findType("redpanda").asStructType());
        GenericRecord rowTemplate = GenericRecord.create(SCHEMA);
        DataWriter<Record> writer = null;
        long inFile = 0;
        for (long o = 0; o < perPartition; o++) {
            for (int p = 0; p < PARTITIONS; p++) {
                if (writer == null) {
                    OutputFile out =
                            table.io()
                                    .newOutputFile(
                                            table.locationProvider()
                                                    .newDataLocation(
                                                            UUID.randomUUID() + ".parquet"));
                    writer =
                            Parquet.writeData(out)
                                    .forTable(table)
                                    .withSpec(table.spec())
                                    .createWriterFunc(GenericParquetWriter::create)
                                    .overwrite()
                                    .build();
                }
                // copies of a template: GenericRecord.create looks its struct up in a cache
                GenericRecord meta = metaTemplate.copy();
                meta.setField("partition", p);
                meta.setField("offset", o);
                meta.setField(
                        "timestamp",
                        OffsetDateTime.ofInstant(Instant.ofEpochMilli(base + o), ZoneOffset.UTC));
                GenericRecord row = rowTemplate.copy();
                row.setField("redpanda", meta);
                row.setField(
                        "value",
                        ByteBuffer.wrap(
                                value(o * PARTITIONS + p).getBytes(StandardCharsets.UTF_8)));
                writer.write(row);
                if (++inFile == rowsPerFile) {
                    writer.close();
                    append.appendFile(writer.toDataFile());
                    dataFiles.add(writer.toDataFile().location());
                    rowGroups += writer.toDataFile().splitOffsets().size();
                    writer = null;
                    inFile = 0;
                }
            }
        }
        if (writer != null) {
            writer.close();
            DataFile last = writer.toDataFile();
            append.appendFile(last);
            dataFiles.add(last.location());
            rowGroups += last.splitOffsets().size();
        }
        append.commit();
    }

    Round oursRun() throws Exception {
        return oursRun(false, null);
    }

    /** Ours with the history cut into chunks of {@code chunkSize} rows. */
    Round oursRun(long chunkSize) throws Exception {
        return oursRun(false, chunkSize);
    }

    /**
     * Ours in ordered mode: each partition's rows by its own split in offset order, every file
     * (each mixes the 8 partitions) read once per partition.
     */
    Round oursOrderedRun() throws Exception {
        return oursRun(true, null);
    }

    private Round oursRun(boolean ordered, @Nullable Long chunkSize) throws Exception {
        String name =
                (ordered ? "Iceberg backfill source, ordered" : "Iceberg backfill source")
                        + (chunkSize == null ? "" : ", chunks of " + chunkSize);
        IcebergBackfillSourceBuilder<String> source =
                IcebergBackfill.<String>sourceBuilder()
                        .setCatalog("bench", catalog())
                        .setTable(TABLE)
                        .setLayout(IcebergLayout.redpanda())
                        .setOrdered(ordered)
                        .setLive(
                                KafkaBackfill.<String>sourceBuilder()
                                        .setBootstrapServers(kafka.bootstrapServers())
                                        .setTopics(topic)
                                        .setValueOnlyDeserializer(new SimpleStringSchema())
                                        .setBounded(OffsetsInitializer.latest()));
        if (chunkSize != null) {
            source.setBackfillChunkSize(chunkSize);
        }
        return run(
                name,
                env ->
                        env.fromSource(
                                source.build(),
                                WatermarkStrategy.noWatermarks(),
                                name,
                                Types.STRING));
    }

    /**
     * The same data files, spread over the subtasks, each read by Iceberg's reader as a tuned user
     * reads them: the value column alone.
     */
    Round genericReaderRun() throws Exception {
        Map<String, String> catalog = catalog();
        return run(
                "Iceberg generic reader",
                env ->
                        env.fromData(dataFiles)
                                .setParallelism(1)
                                .rebalance()
                                .flatMap(new ReadDataFile(catalog))
                                .returns(Types.STRING));
    }

    /** Reads a data file of the table with Iceberg's generic Parquet reader. */
    static final class ReadDataFile extends RichFlatMapFunction<String, String> {
        private static final long serialVersionUID = 1L;
        private final Map<String, String> catalog;
        private transient Map<String, FileScanTask> tasks;
        private transient Table table;

        ReadDataFile(Map<String, String> catalog) {
            this.catalog = new HashMap<>(catalog);
        }

        @Override
        public void open(OpenContext context) throws Exception {
            table =
                    CatalogUtil.buildIcebergCatalog(
                                    "bench", catalog, new org.apache.hadoop.conf.Configuration())
                            .loadTable(TableIdentifier.parse(TABLE));
            tasks = new HashMap<>();
            try (CloseableIterable<FileScanTask> planned = table.newScan().planFiles()) {
                for (FileScanTask task : planned) {
                    tasks.put(task.file().location(), task);
                }
            }
        }

        @Override
        public void flatMap(String file, Collector<String> out) throws Exception {
            FileScanTask task = tasks.get(file);
            // tuned: the value column alone, all a job making strings of the values needs
            Schema schema = table.schema().select("value");
            try (CloseableIterable<Record> rows =
                    Parquet.read(table.io().newInputFile(task.file()))
                            .project(schema)
                            .createReaderFunc(
                                    fileSchema ->
                                            GenericParquetReaders.buildReader(schema, fileSchema))
                            .build()) {
                for (Record row : rows) {
                    ByteBuffer value = ((ByteBuffer) row.getField("value")).duplicate();
                    byte[] bytes = new byte[value.remaining()];
                    value.get(bytes);
                    out.collect(new String(bytes, StandardCharsets.UTF_8));
                }
            }
        }
    }

    private interface Job {
        org.apache.flink.streaming.api.datastream.DataStream<String> build(
                StreamExecutionEnvironment env);
    }

    private Round run(String name, Job job) throws Exception {
        if (pastTheTable) {
            throw new IllegalStateException(
                    "The topic has records past the table: the throughput runs read the table alone");
        }
        try (RunProbe probe = RunProbe.open("iceberg-" + name)) {
            Configuration conf = new Configuration();
            conf.set(
                    CheckpointingOptions.CHECKPOINTING_INTERVAL,
                    settings.throughputCheckpointInterval);
            StreamExecutionEnvironment env = cluster.env(conf);
            job.build(env).sinkTo(new ProbeSink<>(probe.id()));
            JobCpu.Reading cpu = JobCpu.now();
            env.execute("benchmark: " + name);
            Round round = Round.of(probe.recordsPerSecond(), records(), cpu, records());
            DatagenThroughput.check(probe.totalRecords(), records(), name + " run");
            return round;
        }
    }

    @Override
    public void close() throws Exception {
        try {
            kafka.close();
        } finally {
            FileUtils.deleteDirectory(warehouse.toFile());
        }
    }
}
