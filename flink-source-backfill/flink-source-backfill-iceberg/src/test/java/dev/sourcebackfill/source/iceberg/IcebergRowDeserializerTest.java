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

import dev.sourcebackfill.source.iceberg.IcebergTestTables.Kind;
import dev.sourcebackfill.source.spi.LogRecordDeserializer;

import org.apache.flink.util.Collector;

import org.apache.iceberg.Schema;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Types;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Values of table rows: through the topic's deserializer, or by a mapper. */
class IcebergRowDeserializerTest {

    private static final String TOPIC = "orders";

    private static final class Values implements Collector<String> {
        final List<String> values = new ArrayList<>();

        @Override
        public void collect(String value) {
            values.add(value);
        }

        @Override
        public void close() {}
    }

    /** A Redpanda row with headers. */
    private static Record redpandaRow(String value) {
        Schema schema = Kind.REDPANDA.schema();
        Record row =
                IcebergTestTables.row(
                        Kind.REDPANDA, schema, TOPIC, 3, 42, value == null ? "x" : value);
        Record meta = (Record) row.getField("redpanda");
        GenericRecord header =
                GenericRecord.create(
                        schema.findType("redpanda.headers")
                                .asListType()
                                .elementType()
                                .asStructType());
        header.setField("key", ByteBuffer.wrap("trace".getBytes(StandardCharsets.UTF_8)));
        header.setField("value", ByteBuffer.wrap(new byte[] {1, 2}));
        meta.setField("headers", List.of(header));
        if (value == null) {
            row.setField("value", null);
        }
        return row;
    }

    @Test
    void theTopicsDeserializerGetsTheRecordTheRowKeeps() throws IOException {
        List<ConsumerRecord<byte[], byte[]>> seen = new ArrayList<>();
        LogRecordDeserializer<ConsumerRecord<byte[], byte[]>, String> kafka =
                (splitId, offset, record, out) -> {
                    seen.add(record);
                    out.collect(splitId + "@" + offset);
                };
        Values out = new Values();
        IcebergRowDeserializer.throughKafkaDeserializer(
                        new RowColumns(Kind.REDPANDA.layout, TOPIC), kafka)
                .deserialize(
                        "iceberg:db.t@1",
                        7,
                        TableRow.read(
                                new RowColumns(Kind.REDPANDA.layout, TOPIC), redpandaRow("T|3|42")),
                        out);

        assertThat(out.values).containsExactly(TOPIC + "-3@42");
        ConsumerRecord<byte[], byte[]> record = seen.get(0);
        assertThat(record.topic()).isEqualTo(TOPIC);
        assertThat(record.partition()).isEqualTo(3);
        assertThat(record.offset()).isEqualTo(42);
        assertThat(record.timestamp()).isEqualTo(IcebergTestTables.BASE_MILLIS + 42);
        assertThat(new String(record.value(), StandardCharsets.UTF_8)).isEqualTo("T|3|42");
        assertThat(new String(record.key(), StandardCharsets.UTF_8)).isEqualTo("k42");
        Header header = record.headers().lastHeader("trace");
        assertThat(header.value()).containsExactly(1, 2);
    }

    /**
     * A fresh column reader's first row, and the first row of another schema (a file written after
     * the table's schema changed): the key, value and headers are the row's own (they were read at
     * the positions of the struct bound before).
     */
    @Test
    void theKeyValueAndHeadersOfTheFirstRowOfEachSchemaAreItsOwn() throws IOException {
        RowColumns columns = new RowColumns(Kind.REDPANDA.layout, TOPIC);
        List<ConsumerRecord<byte[], byte[]>> seen = new ArrayList<>();
        LogRecordDeserializer<TableRow, String> values =
                IcebergRowDeserializer.throughKafkaDeserializer(
                        columns, (splitId, offset, record, out) -> seen.add(record));
        // another schema: a column added before the value, so every position moves
        Schema wider =
                new Schema(
                        Types.NestedField.optional(99, "added", Types.StringType.get()),
                        Kind.REDPANDA.schema().findField("redpanda"),
                        Kind.REDPANDA.schema().findField("value"));
        Record first = redpandaRow("first");
        Record second = GenericRecord.create(wider);
        second.setField("added", "x");
        second.setField("redpanda", first.getField("redpanda"));
        second.setField("value", ByteBuffer.wrap("second".getBytes(StandardCharsets.UTF_8)));
        values.deserialize(
                "s",
                0,
                TableRow.read(new RowColumns(Kind.REDPANDA.layout, TOPIC), first),
                new Values());
        values.deserialize(
                "s",
                1,
                TableRow.read(new RowColumns(Kind.REDPANDA.layout, TOPIC), second),
                new Values());

        assertThat(seen).hasSize(2);
        assertThat(new String(seen.get(0).value(), StandardCharsets.UTF_8)).isEqualTo("first");
        assertThat(new String(seen.get(0).key(), StandardCharsets.UTF_8)).isEqualTo("k42");
        assertThat(seen.get(0).headers().lastHeader("trace")).isNotNull();
        assertThat(new String(seen.get(1).value(), StandardCharsets.UTF_8)).isEqualTo("second");
        assertThat(new String(seen.get(1).key(), StandardCharsets.UTF_8)).isEqualTo("k42");
    }

    /** Rows alternating between partitions and topics each go with their own partition's id. */
    @Test
    void eachRowGoesWithTheSplitIdOfItsOwnTopicAndPartition() throws IOException {
        Kind kind = Kind.KAFKA_CONNECT;
        Schema schema = kind.schema();
        LogRecordDeserializer<ConsumerRecord<byte[], byte[]>, String> kafka =
                (splitId, offset, record, out) -> out.collect(splitId + "@" + offset);
        RowColumns columns = new RowColumns(kind.layout, null);
        LogRecordDeserializer<TableRow, String> values =
                IcebergRowDeserializer.throughKafkaDeserializer(columns, kafka);
        Values out = new Values();
        String[][] rows = {{"a", "0"}, {"a", "1"}, {"b", "1"}, {"a", "40"}, {"a", "1"}, {"b", "0"}};
        long offset = 0;
        for (String[] row : rows) {
            values.deserialize(
                    "iceberg:db.t@1",
                    offset,
                    TableRow.read(
                            columns,
                            IcebergTestTables.row(
                                    kind, schema, row[0], Integer.parseInt(row[1]), offset, "v")),
                    out);
            offset++;
        }
        assertThat(out.values)
                .containsExactly("a-0@0", "a-1@1", "b-1@2", "a-40@3", "a-1@4", "b-0@5");
    }

    @Test
    void aRowWithoutValueGivesTheDeserializerANullValue() throws IOException {
        List<ConsumerRecord<byte[], byte[]>> seen = new ArrayList<>();
        IcebergRowDeserializer.<String>throughKafkaDeserializer(
                        new RowColumns(Kind.REDPANDA.layout, TOPIC),
                        (splitId, offset, record, out) -> seen.add(record))
                .deserialize(
                        "iceberg:db.t@1",
                        7,
                        TableRow.read(
                                new RowColumns(Kind.REDPANDA.layout, TOPIC), redpandaRow(null)),
                        new Values());

        assertThat(seen.get(0).value()).isNull();
        assertThat(seen.get(0).serializedValueSize()).isEqualTo(ConsumerRecord.NULL_SIZE);
    }

    @Test
    void aMapperMakesAnyNumberOfValuesAndItsFailureNamesTheRecord() throws IOException {
        RowColumns columns = new RowColumns(Kind.AIVEN.layout, TOPIC);
        TableRow row =
                TableRow.read(
                        columns,
                        IcebergTestTables.row(Kind.AIVEN, Kind.AIVEN.schema(), TOPIC, 1, 9, "v"));
        Values out = new Values();
        IcebergRowDeserializer.<String>mapped(
                        (r, o) -> {
                            o.collect("a");
                            o.collect("b");
                        },
                        columns)
                .deserialize("s", 0, row, out);
        IcebergRowDeserializer.<String>mapped((r, o) -> {}, columns).deserialize("s", 0, row, out);
        assertThat(out.values).containsExactly("a", "b");

        assertThatThrownBy(
                        () ->
                                IcebergRowDeserializer.<String>mapped(
                                                (r, o) -> {
                                                    throw new IllegalArgumentException("bad row");
                                                },
                                                columns)
                                        .deserialize("s", 0, row, new Values()))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("topic " + TOPIC + " partition 1 offset 9")
                .hasMessageContaining("bad row");
    }

    @Test
    void aFailureDownstreamOfTheMapperIsPassedOnAsItIs() {
        RowColumns columns = new RowColumns(Kind.AIVEN.layout, TOPIC);
        TableRow row =
                TableRow.read(
                        columns,
                        IcebergTestTables.row(Kind.AIVEN, Kind.AIVEN.schema(), TOPIC, 1, 9, "v"));
        IllegalStateException downstream = new IllegalStateException("sink failed");
        Collector<String> failing =
                new Collector<>() {
                    @Override
                    public void collect(String record) {
                        throw downstream;
                    }

                    @Override
                    public void close() {}
                };
        assertThatThrownBy(
                        () ->
                                IcebergRowDeserializer.<String>mapped(
                                                (r, o) -> o.collect("a"), columns)
                                        .deserialize("s", 0, row, failing))
                .isSameAs(downstream);
    }
}
