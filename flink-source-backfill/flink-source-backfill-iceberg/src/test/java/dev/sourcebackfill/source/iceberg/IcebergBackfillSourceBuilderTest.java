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
package dev.sourcebackfill.source.iceberg;

import dev.sourcebackfill.source.BackfillSource;
import dev.sourcebackfill.source.BackfillSourceConfig;
import dev.sourcebackfill.source.kafka.KafkaBackfill;
import dev.sourcebackfill.source.kafka.KafkaBackfillSourceBuilder;

import org.apache.flink.api.common.serialization.SimpleStringSchema;
import org.apache.flink.connector.kafka.source.reader.deserializer.KafkaRecordDeserializationSchema;

import org.junit.jupiter.api.Test;

import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Map;
import java.util.function.Consumer;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Every option is checked at build time, the error naming the option. */
class IcebergBackfillSourceBuilderTest {

    private static final Map<String, String> CATALOG =
            Map.of("type", "rest", "uri", "http://127.0.0.1:1");

    private static KafkaBackfillSourceBuilder<String> live(String... topics) {
        return KafkaBackfill.<String>sourceBuilder()
                .setBootstrapServers("127.0.0.1:1")
                .setTopics(topics)
                .setValueOnlyDeserializer(new SimpleStringSchema());
    }

    private static IcebergBackfillSourceBuilder<String> valid() {
        return IcebergBackfill.<String>sourceBuilder()
                .setCatalog("lake", CATALOG)
                .setTable("db.orders")
                .setLayout(IcebergLayout.redpanda())
                .setLive(live("orders"));
    }

    private static void fails(
            Consumer<IcebergBackfillSourceBuilder<String>> change, String... parts) {
        IcebergBackfillSourceBuilder<String> builder = valid();
        change.accept(builder);
        assertThatThrownBy(builder::build)
                .isInstanceOf(IllegalArgumentException.class)
                .satisfies(
                        e -> {
                            for (String part : parts) {
                                assertThat(e.getMessage()).contains(part);
                            }
                        });
    }

    /**
     * Issue 38: what of each row the table's reader reads follows what makes the values: the whole
     * row for a mapper, the Kafka record for the topic's deserializer, its value alone for a
     * value-only one.
     */
    @Test
    void theRowsAreReadForWhatMakesTheValues() {
        assertThat(valuesFrom(valid())).isEqualTo(TableFiles.ValuesFrom.KAFKA_VALUES);
        assertThat(
                        valuesFrom(
                                valid().setLive(
                                                live("orders")
                                                        .setDeserializer(
                                                                KafkaRecordDeserializationSchema
                                                                        .valueOnly(
                                                                                new SimpleStringSchema())))))
                .as("a whole-record deserializer, whatever it reads")
                .isEqualTo(TableFiles.ValuesFrom.KAFKA_RECORDS);
        assertThat(
                        valuesFrom(
                                valid().setLive(live("orders"))
                                        .setRecordMapper(
                                                (row, out) -> out.collect(row.toString()))))
                .isEqualTo(TableFiles.ValuesFrom.ROWS);
    }

    private static TableFiles.ValuesFrom valuesFrom(IcebergBackfillSourceBuilder<String> builder) {
        return ((IcebergBackfillLog<String>) builder.build().getLog()).valuesFrom();
    }

    @Test
    void aValidBuilderBuildsAndCutsTheTableIntoChunksByDefault() {
        assertThat(valid().build()).isNotNull();
        assertThat(IcebergBackfillSourceBuilder.DEFAULT_CHUNK_SIZE).isPositive();
    }

    @Test
    void eachWrongOptionFailsNamingIt() {
        fails(b -> b.setCatalog(" ", CATALOG), "'catalog' (setCatalog)", "no name");
        fails(b -> b.setCatalog("lake", null), "'catalog' (setCatalog)", "no properties");
        fails(
                b -> b.setCatalog("lake", Map.of("uri", "x")),
                "'catalog' (setCatalog)",
                "'type'",
                "'catalog-impl'");
        fails(b -> b.setTable(null), "'table' (setTable)", "is not set");
        fails(b -> b.setLayout(null), "'layout' (setLayout)", "is not set");
        fails(
                b -> b.setLayout(IcebergLayout.kafkaConnect()),
                "'record mapper' (setRecordMapper)",
                "keeps no record value");
        fails(b -> b.setLive(null), "'live' (setLive)", "is not set");
        fails(
                b ->
                        b.setLive(
                                KafkaBackfill.<String>sourceBuilder()
                                        .setBootstrapServers("127.0.0.1:1")
                                        .setTopicPattern(Pattern.compile("o.*"))
                                        .setValueOnlyDeserializer(new SimpleStringSchema())),
                "'live' (setLive)",
                "setTopics");
        fails(b -> b.setLive(live("a", "b")), "'layout' (setLayout)", "no topic column", "[a, b]");
        fails(b -> b.setMaxRecordsPerPoll(0), "'max records per poll'", "at least 1");
        fails(b -> b.setBackfillChunkSize(0), "'backfill chunk size'", "must be positive");
    }

    /** Issue 34, item 2: the snapshot tag's name and max age, checked at build time. */
    @Test
    void aWrongSnapshotTagFailsNamingTheOption() throws Exception {
        fails(
                b -> b.setSnapshotTag(" ", Duration.ofHours(1)),
                "'snapshot tag' (setSnapshotTag)",
                "empty name");
        fails(
                b -> b.setSnapshotTag(null, Duration.ofHours(1)),
                "'snapshot tag' (setSnapshotTag)",
                "empty name");
        fails(
                b -> b.setSnapshotTag("main", Duration.ofHours(1)),
                "'snapshot tag' (setSnapshotTag)",
                "main branch");
        fails(
                b -> b.setSnapshotTag("job-tag", Duration.ZERO),
                "'snapshot tag' (setSnapshotTag)",
                "max age PT0S",
                "at least a millisecond");
        fails(
                b -> b.setSnapshotTag("job-tag", Duration.ofMinutes(-5)),
                "'snapshot tag' (setSnapshotTag)",
                "at least a millisecond");
        fails(
                b -> b.setSnapshotTag("job-tag", null),
                "'snapshot tag' (setSnapshotTag)",
                "max age null");
        assertThat(logOf(valid().setSnapshotTag("job-tag", Duration.ofHours(6)).build()))
                .as("the tag reaches the source's log")
                .contains("snapshot tag 'job-tag' (max age PT6H)");
        assertThat(logOf(valid().build())).contains("no snapshot tag");
    }

    /** The source's log, as its description shows it. */
    static String logOf(BackfillSource<?> source) throws ReflectiveOperationException {
        Field log = BackfillSource.class.getDeclaredField("log");
        log.setAccessible(true);
        return log.get(source).toString();
    }

    @Test
    void orderedModeIsOffByDefaultAndWhenOnReadsWithoutChunks() throws Exception {
        BackfillSource<String> chunked = valid().build();
        IcebergBackfillLog<String> chunkedLog = (IcebergBackfillLog<String>) chunked.getLog();
        assertThat(chunkedLog.isOrdered()).isFalse();
        assertThat(chunkedLog.supportsHistoryChunks()).isTrue();
        assertThat(configOf(chunked).backfillChunkSize())
                .hasValue(IcebergBackfillSourceBuilder.DEFAULT_CHUNK_SIZE);

        BackfillSource<String> ordered = valid().setOrdered(true).build();
        IcebergBackfillLog<String> orderedLog = (IcebergBackfillLog<String>) ordered.getLog();
        assertThat(orderedLog.isOrdered()).isTrue();
        assertThat(orderedLog.supportsHistoryChunks()).isFalse();
        assertThat(configOf(ordered).backfillChunkSize()).isEmpty();
        assertThat(orderedLog.backfillReading().createReader(null))
                .isInstanceOf(OrderedTableReader.class);
    }

    @Test
    void orderedModeRefusesAChunkSizeNamingBothOptions() {
        fails(
                b -> b.setOrdered(true).setBackfillChunkSize(1_000),
                "'ordered' (setOrdered)",
                "setBackfillChunkSize");
    }

    /** Ordered mode reads the pinned snapshot too: the tag keeps it. */
    @Test
    void orderedModeTakesASnapshotTag() {
        BackfillSource<String> ordered =
                valid().setOrdered(true)
                        .setSnapshotTag("orders-backfill", Duration.ofDays(1))
                        .build();
        assertThat(ordered.getLog().toString()).contains(", ordered").contains("orders-backfill");
    }

    private static BackfillSourceConfig<?> configOf(BackfillSource<?> source) throws Exception {
        Method config = BackfillSource.class.getDeclaredMethod("config");
        config.setAccessible(true);
        return (BackfillSourceConfig<?>) config.invoke(source);
    }

    @Test
    void aMapperMakesLayoutsWithoutValueBytesValidAndATopicColumnAllowsSeveralTopics() {
        assertThat(
                        valid().setLayout(IcebergLayout.kafkaConnect())
                                .setRecordMapper((row, out) -> out.collect("x"))
                                .setLive(live("a", "b"))
                                .build())
                .isNotNull();
    }
}
