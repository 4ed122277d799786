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

import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.formats.raw.RawFormatDeserializationSchema;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.runtime.typeutils.InternalTypeInfo;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.table.types.logical.VarCharType;
import org.apache.flink.util.Collector;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The Kafka record to table row join, against what Flink's Kafka connector does. */
class RowDataKafkaDeserializerTest {

    private static final TypeInformation<RowData> ONE_STRING =
            InternalTypeInfo.of(RowType.of(new VarCharType(VarCharType.MAX_LENGTH)));

    private static List<RowData> deserialize(
            RowDataKafkaDeserializer deserializer, ConsumerRecord<byte[], byte[]> record)
            throws Exception {
        List<RowData> rows = new ArrayList<>();
        deserializer.deserialize(
                record,
                new Collector<>() {
                    @Override
                    public void collect(RowData row) {
                        rows.add(row);
                    }

                    @Override
                    public void close() {}
                });
        return rows;
    }

    /**
     * As Flink's Kafka SQL connector: a tombstone (null value) goes to the value format, and 'raw'
     * makes a row with a NULL column of it.
     */
    @Test
    void rawValueFormatTombstoneIsARowWithNullAsInFlinksKafkaConnector() throws Exception {
        RawFormatDeserializationSchema raw =
                new RawFormatDeserializationSchema(
                        new VarCharType(VarCharType.MAX_LENGTH), ONE_STRING, "UTF-8", true);
        raw.open(null);
        // what the format itself does with a null message
        RowData fromFormat = raw.deserialize(null);
        assertThat(fromFormat).isNotNull();
        assertThat(fromFormat.isNullAt(0)).isTrue();

        RowDataKafkaDeserializer deserializer =
                new RowDataKafkaDeserializer(
                        null, raw, new int[0], new int[] {0}, 1, List.of(), ONE_STRING);
        List<RowData> rows =
                deserialize(deserializer, new ConsumerRecord<>("t", 0, 7L, "k".getBytes(), null));
        assertThat(rows).hasSize(1);
        assertThat(rows.get(0).isNullAt(0)).isTrue();
    }

    /**
     * A value format that emits several rows per record and reuses its row object between collect
     * calls (allowed: Flink's connector projects each row as it is collected) must give each row,
     * not the last one several times.
     */
    @Test
    void valueFormatReusingItsRowAcrossSeveralRowsGivesEachRow() throws Exception {
        DeserializationSchema<RowData> splitting = splitting(true);
        RowDataKafkaDeserializer deserializer =
                new RowDataKafkaDeserializer(
                        null,
                        splitting,
                        new int[0],
                        new int[] {0},
                        1,
                        List.of(ReadableMetadata.OFFSET),
                        ONE_STRING);
        List<RowData> rows =
                deserialize(
                        deserializer,
                        new ConsumerRecord<>(
                                "t", 0, 7L, null, "a,b,c".getBytes(StandardCharsets.UTF_8)));
        assertThat(rows).extracting(r -> r.getString(0).toString()).containsExactly("a", "b", "c");
    }

    /** A format that makes a row of each comma-separated part, reusing one row object or not. */
    private static DeserializationSchema<RowData> splitting(boolean reuseRow) {
        return new DeserializationSchema<>() {
            private final GenericRowData reuse = new GenericRowData(1);

            @Override
            public RowData deserialize(byte[] message) {
                throw new UnsupportedOperationException();
            }

            @Override
            public void deserialize(byte[] message, Collector<RowData> out) {
                if (message == null) {
                    return;
                }
                for (String part : new String(message, StandardCharsets.UTF_8).split(",")) {
                    GenericRowData row = reuseRow ? reuse : new GenericRowData(1);
                    row.setField(0, StringData.fromString(part));
                    out.collect(row);
                }
            }

            @Override
            public boolean isEndOfStream(RowData nextElement) {
                return false;
            }

            @Override
            public TypeInformation<RowData> getProducedType() {
                return ONE_STRING;
            }
        };
    }

    private static final TypeInformation<RowData> TWO_STRINGS =
            InternalTypeInfo.of(
                    RowType.of(
                            new VarCharType(VarCharType.MAX_LENGTH),
                            new VarCharType(VarCharType.MAX_LENGTH)));

    /** Key in column 0 (through {@code key}), value in column 1 (raw). */
    private static RowDataKafkaDeserializer keyAndValue(DeserializationSchema<RowData> key)
            throws Exception {
        RawFormatDeserializationSchema value =
                new RawFormatDeserializationSchema(
                        new VarCharType(VarCharType.MAX_LENGTH), ONE_STRING, "UTF-8", true);
        value.open(null);
        return new RowDataKafkaDeserializer(
                key, value, new int[] {0}, new int[] {1}, 2, List.of(), TWO_STRINGS);
    }

    private static ConsumerRecord<byte[], byte[]> record(String key, String value) {
        return new ConsumerRecord<>(
                "t",
                0,
                7L,
                key == null ? null : key.getBytes(StandardCharsets.UTF_8),
                value == null ? null : value.getBytes(StandardCharsets.UTF_8));
    }

    private static List<String> strings(List<RowData> rows) {
        List<String> strings = new ArrayList<>();
        for (RowData row : rows) {
            strings.add(
                    (row.isNullAt(0) ? "null" : row.getString(0).toString())
                            + "/"
                            + (row.isNullAt(1) ? "null" : row.getString(1).toString()));
        }
        return strings;
    }

    /**
     * As Flink's Kafka SQL connector: a key the key format makes no row of (here a missing key)
     * gives no row, whatever the value.
     */
    @Test
    void aKeyTheKeyFormatMakesNothingOfGivesNoRowAsInFlinksKafkaConnector() throws Exception {
        RowDataKafkaDeserializer deserializer = keyAndValue(splitting(false));
        assertThat(deserialize(deserializer, record(null, "v"))).isEmpty();
        assertThat(strings(deserialize(deserializer, record("k", "v")))).containsExactly("k/v");
    }

    /**
     * As Flink's Kafka SQL connector: a missing key goes to the key format too; {@code raw} makes a
     * row with a NULL column of it, so the record gives a row with a NULL key.
     */
    @Test
    void aMissingKeyGoesToTheKeyFormatAsInFlinksKafkaConnector() throws Exception {
        RawFormatDeserializationSchema raw =
                new RawFormatDeserializationSchema(
                        new VarCharType(VarCharType.MAX_LENGTH), ONE_STRING, "UTF-8", true);
        raw.open(null);
        RowDataKafkaDeserializer deserializer = keyAndValue(raw);
        assertThat(strings(deserialize(deserializer, record(null, "v")))).containsExactly("null/v");
    }

    /**
     * As Flink's Kafka SQL connector: one row for each key row (the Kafka source then refuses a
     * record that gives more than one row).
     */
    @Test
    void severalKeyRowsGiveARowEachAsInFlinksKafkaConnector() throws Exception {
        RowDataKafkaDeserializer deserializer = keyAndValue(splitting(false));
        assertThat(strings(deserialize(deserializer, record("a,b", "v"))))
                .containsExactly("a/v", "b/v");
    }
}
