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

import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.util.Collector;

import org.apache.iceberg.data.Record;

import java.io.Serializable;

/**
 * Makes the job's values of a table row, in the task thread as the row is emitted: none, one or
 * several per row. The row has every column of the table (and Iceberg's {@code _pos}).
 *
 * @param <T> the type of the values, the same the live topic's deserializer makes
 */
@PublicEvolving
@FunctionalInterface
public interface IcebergRecordMapper<T> extends Serializable {

    void map(Record row, Collector<T> out) throws Exception;
}
