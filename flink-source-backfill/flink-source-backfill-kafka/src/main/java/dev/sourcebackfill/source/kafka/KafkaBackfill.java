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
package dev.sourcebackfill.source.kafka;

import dev.sourcebackfill.source.BackfillSource;

import org.apache.flink.annotation.PublicEvolving;

/**
 * Entry point of the Kafka adapter: {@code KafkaBackfill.<T>sourceBuilder()} builds a {@link
 * BackfillSource} that backfills each partition of Kafka topics and then reads it live.
 */
@PublicEvolving
public final class KafkaBackfill {

    private KafkaBackfill() {}

    /** A builder of a {@link BackfillSource} over Kafka topics. */
    public static <T> KafkaBackfillSourceBuilder<T> sourceBuilder() {
        return new KafkaBackfillSourceBuilder<>();
    }
}
