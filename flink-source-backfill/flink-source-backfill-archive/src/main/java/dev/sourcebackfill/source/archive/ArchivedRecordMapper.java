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
package dev.sourcebackfill.source.archive;

import org.apache.flink.annotation.PublicEvolving;

import java.io.Serializable;

/**
 * Completes each record read from the archive once its place is known: the topic and partition of
 * the file that holds it, and its offset. For records whose format does not hold these (a table
 * row's {@code topic}, {@code partition} and {@code offset} columns, say).
 */
@PublicEvolving
@FunctionalInterface
public interface ArchivedRecordMapper<T> extends Serializable {

    /** The record to emit for {@code record}, found in {@code file} at {@code offset}. */
    T map(T record, ArchivedFile file, long offset);

    /** Emits archived records as the format made them. */
    static <T> ArchivedRecordMapper<T> identity() {
        return (record, file, offset) -> record;
    }
}
