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

import dev.sourcebackfill.source.spi.LogRecordDeserializer;
import dev.sourcebackfill.source.spi.PassingCollector;

import org.apache.flink.annotation.Internal;
import org.apache.flink.util.Collector;

import org.apache.iceberg.data.Record;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;

import java.io.IOException;
import java.util.Arrays;

/**
 * The values of table rows, made in the task thread: by the user's {@link IcebergRecordMapper}, or
 * by the live topic's own deserializer run on the Kafka record the row keeps (its key, value and
 * headers columns), so that history and live values are the same type made the same way.
 */
@Internal
final class IcebergRowDeserializer {

    private IcebergRowDeserializer() {}

    /** Values made by the user's mapper. */
    static <T> LogRecordDeserializer<TableRow, T> mapped(
            IcebergRecordMapper<T> mapper, RowColumns columns) {
        return new Mapped<>(mapper, columns);
    }

    /** Values made by the live topic's deserializer from the record each row keeps. */
    static <T> LogRecordDeserializer<TableRow, T> throughKafkaDeserializer(
            RowColumns columns, LogRecordDeserializer<ConsumerRecord<byte[], byte[]>, T> kafka) {
        return new ThroughKafka<>(columns, kafka);
    }

    private static final class Mapped<T> implements LogRecordDeserializer<TableRow, T> {
        private final IcebergRecordMapper<T> mapper;
        private final RowColumns columns;
        private final PassingCollector<T> passing = new PassingCollector<>();

        Mapped(IcebergRecordMapper<T> mapper, RowColumns columns) {
            this.mapper = mapper;
            this.columns = columns;
        }

        @Override
        public void deserialize(String splitId, long offset, TableRow row, Collector<T> out)
                throws IOException {
            if (row.row() == null) {
                throw new IllegalStateException(
                        "A table row was read without the row itself, but the values are made by "
                                + "the Iceberg record mapper "
                                + mapper);
            }
            try {
                mapper.map(row.row(), passing.to(out));
            } catch (Exception e) {
                if (passing.failedDownstream() && e instanceof RuntimeException) {
                    throw (RuntimeException) e;
                }
                throw new IOException(
                        String.format(
                                "The Iceberg record mapper failed on the row of topic %s partition %d offset %d: %s",
                                row.topic(), row.partition(), row.kafkaOffset(), e),
                        e);
            }
        }
    }

    private static final class ThroughKafka<T> implements LogRecordDeserializer<TableRow, T> {
        private final RowColumns columns;
        private final LogRecordDeserializer<ConsumerRecord<byte[], byte[]>, T> kafka;

        /**
         * The split ids of one topic's partitions, by partition, made as rows of each come (rows of
         * files mixing partitions alternate between them).
         */
        private String splitIdsTopic;

        private String[] splitIds = new String[0];

        ThroughKafka(
                RowColumns columns,
                LogRecordDeserializer<ConsumerRecord<byte[], byte[]>, T> kafka) {
            this.columns = columns;
            this.kafka = kafka;
        }

        @Override
        public void deserialize(String splitId, long offset, TableRow tableRow, Collector<T> out)
                throws IOException {
            Record row = tableRow.row();
            String topic = tableRow.topic();
            int partition = tableRow.partition();
            long kafkaOffset = tableRow.kafkaOffset();
            ConsumerRecord<byte[], byte[]> record;
            if (row == null) {
                // read straight from the file, made in the fetcher
                record = tableRow.kafkaRecord();
            } else {
                RecordHeaders headers = new RecordHeaders();
                for (Object header : columns.headers(row)) {
                    Record pair = (Record) header;
                    headers.add(
                            RowColumns.headerKey(pair.getField("key")),
                            RowColumns.bytes(pair.getField("value")));
                }
                record =
                        TableRow.kafkaRecord(
                                topic,
                                partition,
                                kafkaOffset,
                                tableRow.timestamp(),
                                columns.key(row),
                                columns.value(row),
                                headers);
            }
            kafka.deserialize(splitId(topic, partition), kafkaOffset, record, out);
        }

        private String splitId(String topic, int partition) {
            if (!topic.equals(splitIdsTopic)) {
                splitIdsTopic = topic;
                splitIds = new String[Math.max(16, partition + 1)];
            } else if (partition >= splitIds.length) {
                splitIds = Arrays.copyOf(splitIds, Math.max(partition + 1, splitIds.length * 2));
            }
            String id = splitIds[partition];
            if (id == null) {
                id = TableHistory.splitIdOf(topic, partition);
                splitIds[partition] = id;
            }
            return id;
        }
    }
}
