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
package dev.sourcebackfill.source;

import org.apache.flink.annotation.PublicEvolving;

import java.io.Serializable;

/**
 * Where an emitted record was read: by its split's backfill, or by the split's live reader once the
 * split was handed over. A {@link Marker} set on the builder writes it into each record.
 */
@PublicEvolving
public enum RecordOrigin {
    /** Read by the backfill, before the split's handover. */
    BACKFILL,
    /** Read by the live reader, after the split's handover. */
    LIVE;

    /** Marks a record with its origin as the source emits it. */
    @FunctionalInterface
    public interface Marker<T> extends Serializable {
        /** The record to emit: {@code record} marked with {@code origin} (may be the same). */
        T mark(T record, RecordOrigin origin);

        /** Emits records as they are. */
        static <T> Marker<T> none() {
            return (record, origin) -> record;
        }
    }
}
