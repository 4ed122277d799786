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

import org.apache.flink.annotation.Internal;

import org.apache.iceberg.data.Record;
import org.apache.kafka.common.header.Header;

import javax.annotation.Nullable;

/**
 * A table row as the fetcher read it: its Kafka topic, partition, offset and timestamp read once,
 * there, while the row is fresh (the task thread makes the values and needs them again), and either
 * the row itself (Iceberg's generic record: a mapper makes the values of it, or the record's key,
 * value and headers are read of it in the task thread), or the Kafka record's key, value and
 * headers read straight from the file ({@link TableRowReader}), without the row.
 *
 * @param row the row as Iceberg's generic reader read it; {@code null} if the file was read into
 *     the Kafka record's parts alone
 * @param kafkaOffset the row's offset in its Kafka partition (not its position in the table)
 * @param key the record's key when {@code row} is {@code null}
 * @param value the record's value when {@code row} is {@code null}
 * @param headers the record's headers when {@code row} is {@code null}
 */
@Internal
record TableRow(
        @Nullable Record row,
        String topic,
        int partition,
        long kafkaOffset,
        long timestamp,
        @Nullable byte[] key,
        @Nullable byte[] value,
        @Nullable Header[] headers) {

    /** The row with its Kafka columns, as the layout keeps them; fails as {@link RowColumns}. */
    static TableRow read(RowColumns columns, Record row) {
        return new TableRow(
                row,
                columns.topic(row),
                columns.partition(row),
                columns.offset(row),
                columns.timestamp(row),
                null,
                null,
                null);
    }

    /** The Kafka record a row keeps, read straight from its file. */
    static TableRow ofKafkaRecord(
            String topic,
            int partition,
            long kafkaOffset,
            long timestamp,
            @Nullable byte[] key,
            @Nullable byte[] value,
            Header[] headers) {
        return new TableRow(null, topic, partition, kafkaOffset, timestamp, key, value, headers);
    }
}
