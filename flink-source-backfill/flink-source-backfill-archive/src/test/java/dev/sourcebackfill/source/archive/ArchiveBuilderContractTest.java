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
import dev.sourcebackfill.source.kafka.KafkaBackfill;
import dev.sourcebackfill.source.kafka.KafkaBackfillSourceBuilder;
import dev.sourcebackfill.source.spi.DiscoveredSplit;
import dev.sourcebackfill.source.spi.LogSplitDiscoverer;

import org.apache.flink.api.common.serialization.SimpleStringSchema;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.core.fs.Path;
import org.apache.flink.util.InstantiationUtil;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The archive builder's contract on the history-before-Kafka shape: check order, serialization. */
class ArchiveBuilderContractTest {

    @TempDir java.nio.file.Path root;

    private static KafkaBackfillSourceBuilder<String> live() {
        return KafkaBackfill.<String>sourceBuilder()
                .setBootstrapServers("127.0.0.1:9092")
                .setTopics("orders")
                .setValueOnlyDeserializer(new SimpleStringSchema());
    }

    private ArchiveBackfillSourceBuilder<String> archive() {
        return ArchiveBackfill.<String>sourceBuilder()
                .setArchive(root.toString())
                .setFormat(ArchiveFormat.lines(new SimpleStringSchema()))
                .setRecordOffset(line -> 0L);
    }

    /**
     * The options are checked in the builder's order (archive, layout, format, live, mapper, max
     * records per poll, shared settings): with two wrong, the first is named.
     */
    @Test
    void aMissingLiveIsNamedBeforeANullArchivedRecordMapperAsBeforeTheRefactoring() {
        ArchiveBackfillSourceBuilder<String> builder = archive().setArchivedRecordMapper(null);
        assertThatThrownBy(builder::build)
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'live' (setLive) is not set");
    }

    /** Flink serializes the source: its log survives a round trip with the live topics' side. */
    @Test
    void theBuiltSourceAndItsLogSurviveJavaSerialization() throws Exception {
        BackfillSource<String> source = archive().setLive(live()).build();
        BackfillSource<String> copy = InstantiationUtil.clone(source, getClass().getClassLoader());
        assertThat(copy.getLog()).isInstanceOf(ArchiveBackfillLog.class);
        assertThat(copy.getLog().toString()).isEqualTo(source.getLog().toString());
        assertThat(copy.getLog().isLiveSeekable()).isTrue();
        assertThat(copy.getLog().hasStoppingOffsets()).isFalse();
        assertThat(copy.getLog().getProducedType()).isEqualTo(Types.STRING);
        assertThat(copy.getLog().createSplitDiscoverer()).isInstanceOf(ArchiveDiscoverer.class);
    }

    /** The archive's discoverer passes forward mode on to the topics' discoverer. */
    @Test
    void theArchiveDiscovererPassesForwardModeOnToTheTopicsDiscoverer() throws Exception {
        List<String> calls = new ArrayList<>();
        LogSplitDiscoverer topics =
                new LogSplitDiscoverer() {
                    @Override
                    public List<DiscoveredSplit> discoverSplits(boolean initial) {
                        return List.of();
                    }

                    @Override
                    public void onForwardMode(
                            long checkpointId, Set<String> splitIds, Set<String> versions) {
                        calls.add("forward " + checkpointId + " " + splitIds);
                    }
                };
        new ArchiveDiscoverer(topics, new Path(root.toUri()), ArchiveLayout.kafkaConnect())
                .onForwardMode(7, Set.of("orders-0"), Set.of());
        assertThat(calls).containsExactly("forward 7 [orders-0]");
    }
}
