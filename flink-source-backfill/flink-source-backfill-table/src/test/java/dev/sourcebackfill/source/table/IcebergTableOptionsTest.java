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

import dev.sourcebackfill.source.BackfillSource;
import dev.sourcebackfill.source.BackfillSourceConfig;
import dev.sourcebackfill.source.iceberg.IcebergLayout;

import org.apache.flink.api.common.functions.util.ListCollector;
import org.apache.flink.api.dag.Transformation;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.transformations.SourceTransformation;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.types.Row;

import org.apache.iceberg.Schema;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * The {@code backfill.iceberg.*} options' rules (first written by the adversarial review of the SQL
 * options, each a finding until fixed): exact column conversions, key and headers columns checked
 * against the layout at planning, every Iceberg option naming itself without a table, the class
 * path guard with and without Iceberg's jars, the chunk size reaching the planned source.
 */
class IcebergTableOptionsTest {

    private static final IcebergLayout CONNECT = IcebergLayout.kafkaConnect();

    // ------------------------------------------------------------ COLUMNS: conversions

    /**
     * An Iceberg decimal wider than its SQL column: {@code DecimalData.fromBigDecimal} returns null
     * on overflow, so the history row silently gets NULL (in a NOT NULL column, too) instead of
     * failing naming the column.
     */
    @Test
    void columnsDecimalOverflowIsNotSilentlyNull() {
        Schema schema =
                connectSchema(Types.NestedField.optional(1, "amount", Types.DecimalType.of(10, 2)));
        GenericRecord row = connectRow(schema);
        row.setField("amount", new BigDecimal("12345.67"));
        LogicalType type = DataTypes.DECIMAL(5, 2).notNull().getLogicalType();
        Throwable thrown = catchThrowable(() -> map("amount", type, row));
        assertThat(thrown)
                .as(
                        "12345.67 does not fit DECIMAL(5, 2): the row must fail naming the column,"
                                + " not become NULL (mapped: %s)",
                        thrown == null ? map("amount", type, row) : null)
                .isNotNull()
                .hasMessageContaining("amount");
    }

    /** A null Iceberg value in a NOT NULL column fails naming the column (not a null row field). */
    @Test
    void columnsNullIntoNotNullFailsNamingTheColumn() {
        Schema schema = connectSchema(Types.NestedField.optional(1, "id", Types.LongType.get()));
        GenericRecord row = connectRow(schema);
        row.setField("id", null);
        assertThat(map("id", DataTypes.BIGINT().getLogicalType(), row).isNullAt(0)).isTrue();
        assertThat(
                        catchThrowable(
                                () ->
                                        map(
                                                "id",
                                                DataTypes.BIGINT().notNull().getLogicalType(),
                                                row)))
                .hasMessageContaining("id")
                .hasMessageContaining("NOT NULL");
    }

    /** An Iceberg long into an INT column wraps around ({@code Number.intValue}) silently. */
    @Test
    void columnsLongIntoIntDoesNotWrapAround() {
        Schema schema = connectSchema(Types.NestedField.optional(1, "id", Types.LongType.get()));
        GenericRecord row = connectRow(schema);
        long id = 4_294_967_301L; // 2^32 + 5
        row.setField("id", id);
        LogicalType type = DataTypes.INT().getLogicalType();
        Throwable thrown = catchThrowable(() -> map("id", type, row));
        assertThat(thrown)
                .as(
                        "%d does not fit INT: the row must fail naming the column, not read %s",
                        id, thrown == null ? map("id", type, row).getInt(0) : null)
                .isNotNull()
                .hasMessageContaining("id");
    }

    /**
     * An Iceberg binary column into a STRING column: {@code toString()} of the ByteBuffer, so the
     * history row reads "java.nio.HeapByteBuffer[pos=0 lim=3 cap=3]" where the live row (through a
     * format) reads the text.
     */
    @Test
    void columnsBinaryIntoStringIsTheTextOrFails() {
        Schema schema =
                connectSchema(Types.NestedField.optional(1, "payload", Types.BinaryType.get()));
        GenericRecord row = connectRow(schema);
        row.setField("payload", ByteBuffer.wrap("abc".getBytes(StandardCharsets.UTF_8)));
        LogicalType type = DataTypes.STRING().getLogicalType();
        Throwable thrown = catchThrowable(() -> map("payload", type, row));
        if (thrown == null) {
            assertThat(map("payload", type, row).getString(0).toString())
                    .as("a binary column read as a string")
                    .isEqualTo("abc");
        } else {
            assertThat(thrown).hasMessageContaining("payload");
        }
    }

    // ------------------------------------------------------------ FORMAT: planning

    /**
     * FORMAT with a layout that keeps no key column, and a table reading key fields: every history
     * row's key columns are NULL (the rebuilt record has no key), live rows have them. Accepted at
     * planning; it should fail naming {@code backfill.iceberg.key-column}.
     */
    @Test
    void keyFieldsWithALayoutWithoutAKeyColumnFailAtPlanning() {
        TableEnvironment tEnv = tables();
        tEnv.executeSql(
                "CREATE TABLE keyed (k STRING, v STRING) WITH ("
                        + common()
                        + ", 'key.format' = 'raw', 'key.fields' = 'k',"
                        + " 'value.format' = 'json', 'value.fields-include' = 'EXCEPT_KEY',"
                        + " 'backfill.iceberg.table' = 'ns.t',"
                        + " 'backfill.iceberg.layout' = 'custom',"
                        + " 'backfill.iceberg.partition-column' = 'p',"
                        + " 'backfill.iceberg.offset-column' = 'o',"
                        + " 'backfill.iceberg.timestamp-column' = 'ts',"
                        + " 'backfill.iceberg.value-column' = 'value',"
                        + " 'backfill.iceberg.catalog.type' = 'hadoop',"
                        + " 'backfill.iceberg.catalog.warehouse' = 'file:///tmp/none')");
        Throwable thrown = catchThrowable(() -> tEnv.explainSql("SELECT * FROM keyed"));
        assertThat(ourValidationMessage(() -> tEnv.explainSql("SELECT * FROM keyed")))
                .as(
                        "history rows would have k = NULL: planning must refuse key.fields"
                                + " (planning threw: %s)",
                        thrown)
                .hasValueSatisfying(m -> assertThat(m).contains("backfill.iceberg.key-column"));
    }

    /**
     * FORMAT over a layout without a headers column (Aiven): the {@code headers} metadata column is
     * offered, and every history row has an empty map where its live row has the record's headers
     * (docs: "every metadata column as the topic's records have it").
     */
    @Test
    void headersMetadataIsNotOfferedWhenTheLayoutKeepsNoHeaders() {
        TableEnvironment tEnv = tables();
        tEnv.executeSql(
                "CREATE TABLE aiven_t (v STRING,"
                        + " h MAP<STRING, BYTES> METADATA FROM 'headers' VIRTUAL) WITH ("
                        + common()
                        + ", 'format' = 'raw',"
                        + " 'backfill.iceberg.table' = 'ns.t',"
                        + " 'backfill.iceberg.layout' = 'aiven',"
                        + " 'backfill.iceberg.catalog.type' = 'hadoop',"
                        + " 'backfill.iceberg.catalog.warehouse' = 'file:///tmp/none')");
        assertThatThrownBy(() -> tEnv.explainSql("SELECT * FROM aiven_t"))
                .as("the aiven layout keeps no headers: 'headers' must not be readable")
                .hasStackTraceContaining("headers");
    }

    /**
     * {@code backfill.iceberg.catalog-name} without {@code backfill.iceberg.table}: every other
     * Iceberg option fails naming itself, this one is silently ignored.
     */
    @Test
    void catalogNameWithoutTableFailsNamingIt() {
        Map<String, String> table = Map.of("backfill.iceberg.catalog-name", "lake");
        assertThatThrownBy(
                        () ->
                                KafkaBackfillDynamicTableFactory.iceberg(
                                        Configuration.fromMap(table),
                                        table,
                                        DataTypes.ROW(DataTypes.FIELD("v", DataTypes.STRING())),
                                        KafkaBackfillDynamicTableFactory.ICEBERG_MODULE_CLASS))
                .isInstanceOf(ValidationException.class)
                .hasMessageContaining("backfill.iceberg.catalog-name");
    }

    // ------------------------------------------------------------ the class path guard

    /**
     * The Iceberg module on the class path without Iceberg's own jars (the documented set-up is
     * "add flink-source-backfill-iceberg with Iceberg's and Hadoop's client jars"; forgetting the
     * latter): the guard loads the module's builder without linking it, passes, and the options
     * then fail with a raw NoClassDefFoundError instead of the ValidationException naming the
     * option the docs promise.
     */
    @Test
    void theModuleWithoutIcebergsJarsFailsNamingTheOption() throws Exception {
        ClassLoader loader =
                new Isolating(
                        getClass().getClassLoader(),
                        n ->
                                n.startsWith("org.apache.iceberg.")
                                        || n.startsWith("org.apache.hadoop."),
                        n ->
                                n.startsWith("dev.sourcebackfill.source.table.")
                                        || n.startsWith("dev.sourcebackfill.source.iceberg."));
        Map<String, String> table =
                Map.of(
                        "backfill.iceberg.table", "ns.t",
                        "backfill.iceberg.layout", "redpanda",
                        "backfill.iceberg.catalog.type", "rest");
        Throwable thrown = invokeIceberg(loader, table);
        assertThat(thrown)
                .as("planning without Iceberg's jars")
                .isInstanceOf(ValidationException.class)
                .hasMessageContaining("backfill.iceberg.table");
    }

    /**
     * Sound (passes): without the module the guard names the option, and a table without Iceberg
     * options never needs the module.
     */
    @Test
    void withoutTheModuleTheGuardNamesTheOption() throws Exception {
        ClassLoader loader =
                new Isolating(
                        getClass().getClassLoader(),
                        n ->
                                n.startsWith("org.apache.iceberg.")
                                        || n.startsWith("dev.sourcebackfill.source.iceberg."),
                        n -> n.startsWith("dev.sourcebackfill.source.table."));
        Throwable thrown =
                invokeIceberg(
                        loader,
                        Map.of(
                                "backfill.iceberg.table", "ns.t",
                                "backfill.iceberg.layout", "redpanda",
                                "backfill.iceberg.catalog.type", "rest"));
        assertThat(thrown)
                .isInstanceOf(ValidationException.class)
                .hasMessageContaining("backfill.iceberg.table");
        assertThat(invokeIceberg(loader, Map.of("topic", "t"))).isNull();
        // the source and the factory link without Iceberg
        Class.forName(KafkaBackfillDynamicSource.class.getName(), true, loader);
        Class.forName(KafkaBackfillDynamicTableFactory.class.getName(), true, loader);
    }

    /**
     * IcebergTableITCase runs {@code backfill.chunk-size} = 250 over 900 rows and asserts the same
     * rows as without it: with the option dropped on the way (a mutation passing {@code null} in
     * KafkaBackfillDynamicSource and not setting it in KafkaReadOptions) the ITCase still passes.
     * This test reads the chunk size the planned source has (passes today; kills that mutant).
     */
    @Test
    void theChunkSizeReachesThePlannedSource() throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        StreamTableEnvironment tEnv = StreamTableEnvironment.create(env);
        tEnv.executeSql(
                "CREATE TABLE chunked (v STRING) WITH ("
                        + common()
                        + ", 'format' = 'raw', 'backfill.chunk-size' = '250',"
                        + " 'backfill.iceberg.table' = 'ns.t',"
                        + " 'backfill.iceberg.layout' = 'redpanda',"
                        + " 'backfill.iceberg.catalog.type' = 'hadoop',"
                        + " 'backfill.iceberg.catalog.warehouse' = 'file:///tmp/none')");
        DataStream<Row> stream = tEnv.toDataStream(tEnv.from("chunked"));
        List<Transformation<?>> all =
                new ArrayList<>(stream.getTransformation().getTransitivePredecessors());
        SourceTransformation<?, ?, ?> source =
                all.stream()
                        .filter(t -> t instanceof SourceTransformation)
                        .map(t -> (SourceTransformation<?, ?, ?>) t)
                        .findFirst()
                        .orElseThrow();
        Object backfill = source.getSource();
        Method config = BackfillSource.class.getDeclaredMethod("config");
        config.setAccessible(true);
        BackfillSourceConfig<?> settings = (BackfillSourceConfig<?>) config.invoke(backfill);
        assertThat(settings.backfillChunkSize()).hasValue(250L);
    }

    // ------------------------------------------------------------ the snapshot tag

    /**
     * Issue 34, item 2: the snapshot tag's options, each wrong value failing at planning naming the
     * option: an empty name, the main branch's name, a max age that is not positive, a max age
     * without a name, a name without a max age, either without a table.
     */
    @Test
    void wrongSnapshotTagOptionsFailNamingTheOption() {
        Map<String, String> table =
                Map.of(
                        "backfill.iceberg.table", "ns.t",
                        "backfill.iceberg.layout", "redpanda",
                        "backfill.iceberg.catalog.type", "rest");
        assertIcebergOptionsFail(
                table,
                Map.of("backfill.iceberg.snapshot-tag", " "),
                "'backfill.iceberg.snapshot-tag' is empty");
        assertIcebergOptionsFail(
                table,
                Map.of(
                        "backfill.iceberg.snapshot-tag", "main",
                        "backfill.iceberg.snapshot-tag.max-age", "1 h"),
                "'backfill.iceberg.snapshot-tag' is 'main'");
        assertIcebergOptionsFail(
                table,
                Map.of(
                        "backfill.iceberg.snapshot-tag", "job-tag",
                        "backfill.iceberg.snapshot-tag.max-age", "0 s"),
                "'backfill.iceberg.snapshot-tag.max-age'",
                "at least a millisecond");
        assertIcebergOptionsFail(
                table,
                Map.of("backfill.iceberg.snapshot-tag.max-age", "1 h"),
                "'backfill.iceberg.snapshot-tag.max-age' is set without"
                        + " 'backfill.iceberg.snapshot-tag'");
        assertIcebergOptionsFail(
                table,
                Map.of("backfill.iceberg.snapshot-tag", "job-tag"),
                "'backfill.iceberg.snapshot-tag.max-age' is required with"
                        + " 'backfill.iceberg.snapshot-tag'");
        assertIcebergOptionsFail(
                Map.of(),
                Map.of(
                        "backfill.iceberg.snapshot-tag", "job-tag",
                        "backfill.iceberg.snapshot-tag.max-age", "1 h"),
                "'backfill.iceberg.snapshot-tag' needs 'backfill.iceberg.table'");
        assertIcebergOptionsFail(
                Map.of(),
                Map.of("backfill.iceberg.snapshot-tag.max-age", "1 h"),
                "'backfill.iceberg.snapshot-tag.max-age' needs 'backfill.iceberg.table'");
    }

    private static void assertIcebergOptionsFail(
            Map<String, String> table, Map<String, String> more, String... named) {
        Map<String, String> all = new java.util.HashMap<>(table);
        all.putAll(more);
        assertThatThrownBy(
                        () ->
                                KafkaBackfillDynamicTableFactory.iceberg(
                                        Configuration.fromMap(all),
                                        all,
                                        DataTypes.ROW(DataTypes.FIELD("v", DataTypes.STRING())),
                                        KafkaBackfillDynamicTableFactory.ICEBERG_MODULE_CLASS))
                .as("%s", more)
                .isInstanceOf(ValidationException.class)
                .satisfies(
                        e -> {
                            for (String part : named) {
                                assertThat(e.getMessage()).contains(part);
                            }
                        });
    }

    /** The tag's name and max age reach the planned source's Iceberg log. */
    @Test
    void theSnapshotTagReachesThePlannedSource() throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        StreamTableEnvironment tEnv = StreamTableEnvironment.create(env);
        tEnv.executeSql(
                "CREATE TABLE tagged (v STRING) WITH ("
                        + common()
                        + ", 'format' = 'raw',"
                        + " 'backfill.iceberg.table' = 'ns.t',"
                        + " 'backfill.iceberg.layout' = 'redpanda',"
                        + " 'backfill.iceberg.snapshot-tag' = 'orders-job',"
                        + " 'backfill.iceberg.snapshot-tag.max-age' = '7 d',"
                        + " 'backfill.iceberg.catalog.type' = 'hadoop',"
                        + " 'backfill.iceberg.catalog.warehouse' = 'file:///tmp/none')");
        Object backfill = plannedSource(tEnv.toDataStream(tEnv.from("tagged")));
        Field log = BackfillSource.class.getDeclaredField("log");
        log.setAccessible(true);
        assertThat(log.get(backfill).toString())
                .contains("snapshot tag 'orders-job' (max age PT168H)");
    }

    private static Object plannedSource(DataStream<Row> stream) {
        List<Transformation<?>> all =
                new ArrayList<>(stream.getTransformation().getTransitivePredecessors());
        return all.stream()
                .filter(t -> t instanceof SourceTransformation)
                .map(t -> ((SourceTransformation<?, ?, ?>) t).getSource())
                .findFirst()
                .orElseThrow();
    }

    /**
     * {@code backfill.iceberg.ordered} reaches the planned source: its log reads without chunks (no
     * chunk size set), where the default mode cuts the history into chunks.
     */
    @Test
    void theOrderedOptionReachesThePlannedSource() throws Exception {
        BackfillSource<?> ordered =
                plannedSource("ordered_t", ", 'backfill.iceberg.ordered' = 'true'");
        assertThat(ordered.getLog().supportsHistoryChunks()).isFalse();
        assertThat(ordered.getLog().toString()).contains(", ordered");
        assertThat(configOf(ordered).backfillChunkSize()).isEmpty();

        BackfillSource<?> chunked = plannedSource("chunked_t", "");
        assertThat(chunked.getLog().supportsHistoryChunks()).isTrue();
        assertThat(chunked.getLog().toString()).doesNotContain(", ordered");
        assertThat(configOf(chunked).backfillChunkSize()).isPresent();
    }

    /** Ordered mode reads the pinned snapshot too, and keeps it with the tag the options set. */
    @Test
    void theOrderedOptionTakesTheSnapshotTag() throws Exception {
        BackfillSource<?> ordered =
                plannedSource(
                        "ordered_tagged",
                        ", 'backfill.iceberg.ordered' = 'true',"
                                + " 'backfill.iceberg.snapshot-tag' = 'job-tag',"
                                + " 'backfill.iceberg.snapshot-tag.max-age' = '1 h'");
        assertThat(ordered.getLog().toString()).contains(", ordered").contains("job-tag");
    }

    /** A value that is not a boolean, or a chunk size beside it, fails at planning naming it. */
    @Test
    void badOrderedValuesFailAtPlanningNamingTheOption() {
        TableEnvironment tEnv = tables();
        tEnv.executeSql(
                "CREATE TABLE bad_ordered (v STRING) WITH ("
                        + common()
                        + ", 'format' = 'raw', 'backfill.iceberg.ordered' = 'maybe',"
                        + " 'backfill.iceberg.table' = 'ns.t',"
                        + " 'backfill.iceberg.layout' = 'redpanda',"
                        + " 'backfill.iceberg.catalog.type' = 'hadoop',"
                        + " 'backfill.iceberg.catalog.warehouse' = 'file:///tmp/none')");
        assertThatThrownBy(() -> tEnv.explainSql("SELECT * FROM bad_ordered"))
                .hasStackTraceContaining("backfill.iceberg.ordered")
                .hasStackTraceContaining("maybe");

        tEnv.executeSql(
                "CREATE TABLE ordered_chunked (v STRING) WITH ("
                        + common()
                        + ", 'format' = 'raw', 'backfill.iceberg.ordered' = 'true',"
                        + " 'backfill.chunk-size' = '100',"
                        + " 'backfill.iceberg.table' = 'ns.t',"
                        + " 'backfill.iceberg.layout' = 'redpanda',"
                        + " 'backfill.iceberg.catalog.type' = 'hadoop',"
                        + " 'backfill.iceberg.catalog.warehouse' = 'file:///tmp/none')");
        assertThat(ourValidationMessage(() -> tEnv.explainSql("SELECT * FROM ordered_chunked")))
                .hasValueSatisfying(
                        message ->
                                assertThat(message)
                                        .contains("'backfill.iceberg.ordered'")
                                        .contains("'backfill.chunk-size'"));

        // without a table the option means nothing: it fails naming itself
        tEnv.executeSql(
                "CREATE TABLE ordered_alone (v STRING) WITH ("
                        + common()
                        + ", 'format' = 'raw', 'backfill.iceberg.ordered' = 'true')");
        assertThat(ourValidationMessage(() -> tEnv.explainSql("SELECT * FROM ordered_alone")))
                .hasValueSatisfying(
                        message -> assertThat(message).contains("'backfill.iceberg.ordered'"));
    }

    private static BackfillSource<?> plannedSource(String name, String extraOptions) {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        StreamTableEnvironment tEnv = StreamTableEnvironment.create(env);
        tEnv.executeSql(
                "CREATE TABLE "
                        + name
                        + " (v STRING) WITH ("
                        + common()
                        + ", 'format' = 'raw'"
                        + extraOptions
                        + ", 'backfill.iceberg.table' = 'ns.t',"
                        + " 'backfill.iceberg.layout' = 'redpanda',"
                        + " 'backfill.iceberg.catalog.type' = 'hadoop',"
                        + " 'backfill.iceberg.catalog.warehouse' = 'file:///tmp/none')");
        DataStream<Row> stream = tEnv.toDataStream(tEnv.from(name));
        List<Transformation<?>> all =
                new ArrayList<>(stream.getTransformation().getTransitivePredecessors());
        return (BackfillSource<?>)
                all.stream()
                        .filter(t -> t instanceof SourceTransformation)
                        .map(t -> ((SourceTransformation<?, ?, ?>) t).getSource())
                        .findFirst()
                        .orElseThrow();
    }

    private static BackfillSourceConfig<?> configOf(BackfillSource<?> source) throws Exception {
        Method config = BackfillSource.class.getDeclaredMethod("config");
        config.setAccessible(true);
        return (BackfillSourceConfig<?>) config.invoke(source);
    }

    // ------------------------------------------------------------ helpers

    private static Schema connectSchema(Types.NestedField column) {
        return new Schema(
                column,
                Types.NestedField.optional(3, "_kafka_metadata_topic", Types.StringType.get()),
                Types.NestedField.optional(4, "_kafka_metadata_partition", Types.IntegerType.get()),
                Types.NestedField.optional(5, "_kafka_metadata_offset", Types.LongType.get()),
                Types.NestedField.optional(6, "_kafka_metadata_timestamp", Types.LongType.get()));
    }

    private static GenericRecord connectRow(Schema schema) {
        GenericRecord row = GenericRecord.create(schema);
        row.setField("_kafka_metadata_topic", "t");
        row.setField("_kafka_metadata_partition", 0);
        row.setField("_kafka_metadata_offset", 7L);
        row.setField("_kafka_metadata_timestamp", 1_000L);
        return row;
    }

    /**
     * The one-column row IcebergColumnsMapper makes of {@code row}, as the COLUMNS mode runs it.
     */
    private static RowData map(String column, LogicalType type, GenericRecord row) {
        IcebergColumnValue converter = IcebergColumnValue.of(type);
        assertThat(converter).as("a conversion to %s", type).isNotNull();
        IcebergColumnsMapper mapper =
                new IcebergColumnsMapper(
                        new String[] {column},
                        new IcebergColumnValue[] {converter},
                        new boolean[] {!type.isNullable()},
                        new int[] {0},
                        1,
                        new ReadableMetadata[0],
                        CONNECT,
                        "t");
        List<RowData> out = new ArrayList<>();
        mapper.map(row, new ListCollector<>(out));
        assertThat(out).hasSize(1);
        return out.get(0);
    }

    private static String common() {
        return "'connector' = 'kafka-backfill', 'topic' = 't',"
                + " 'properties.bootstrap.servers' = 'localhost:1',"
                + " 'scan.startup.mode' = 'earliest-offset'";
    }

    private static TableEnvironment tables() {
        return TableEnvironment.create(EnvironmentSettings.inStreamingMode());
    }

    /**
     * The message of the ValidationException our factory threw (not Flink's wrapper, which lists
     * every table option), if planning failed with one.
     */
    private static Optional<String> ourValidationMessage(Runnable planning) {
        Throwable thrown = catchThrowable(planning::run);
        for (Throwable t = thrown; t != null; t = t.getCause()) {
            if (t instanceof ValidationException
                    && !String.valueOf(t.getMessage()).startsWith("Unable to create a source")) {
                return Optional.of(t.getMessage());
            }
        }
        return Optional.empty();
    }

    /** KafkaBackfillDynamicTableFactory#iceberg in {@code loader}: what it threw, or returned. */
    private static Object invokeIcebergResult(ClassLoader loader, Map<String, String> table)
            throws Exception {
        Class<?> factory =
                Class.forName(KafkaBackfillDynamicTableFactory.class.getName(), true, loader);
        Method iceberg =
                factory.getDeclaredMethod(
                        "iceberg", ReadableConfig.class, Map.class, DataType.class, String.class);
        iceberg.setAccessible(true);
        try {
            return iceberg.invoke(
                    null,
                    Configuration.fromMap(table),
                    table,
                    DataTypes.ROW(DataTypes.FIELD("v", DataTypes.STRING())),
                    KafkaBackfillDynamicTableFactory.ICEBERG_MODULE_CLASS);
        } catch (InvocationTargetException e) {
            return e.getCause();
        }
    }

    private static Throwable invokeIceberg(ClassLoader loader, Map<String, String> table)
            throws Exception {
        Object result = invokeIcebergResult(loader, table);
        return result instanceof Throwable ? (Throwable) result : null;
    }

    /**
     * A class loader that hides some classes and defines others itself (so that they resolve their
     * references through it), the rest from the parent.
     */
    private static final class Isolating extends ClassLoader {
        private final ClassLoader source;
        private final Predicate<String> hidden;
        private final Predicate<String> own;

        Isolating(ClassLoader source, Predicate<String> hidden, Predicate<String> own) {
            super(source);
            this.source = source;
            this.hidden = hidden;
            this.own = own;
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            synchronized (getClassLoadingLock(name)) {
                if (hidden.test(name)) {
                    throw new ClassNotFoundException(name + " (hidden)");
                }
                if (own.test(name)) {
                    Class<?> loaded = findLoadedClass(name);
                    if (loaded == null) {
                        try (InputStream in =
                                source.getResourceAsStream(name.replace('.', '/') + ".class")) {
                            if (in == null) {
                                throw new ClassNotFoundException(name);
                            }
                            byte[] bytes = in.readAllBytes();
                            loaded = defineClass(name, bytes, 0, bytes.length);
                        } catch (IOException e) {
                            throw new ClassNotFoundException(name, e);
                        }
                    }
                    if (resolve) {
                        resolveClass(loaded);
                    }
                    return loaded;
                }
                return super.loadClass(name, resolve);
            }
        }
    }
}
