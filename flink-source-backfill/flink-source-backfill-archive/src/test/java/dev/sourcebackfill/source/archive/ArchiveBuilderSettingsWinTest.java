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

import dev.sourcebackfill.source.kafka.KafkaBackfill;
import dev.sourcebackfill.source.kafka.KafkaBackfillSourceBuilder;

import org.apache.flink.api.common.serialization.SimpleStringSchema;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThatCode;

/**
 * BackfillSourceBuilderBase#copySetSettingsTo says "a setting set on the outer one wins" (issue
 * 27.4): the backfill rate limit is one setting with two setters, so the archive's rate must win
 * over the live builder's, whichever setter each used.
 */
class ArchiveBuilderSettingsWinTest {

    private static KafkaBackfillSourceBuilder<String> live() {
        return KafkaBackfill.<String>sourceBuilder()
                .setBootstrapServers("127.0.0.1:9092")
                .setTopics("orders")
                .setValueOnlyDeserializer(new SimpleStringSchema());
    }

    private static ArchiveBackfillSourceBuilder<String> archive(
            KafkaBackfillSourceBuilder<String> live) {
        return ArchiveBackfill.<String>sourceBuilder()
                .setArchive("/tmp/archive-that-is-not-read")
                .setFormat(ArchiveFormat.lines(new SimpleStringSchema()))
                .setRecordOffset(line -> 0L)
                .setLive(live);
    }

    @SuppressWarnings("rawtypes")
    private static RateLimiterStrategy perSecond(double rate) {
        return RateLimiterStrategy.perSecond(rate);
    }

    @Test
    void theArchivesRecordsPerSecondWinsOverTheLiveBuildersRateLimiterStrategy() {
        ArchiveBackfillSourceBuilder<String> builder =
                archive(live().setBackfillRateLimit(perSecond(5))).setBackfillRecordsPerSecond(10);
        assertThatCode(builder::build).doesNotThrowAnyException();
    }

    @Test
    void theArchivesRateLimiterStrategyWinsOverTheLiveBuildersRecordsPerSecond() {
        ArchiveBackfillSourceBuilder<String> builder =
                archive(live().setBackfillRecordsPerSecond(5)).setBackfillRateLimit(perSecond(10));
        assertThatCode(builder::build).doesNotThrowAnyException();
    }
}
