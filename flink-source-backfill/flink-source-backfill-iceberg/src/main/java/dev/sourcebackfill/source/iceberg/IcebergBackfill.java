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

import dev.sourcebackfill.source.BackfillSource;

import org.apache.flink.annotation.PublicEvolving;

/**
 * Entry point of the Iceberg adapter: {@code IcebergBackfill.<T>sourceBuilder()} builds a {@link
 * BackfillSource} that reads a topic's history from an Iceberg table written from the topic, while
 * each partition is live in the topic from the first offset after the table's rows of it (in
 * ordered mode, each partition is handed over after its rows).
 */
@PublicEvolving
public final class IcebergBackfill {

    private IcebergBackfill() {}

    /** A builder of a {@link BackfillSource} over an Iceberg table in front of Kafka topics. */
    public static <T> IcebergBackfillSourceBuilder<T> sourceBuilder() {
        return new IcebergBackfillSourceBuilder<>();
    }
}
