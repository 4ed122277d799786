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
import dev.sourcebackfill.source.RecordOrigin;
import dev.sourcebackfill.source.kafka.KafkaBackfillSourceBuilder;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.DataType;

import java.util.List;
import java.util.function.Supplier;

/**
 * Where a {@code kafka-backfill} table's history comes from, one kind per {@code backfill.*} option
 * family: the topic itself ({@link FromTopic}), an archive ({@code backfill.archive.*}, {@link
 * ArchiveTableOptions}) or an Iceberg table ({@code backfill.iceberg.*}, {@link
 * IcebergTableOptions}). Each kind says which metadata columns its rows have and builds its source
 * of the scan's parts. Iceberg's kind is loaded only for a table that sets its options.
 */
@Internal
sealed interface TableHistory
        permits TableHistory.FromTopic, ArchiveTableOptions, IcebergTableOptions {

    /** The metadata columns a row of this history can have. */
    List<ReadableMetadata> metadata();

    /** Whether the source may read only the physical columns a query reads. */
    default boolean supportsProjection() {
        return true;
    }

    /** The source of this history in front of the topic (or the topic alone). */
    BackfillSource<RowData> build(Scan scan);

    /** The history is the topic's own: the Kafka source alone. */
    record FromTopic() implements TableHistory {
        @Override
        public List<ReadableMetadata> metadata() {
            return List.of(ReadableMetadata.values());
        }

        @Override
        public BackfillSource<RowData> build(Scan scan) {
            return scan.readOptions().build(scan.kafkaRecords(), scan.originMarker());
        }
    }

    /**
     * The parts of a scan that a history kind builds its source of.
     *
     * @param readOptions the topic's options
     * @param kafkaRecords the rows of the topic's records
     * @param originMarker writes the {@code origin} metadata column, if the query reads it
     * @param valueDecoder a new decoder of the value format, and where each of its fields goes in
     *     the produced row (an archive's lines hold what a record's value holds)
     * @param physicalType the table's physical columns
     * @param outputOf where each physical column goes in the produced row (negative: not read)
     * @param physicalArity the physical columns the produced row has
     * @param metadata the metadata columns the query reads, after the physical ones
     * @param producedType the produced row's type
     */
    record Scan(
            KafkaReadOptions readOptions,
            RowDataKafkaDeserializer kafkaRecords,
            RecordOrigin.Marker<RowData> originMarker,
            Supplier<Decoding> valueDecoder,
            DataType physicalType,
            int[] outputOf,
            int physicalArity,
            List<ReadableMetadata> metadata,
            TypeInformation<RowData> producedType) {

        /** The topic's Kafka builder, for a history in front of it. */
        KafkaBackfillSourceBuilder<RowData> live() {
            return readOptions.kafkaBuilder(kafkaRecords, originMarker);
        }
    }

    /** A format's decoder, and for each field it decodes, the field's place in the row. */
    record Decoding(DeserializationSchema<RowData> schema, int[] targets) {}
}
