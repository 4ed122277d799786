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

import dev.sourcebackfill.source.BackfillSource;

import org.apache.flink.annotation.PublicEvolving;

/**
 * Entry point of the archive adapter: {@code ArchiveBackfill.<T>sourceBuilder()} builds a {@link
 * BackfillSource} that reads each partition's history from archived files and then hands the
 * partition over to the live Kafka topic at the first offset after the archive.
 */
@PublicEvolving
public final class ArchiveBackfill {

    private ArchiveBackfill() {}

    /** A builder of a {@link BackfillSource} over an archive in front of Kafka topics. */
    public static <T> ArchiveBackfillSourceBuilder<T> sourceBuilder() {
        return new ArchiveBackfillSourceBuilder<>();
    }
}
