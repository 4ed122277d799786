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
        DeserializationSchema<RowData> splitting =
                new DeserializationSchema<>() {
                    private final GenericRowData reuse = new GenericRowData(1);

                    @Override
                    public RowData deserialize(byte[] message) {
                        throw new UnsupportedOperationException();
                    }

                    @Override
                    public void deserialize(byte[] message, Collector<RowData> out) {
                        for (String part : new String(message, StandardCharsets.UTF_8).split(",")) {
                            reuse.setField(0, StringData.fromString(part));
                            out.collect(reuse);
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
}
