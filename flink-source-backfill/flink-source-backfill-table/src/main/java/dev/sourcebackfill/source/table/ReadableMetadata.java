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

import org.apache.flink.annotation.Internal;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.data.GenericMapData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.types.DataType;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;

import java.util.HashMap;
import java.util.Map;
import java.util.function.Function;

/**
 * The metadata columns a table reads from each Kafka record, with the keys and types of Flink's
 * Kafka SQL connector ({@code METADATA FROM 'offset'}, ...), and {@code origin}, where the row was
 * read.
 */
@Internal
enum ReadableMetadata {
    TOPIC("topic", DataTypes.STRING().notNull(), r -> StringData.fromString(r.topic())),
    PARTITION("partition", DataTypes.INT().notNull(), ConsumerRecord::partition),
    HEADERS(
            "headers",
            DataTypes.MAP(DataTypes.STRING().nullable(), DataTypes.BYTES().nullable()).notNull(),
            ReadableMetadata::headers),
    LEADER_EPOCH("leader-epoch", DataTypes.INT().nullable(), r -> r.leaderEpoch().orElse(null)),
    OFFSET("offset", DataTypes.BIGINT().notNull(), ConsumerRecord::offset),
    TIMESTAMP(
            "timestamp",
            DataTypes.TIMESTAMP_WITH_LOCAL_TIME_ZONE(3).notNull(),
            r -> TimestampData.fromEpochMillis(r.timestamp())),
    TIMESTAMP_TYPE(
            "timestamp-type",
            DataTypes.STRING().notNull(),
            r -> StringData.fromString(r.timestampType().toString())),
    /**
     * Ours: {@code backfill} for a row the partition's backfill read, {@code live} for one its live
     * live read. Not in the Kafka record: the source writes it as it emits the row ({@link
     * RowOriginMarker}), so the deserializer leaves its place empty.
     */
    ORIGIN("origin", DataTypes.STRING().notNull(), r -> null);

    final String key;
    final DataType dataType;
    private final Function<ConsumerRecord<?, ?>, Object> reader;

    ReadableMetadata(String key, DataType dataType, Function<ConsumerRecord<?, ?>, Object> reader) {
        this.key = key;
        this.dataType = dataType;
        this.reader = reader;
    }

    /** The column's value for {@code record}, in Flink's internal data structures. */
    Object read(ConsumerRecord<?, ?> record) {
        return reader.apply(record);
    }

    static ReadableMetadata ofKey(String key) {
        for (ReadableMetadata m : values()) {
            if (m.key.equals(key)) {
                return m;
            }
        }
        throw new IllegalArgumentException("No metadata column '" + key + "'");
    }

    /** Headers as a map; a key given twice keeps its last value. */
    private static Object headers(ConsumerRecord<?, ?> record) {
        Map<StringData, byte[]> headers = new HashMap<>();
        for (Header header : record.headers()) {
            headers.put(StringData.fromString(header.key()), header.value());
        }
        return new GenericMapData(headers);
    }
}
