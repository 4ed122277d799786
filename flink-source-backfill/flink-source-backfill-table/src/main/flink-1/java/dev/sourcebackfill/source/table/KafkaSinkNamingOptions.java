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
package dev.sourcebackfill.source.table;

import org.apache.flink.annotation.Internal;
import org.apache.flink.configuration.ConfigOption;

import java.util.Set;

/**
 * Flink 1.x: Flink's Kafka connector for Flink 1 (3.x) has no transaction naming option; the sink
 * names its transactions from {@code sink.transactional-id-prefix} alone.
 */
@Internal
final class KafkaSinkNamingOptions {

    private KafkaSinkNamingOptions() {}

    static Set<ConfigOption<?>> options() {
        return Set.of();
    }
}
