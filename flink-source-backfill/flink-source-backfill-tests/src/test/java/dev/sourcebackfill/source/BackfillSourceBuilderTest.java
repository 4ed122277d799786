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

import dev.sourcebackfill.source.datagen.DatagenLog;
import dev.sourcebackfill.source.datagen.DatagenRecord;

import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.util.InstantiationUtil;

import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class BackfillSourceBuilderTest {

    private static final DatagenLog LOG = DatagenLog.builder().partitions(2).build();

    @Test
    void buildsWithDefaultsAndSerializesIntoTheJobGraph() throws Exception {
        BackfillSource<DatagenRecord> source =
                BackfillSource.<DatagenRecord>builder().setLog(LOG).build();
        assertThat(source.getBoundedness()).isEqualTo(Boundedness.CONTINUOUS_UNBOUNDED);
        assertThat(source.getSplitDiscoveryInterval()).isEqualTo(Duration.ofSeconds(30));
        assertThat(source.getPollTimeout()).isEqualTo(Duration.ofMillis(100));
        BackfillSource<DatagenRecord> copy =
                InstantiationUtil.clone(source, getClass().getClassLoader());
        assertThat(copy.getLog().toString()).isEqualTo(LOG.toString());
    }

    @Test
    void boundedIsBounded() {
        DatagenLog bounded = DatagenLog.builder().partitions(2).boundedAfterLiveRecords(10).build();
        assertThat(
                        BackfillSource.<DatagenRecord>builder()
                                .setLog(bounded)
                                .setBounded()
                                .build()
                                .getBoundedness())
                .isEqualTo(Boundedness.BOUNDED);
    }

    /** Refused at build time, not when the coordinator meets a split without a stopping offset. */
    @Test
    void rejectsBoundedOverALogWithoutStoppingOffsets() {
        assertThatThrownBy(
                        () ->
                                BackfillSource.<DatagenRecord>builder()
                                        .setLog(LOG)
                                        .setBounded()
                                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("BackfillSource option 'bounded' (setBounded)")
                .hasMessageContaining("stopping offset")
                .hasMessageContaining(LOG.toString());
    }

    @Test
    void rejectsAMissingLog() {
        assertThatThrownBy(() -> BackfillSource.<DatagenRecord>builder().build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'log'");
    }

    @Test
    void rejectsANegativeDiscoveryInterval() {
        assertThatThrownBy(
                        () ->
                                BackfillSource.<DatagenRecord>builder()
                                        .setLog(LOG)
                                        .setSplitDiscoveryInterval(Duration.ofSeconds(-1))
                                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'splitDiscoveryInterval'");
    }

    @Test
    void rejectsANonPositivePollTimeout() {
        assertThatThrownBy(
                        () ->
                                BackfillSource.<DatagenRecord>builder()
                                        .setLog(LOG)
                                        .setPollTimeout(Duration.ZERO)
                                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'pollTimeout'");
    }

    @Test
    void rejectsANullListener() {
        assertThatThrownBy(
                        () ->
                                BackfillSource.<DatagenRecord>builder()
                                        .setLog(LOG)
                                        .setListener(null)
                                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'listener'");
    }

    @Test
    void rejectsABackfillRateThatIsNotPositiveAndFiniteAtBuildTime() {
        for (double rate : new double[] {0, -5, Double.NaN, Double.POSITIVE_INFINITY}) {
            BackfillSourceBuilder<DatagenRecord> builder =
                    BackfillSource.<DatagenRecord>builder()
                            .setLog(LOG)
                            .setBackfillRecordsPerSecond(rate);
            assertThatThrownBy(builder::build)
                    .as("rate %s", rate)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining(
                            "option 'backfill records per second' (setBackfillRecordsPerSecond)")
                    .hasMessageContaining("was " + rate);
        }
    }

    @Test
    void rejectsTwoBackfillRateLimits() {
        assertThatThrownBy(
                        () ->
                                BackfillSource.<DatagenRecord>builder()
                                        .setLog(LOG)
                                        .setBackfillRecordsPerSecond(10)
                                        .setBackfillRateLimit(RateLimiterStrategy.noOp())
                                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'backfill rate limit'")
                .hasMessageContaining("set one of them");
    }

    @Test
    void aRateLimitedSourceSerializesIntoTheJobGraph() throws Exception {
        BackfillSource<DatagenRecord> source =
                BackfillSource.<DatagenRecord>builder()
                        .setLog(LOG)
                        .setBackfillRecordsPerSecond(250)
                        .build();
        assertThat(InstantiationUtil.clone(source, getClass().getClassLoader())).isNotNull();
    }

    /**
     * A builder that wraps another's (the archive builder wraps the Kafka one) gives it the
     * settings set on it, which win; the inner builder keeps those set only on it, and a setting
     * set on neither keeps its default.
     */
    @Test
    void theSettingsSetOnAnOuterBuilderWinAndTheOthersStay() {
        BackfillListener listener = new BackfillListener() {};
        BackfillSourceBuilder<DatagenRecord> inner =
                BackfillSource.<DatagenRecord>builder()
                        .setLog(LOG)
                        .setListener(listener)
                        .setOffsetGapPolicy(OffsetGapPolicy.FAIL)
                        .setPollTimeout(Duration.ofSeconds(3));
        BackfillSource.<DatagenRecord>builder()
                .setOffsetGapPolicy(OffsetGapPolicy.SKIP)
                .setBackfillRecordsPerSecond(5)
                .copySetSettingsTo(inner);
        BackfillSourceConfig<DatagenRecord> config = inner.build().config();
        assertThat(config.gapPolicy()).isEqualTo(OffsetGapPolicy.SKIP);
        assertThat(config.listener()).isSameAs(listener);
        assertThat(config.pollTimeout()).isEqualTo(Duration.ofSeconds(3));
        assertThat(config.backfillRateLimit().toString()).contains("5.0 backfill records");
        assertThat(config.originMarker()).isNotNull();
    }

    /**
     * The control file's options: kept with the source; a blank path, an interval below 1 ms (the
     * enumerator schedules its reads in milliseconds) and an interval without a file are refused
     * naming the option.
     */
    @Test
    void theControlFileOptionsAreCheckedAtBuildTime() {
        assertThat(
                        BackfillSource.<DatagenRecord>builder()
                                .setLog(LOG)
                                .setBackfillControlFile("/ops/orders.control")
                                .build()
                                .getBackfillControlFile())
                .contains("/ops/orders.control");
        assertThat(
                        BackfillSource.<DatagenRecord>builder()
                                .setLog(LOG)
                                .build()
                                .getBackfillControlFile())
                .isEmpty();
        assertThatThrownBy(
                        () ->
                                BackfillSource.<DatagenRecord>builder()
                                        .setLog(LOG)
                                        .setBackfillControlFile(" ")
                                        .build())
                .hasMessageContaining("'backfill control file' (setBackfillControlFile)");
        assertThatThrownBy(
                        () ->
                                BackfillSource.<DatagenRecord>builder()
                                        .setLog(LOG)
                                        .setBackfillControlFile("/ops/orders.control")
                                        .setBackfillControlInterval(Duration.ofNanos(500_000))
                                        .build())
                .hasMessageContaining("setBackfillControlInterval")
                .hasMessageContaining("must be at least 1 ms");
        assertThatThrownBy(
                        () ->
                                BackfillSource.<DatagenRecord>builder()
                                        .setLog(LOG)
                                        .setBackfillControlInterval(Duration.ofSeconds(1))
                                        .build())
                .hasMessageContaining("without a control file");
    }
}
