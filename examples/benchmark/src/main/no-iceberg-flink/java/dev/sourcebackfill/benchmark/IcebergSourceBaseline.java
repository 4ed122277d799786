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
package dev.sourcebackfill.benchmark;

import org.apache.flink.api.connector.source.Source;

import org.apache.iceberg.Schema;

import java.util.Map;

/**
 * Section 11's third baseline, {@code IcebergSource}, is absent on this line: Iceberg publishes
 * its Flink source (iceberg-flink) for Flink 1.20, 2.0 and 2.1 only, and the benchmark compiles it
 * on 1.20 ({@code -Pflink-1.20}, folder {@code iceberg-flink}). The section says so and runs its
 * other two contenders.
 */
final class IcebergSourceBaseline {

    /** Whether this line has Iceberg's Flink source. */
    static final boolean AVAILABLE = false;

    private IcebergSourceBaseline() {}

    static Source<String, ?, ?> values(
            String catalogName,
            Map<String, String> catalog,
            String table,
            long snapshot,
            Schema value) {
        throw new UnsupportedOperationException(
                "Iceberg's IcebergSource is not built on this Flink line: run the benchmark with -Pflink-1.20");
    }
}
