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

/**
 * A table row as the fetcher read it: the row, and its Kafka topic, partition, offset and timestamp
 * read from it once, there, while the row is fresh (the task thread makes the values and needs them
 * again).
 *
 * @param kafkaOffset the row's offset in its Kafka partition (not its position in the table)
 */
@Internal
record TableRow(Record row, String topic, int partition, long kafkaOffset, long timestamp) {

    /** The row with its Kafka columns, as the layout keeps them; fails as {@link RowColumns}. */
    static TableRow read(RowColumns columns, Record row) {
        return new TableRow(
                row,
                columns.topic(row),
                columns.partition(row),
                columns.offset(row),
                columns.timestamp(row));
    }
}
