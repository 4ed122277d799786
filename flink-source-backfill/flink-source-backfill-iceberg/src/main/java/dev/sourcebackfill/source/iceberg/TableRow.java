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
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;

import javax.annotation.Nullable;

import java.util.Optional;

/**
 * A table row as the fetcher read it: its Kafka topic, partition, offset and timestamp read once,
 * there, while the row is fresh (the task thread makes the values and needs them again), and either
 * the row itself (Iceberg's generic record: a mapper makes the values of it, or the record's key,
 * value and headers are read of it in the task thread), or the Kafka record the row keeps, made in
 * the fetcher of its key, value and headers read straight from the file ({@link TableRowReader},
 * {@link ColumnBatchReader}), as a Kafka consumer's fetch makes its records: the task thread gives
 * it to the topic's deserializer as it is.
 *
 * @param row the row as Iceberg's generic reader read it; {@code null} if the file was read into
 *     the Kafka record alone
 * @param kafkaOffset the row's offset in its Kafka partition (not its position in the table)
 * @param kafkaRecord the Kafka record when {@code row} is {@code null}
 */
@Internal
record TableRow(
        @Nullable Record row,
        String topic,
        int partition,
        long kafkaOffset,
        long timestamp,
        @Nullable ConsumerRecord<byte[], byte[]> kafkaRecord) {

    /** The row with its Kafka columns, as the layout keeps them; fails as {@link RowColumns}. */
    static TableRow read(RowColumns columns, Record row) {
        return new TableRow(
                row,
                columns.topic(row),
                columns.partition(row),
                columns.offset(row),
                columns.timestamp(row),
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
        return new TableRow(
                null,
                topic,
                partition,
                kafkaOffset,
                timestamp,
                new RowRecord(
                        topic,
                        partition,
                        kafkaOffset,
                        timestamp,
                        key,
                        value,
                        headers.length == 0 ? null : new RecordHeaders(headers)));
    }

    /**
     * The record a Kafka consumer would have given for this row: created at {@code timestamp},
     * sizes of its key and value, no leader epoch.
     */
    static ConsumerRecord<byte[], byte[]> kafkaRecord(
            String topic,
            int partition,
            long kafkaOffset,
            long timestamp,
            @Nullable byte[] key,
            @Nullable byte[] value,
            Headers headers) {
        return new RowRecord(topic, partition, kafkaOffset, timestamp, key, value, headers);
    }

    /**
     * The Kafka record of a row. A row without headers gets its headers, empty and open to
     * additions as those of a record a Kafka consumer gives, when the deserializer first asks for
     * them: a deserializer that does not (a value-only one) costs no headers object per row.
     */
    private static final class RowRecord extends ConsumerRecord<byte[], byte[]> {
        /**
         * Kafka's record requires headers: these stand in for those not made yet, never handed out
         * ({@link #headers} and {@link #toString} give the record's own).
         */
        private static final RecordHeaders STAND_IN = readOnlyNone();

        @Nullable private Headers headers;

        /**
         * @param headers the row's headers; {@code null} if it has none (made on first use)
         */
        RowRecord(
                String topic,
                int partition,
                long kafkaOffset,
                long timestamp,
                @Nullable byte[] key,
                @Nullable byte[] value,
                @Nullable Headers headers) {
            super(
                    topic,
                    partition,
                    kafkaOffset,
                    timestamp,
                    TimestampType.CREATE_TIME,
                    key == null ? ConsumerRecord.NULL_SIZE : key.length,
                    value == null ? ConsumerRecord.NULL_SIZE : value.length,
                    key,
                    value,
                    headers == null ? STAND_IN : headers,
                    Optional.empty());
            this.headers = headers;
        }

        private static RecordHeaders readOnlyNone() {
            RecordHeaders none = new RecordHeaders();
            none.setReadOnly();
            return none;
        }

        /** The record's own headers, made on the first call if the row had none. */
        @Override
        public Headers headers() {
            Headers made = headers;
            if (made == null) {
                made = new RecordHeaders();
                headers = made;
            }
            return made;
        }

        /**
         * As Kafka's record prints itself, with the record's own headers: Kafka's reads its field,
         * which may hold the stand-in.
         */
        @Override
        public String toString() {
            String printed = super.toString();
            String standIn = "headers = " + STAND_IN;
            int at = printed.indexOf(standIn);
            return at < 0
                    ? printed
                    : printed.substring(0, at)
                            + "headers = "
                            + headers()
                            + printed.substring(at + standIn.length());
        }
    }

    /** The record's key when {@code row} is {@code null}. */
    @Nullable
    byte[] key() {
        return kafkaRecord == null ? null : kafkaRecord.key();
    }

    /** The record's value when {@code row} is {@code null}. */
    @Nullable
    byte[] value() {
        return kafkaRecord == null ? null : kafkaRecord.value();
    }
}
