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
import dev.sourcebackfill.source.enumerator.BackfillEnumeratorState;
import dev.sourcebackfill.source.kafka.KafkaBackfill;
import dev.sourcebackfill.source.kafka.KafkaBackfillSourceBuilder;
import dev.sourcebackfill.source.spi.LogRecordDeserializer;
import dev.sourcebackfill.source.split.BackfillSplit;
import dev.sourcebackfill.source.split.BackfillSplitSerializer;
import dev.sourcebackfill.source.split.HandoverState;
import dev.sourcebackfill.source.split.SplitKind;

import org.apache.flink.api.common.serialization.SimpleStringSchema;
import org.apache.flink.connector.testutils.source.reader.TestingReaderContext;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.util.InstantiationUtil;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The Iceberg builder's contract on the history-before-Kafka shape: check order, serialization. */
class IcebergBuilderContractTest {

    private static final Map<String, String> CATALOG =
            Map.of("type", "rest", "uri", "http://127.0.0.1:1");

    private static KafkaBackfillSourceBuilder<String> live() {
        return KafkaBackfill.<String>sourceBuilder()
                .setBootstrapServers("127.0.0.1:1")
                .setTopics("orders")
                .setValueOnlyDeserializer(new SimpleStringSchema());
    }

    private static IcebergBackfillSourceBuilder<String> withoutLive() {
        return IcebergBackfill.<String>sourceBuilder()
                .setCatalog("lake", CATALOG)
                .setTable("db.orders")
                .setLayout(IcebergLayout.redpanda());
    }

    /** The live builder is checked before the snapshot tag and the ordered mode. */
    @Test
    void aMissingLiveIsNamedBeforeOrderedWithAChunkSizeAsBeforeTheRefactoring() {
        IcebergBackfillSourceBuilder<String> builder =
                withoutLive().setOrdered(true).setBackfillChunkSize(1_000);
        assertThatThrownBy(builder::build)
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'live' (setLive) is not set");
    }

    /** 'max records per poll' is checked before the snapshot tag. */
    @Test
    void aWrongMaxRecordsPerPollIsNamedBeforeAWrongSnapshotTagAsBeforeTheRefactoring() {
        IcebergBackfillSourceBuilder<String> builder =
                withoutLive()
                        .setLive(live())
                        .setMaxRecordsPerPoll(0)
                        .setSnapshotTag("main", Duration.ofHours(1));
        assertThatThrownBy(builder::build)
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'max records per poll'");
    }

    /**
     * Flink serializes the source: the copy's log still makes the topic's own deserializer for the
     * table's rows.
     */
    @Test
    void theBuiltSourceSurvivesJavaSerializationAndItsCopyMakesTheTopicsDeserializer()
            throws Exception {
        BackfillSource<String> source = withoutLive().setLive(live()).build();
        BackfillSource<String> copy = InstantiationUtil.clone(source, getClass().getClassLoader());
        assertThat(copy.getLog().toString()).isEqualTo(source.getLog().toString());
        LogRecordDeserializer<?, String> rows =
                copy.getLog().backfillReading().createDeserializer(new TestingReaderContext());
        assertThat(rows).isNotNull();
        assertThat(copy.getLog().createOffsetCommitter(new TestingReaderContext())).isEmpty();
    }

    /**
     * A table's part stored by an earlier release (split version 4, no kind) is restored as a
     * history split, so it is never committed to the topic nor given to its consumer; the topic's
     * partitions are log splits.
     */
    @Test
    void theSourcesSerializerRestoresATablePartWithoutAKindAsHistory() throws Exception {
        BackfillSource<String> source = withoutLive().setLive(live()).build();
        SimpleVersionedSerializer<BackfillSplit> serializer = source.getSplitSerializer();
        String partId =
                TableHistorySplit.partId(
                        TableHistorySplit.id("db.orders", 5, List.of("orders")), 0);
        BackfillSplit part = BackfillSplit.historyOnly(partId, 0, 200);
        BackfillSplit partition =
                new BackfillSplit(
                        "orders-0", HandoverState.BACKFILLING, 3, 9, OptionalLong.empty());
        for (BackfillSplit split : List.of(part, partition)) {
            // version 5 is version 4 and then the kind's byte: without it, version 4's bytes
            byte[] v5 = serializer.serialize(split);
            byte[] v4 = Arrays.copyOf(v5, v5.length - 1);
            assertThat(serializer.deserialize(BackfillSplitSerializer.VERSION_4, v4))
                    .isEqualTo(split);
        }
        assertThat(source.getLog().kindOfSplitStoredWithoutKind(partId))
                .isEqualTo(SplitKind.HISTORY);
        assertThat(source.getLog().kindOfSplitStoredWithoutKind("orders-0"))
                .isEqualTo(SplitKind.LOG);
    }

    /**
     * The enumerator's checkpoint of an earlier release (enumerator version 2, its splits in split
     * version 4, no kind) restored through the source's own serializer: the table's part, cut into
     * chunks (then a bounded log split with "history elsewhere"), comes back a history split, its
     * chunk too, the partition a log split (from the review of the split kinds: the serializer's
     * wiring had no test).
     */
    @Test
    void theSourcesEnumeratorSerializerRestoresAV4TablePartAsHistory() throws Exception {
        BackfillSource<String> source = withoutLive().setLive(live()).build();
        String partId =
                TableHistorySplit.partId(
                        TableHistorySplit.id("db.orders", 5, List.of("orders")), 0);
        // as the release before kinds stored them: the part cut into chunks (a log split with a
        // stop, "history elsewhere"), its first chunk, and a partition going live at once
        BackfillSplit v4Part =
                new BackfillSplit(partId, HandoverState.BACKFILLING, 150, 200, OptionalLong.of(200))
                        .withHistoryElsewhere();
        BackfillSplit chunk = BackfillSplit.historyChunk(partId, 0, 0, 150);
        BackfillSplit partition =
                new BackfillSplit("orders-0", HandoverState.FINISHED, 42, 42, OptionalLong.empty())
                        .withHistoryElsewhere();

        SimpleVersionedSerializer<BackfillSplit> splits = source.getSplitSerializer();
        DataOutputSerializer out = new DataOutputSerializer(256);
        out.writeInt(4); // split serializer version 4
        out.writeBoolean(true); // initial discovery done
        out.writeInt(3);
        for (BackfillSplit split : List.of(v4Part, chunk, partition)) {
            byte[] v5 = splits.serialize(split);
            out.write(Arrays.copyOf(v5, v5.length - 1)); // version 4: version 5 without the kind
            out.writeBoolean(true); // assigned
            out.writeBoolean(false); // ended
        }

        BackfillEnumeratorState restored =
                source.getEnumeratorCheckpointSerializer().deserialize(2, out.getCopyOfBuffer());
        BackfillSplit part = restored.splits().get(0).split();
        assertThat(part.kind()).isEqualTo(SplitKind.HISTORY);
        assertThat(part.hasHistoryElsewhere()).isFalse();
        assertThat(part).isEqualTo(BackfillSplit.historyOnly(partId, 150, 200));
        assertThat(restored.splits().get(1).split().kind()).isEqualTo(SplitKind.HISTORY);
        assertThat(restored.splits().get(2).split()).isEqualTo(partition);
    }
}
