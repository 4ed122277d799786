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

import dev.sourcebackfill.source.iceberg.IcebergTestTables.Kind;

import org.apache.iceberg.DataFile;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Types;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link TableHistory#lastOffsets} with files mixing partitions skipped by their bounds (written by
 * the adversarial review of that change): a differential check against every row's offset under
 * Iceberg's metrics modes, and the partition values a long partition column can hold.
 */
class TableHistoryBoundsTest {

    @TempDir Path warehouse;
    private Catalog catalog;

    @BeforeEach
    void openCatalog() {
        catalog = IcebergTestTables.open("local", IcebergTestTables.hadoopCatalog(warehouse));
    }

    /**
     * Random tables of files mixing partitions (and topics, where the layout has a topic column,
     * with names sharing a long prefix so that truncated bounds cannot tell them apart), written
     * under each metrics mode: the highest offsets from {@code lastOffsets} are those of the rows.
     */
    @Test
    void lastOffsetsAreTheRowsHighestUnderEveryMetricsMode() throws Exception {
        String[] modes = {
            "truncate(16)", "truncate(2)", "counts", "none", "full",
        };
        String[] topics = {
            "orders-europe-west-1-long", "orders-europe-west-1-long-b", "orders-x", "zz-other"
        };
        List<String> read = List.of(topics[0], topics[1], topics[2]);
        int table = 0;
        for (Kind kind : new Kind[] {Kind.KAFKA_CONNECT_NESTED, Kind.AUTOMQ, Kind.REDPANDA}) {
            for (String mode : modes) {
                for (long seed = 0; seed < 2; seed++) {
                    Random random = new Random(seed * 31 + mode.hashCode() + kind.ordinal());
                    boolean hasTopic = kind.layout.topicColumn().isPresent();
                    List<String> readTopics = hasTopic ? read : List.of(topics[0]);
                    Table t = IcebergTestTables.create(catalog, "db.t" + table++, kind);
                    t.updateProperties()
                            .set(TableProperties.DEFAULT_WRITE_METRICS_MODE, mode)
                            .commit();
                    Map<TopicPartition, Long> truth = new HashMap<>();
                    int files = 2 + random.nextInt(8);
                    for (int f = 0; f < files; f++) {
                        List<Record> rows = new ArrayList<>();
                        int n = 1 + random.nextInt(30);
                        for (int i = 0; i < n; i++) {
                            String topic =
                                    hasTopic ? topics[random.nextInt(topics.length)] : topics[0];
                            int partition = random.nextInt(4);
                            long offset = random.nextInt(200);
                            rows.add(
                                    IcebergTestTables.row(
                                            kind, t.schema(), topic, partition, offset, "v"));
                            if (readTopics.contains(topic)) {
                                truth.merge(
                                        new TopicPartition(topic, partition), offset, Math::max);
                            }
                        }
                        List<DataFile> written = IcebergTestTables.append(t, rows);
                        if (random.nextInt(3) == 0) {
                            // deleted rows still count
                            IcebergTestTables.deletePositions(t, written.get(0), 0);
                        }
                    }
                    t.refresh();
                    TableHistory history =
                            TableHistory.plan(
                                    t,
                                    "db.t",
                                    t.currentSnapshot().snapshotId(),
                                    kind.layout,
                                    readTopics);
                    Map<TopicPartition, Long> last =
                            history.lastOffsets(
                                    new RowColumns(kind.layout, hasTopic ? null : topics[0]),
                                    readTopics,
                                    new TableFiles(t.io(), "db.t"));
                    assertThat(last)
                            .as("%s %s seed %d", kind, mode, seed)
                            .containsExactlyInAnyOrderEntriesOf(truth);
                }
            }
        }
    }

    /**
     * A long partition column holding 2^32 (a value no Kafka partition has): its file's bounds say
     * it holds one partition, and {@code (int)} / {@code intValue()} make that partition 0, so
     * partition 0's highest offset becomes the file's (999), not partition 0's own (9). Discovery
     * then starts partition 0's topic at 1000: offsets 10..999 of the topic are lost, and the table
     * read gives the 2^32 rows as partition 0's offsets 0..999 (0..9 twice). Expected: the value
     * out of int range fails, naming the column and the value.
     */
    @Test
    void aLongPartitionValueOutsideIntRangeIsNotTakenForPartitionZero() throws Exception {
        Schema schema =
                new Schema(
                        Types.NestedField.optional(1, "topic", Types.StringType.get()),
                        Types.NestedField.optional(2, "partition", Types.LongType.get()),
                        Types.NestedField.optional(3, "offset", Types.LongType.get()),
                        Types.NestedField.optional(4, "ts", Types.LongType.get()));
        IcebergLayout layout =
                IcebergLayout.of("partition", "offset", "ts").withTopicColumn("topic");
        Table t =
                catalog.createTable(
                        TableIdentifier.parse("db.longs"),
                        schema,
                        PartitionSpec.unpartitioned(),
                        Map.of(TableProperties.FORMAT_VERSION, "2"));
        List<Record> zero = new ArrayList<>();
        for (long o = 0; o < 10; o++) {
            zero.add(row(schema, 0L, o));
        }
        IcebergTestTables.append(t, zero);
        List<Record> outOfRange = new ArrayList<>();
        for (long o = 0; o < 1000; o++) {
            outOfRange.add(row(schema, 1L << 32, o));
        }
        IcebergTestTables.append(t, outOfRange);
        t.refresh();
        TableHistory history =
                TableHistory.plan(
                        t, "db.longs", t.currentSnapshot().snapshotId(), layout, List.of("orders"));

        Map<TopicPartition, Long> last;
        try {
            last =
                    history.lastOffsets(
                            new RowColumns(layout, null),
                            List.of("orders"),
                            new TableFiles(t.io(), "db.longs"));
        } catch (Exception expected) {
            assertThat(expected)
                    .hasStackTraceContaining("4294967296")
                    .hasMessageContaining("partition");
            return;
        }
        // before the fix: {orders-0=999}
        assertThat(last).as("partition 2^32's rows taken for partition 0's").isNull();
    }

    private static Record row(Schema schema, long partition, long offset) {
        GenericRecord row = GenericRecord.create(schema);
        row.setField("topic", "orders");
        row.setField("partition", partition);
        row.setField("offset", offset);
        row.setField("ts", IcebergTestTables.BASE_MILLIS + offset);
        return row;
    }
}
