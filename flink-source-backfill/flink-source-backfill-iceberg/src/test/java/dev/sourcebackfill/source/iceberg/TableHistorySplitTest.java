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
import dev.sourcebackfill.source.spi.LogRecordCollector;
import dev.sourcebackfill.source.split.BackfillSplit;
import dev.sourcebackfill.source.split.BackfillSplitSerializer;

import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.data.Record;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Issue 34, defect 7: the id of a table's history split is of bounded length, also for a table
 * written from thousands of topics (2,000 topics made an id {@code writeUTF} could not write, and
 * the job restarted for ever), and a restore with another topic list still cannot re-plan it.
 */
class TableHistorySplitTest {

    private static List<String> topics(String prefix, int count) {
        List<String> topics = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            topics.add(String.format("%s-%04d", prefix, i));
        }
        return topics;
    }

    @Test
    void aFewTopicsAreNamedInTheIdWithThePlan() {
        String id = TableHistorySplit.id("db.t", 7, List.of("b", "a"));
        assertThat(id).isEqualTo("iceberg:db.t@7/a,b;plan=2");
        assertThat(TableHistorySplit.topicsOf(id, List.of("x"))).containsExactly("a", "b");
        assertThat(TableHistorySplit.snapshotOf(id)).isEqualTo(7);
        assertThat(TableHistorySplit.planOf(id))
                .isEqualTo(TableHistorySplit.Plan.TOPICS_AND_ROWS_WITHOUT_TOPIC);
    }

    /** A part of a history: its id names the history, whose plan and topics it shares. */
    @Test
    void aPartsIdNamesItsHistory() {
        String history = TableHistorySplit.id("db.t", 7, List.of("b", "a"));
        String part = TableHistorySplit.partId(history, 3);
        assertThat(part).isEqualTo("iceberg:db.t@7/a,b;plan=2;part=3");
        assertThat(TableHistorySplit.historyOf(part)).isEqualTo(history);
        assertThat(TableHistorySplit.historyOf(history)).isEqualTo(history);
        assertThat(TableHistorySplit.snapshotOf(part)).isEqualTo(7);
        assertThat(TableHistorySplit.topicsOf(part, List.of("x"))).containsExactly("a", "b");
        assertThat(TableHistorySplit.planOf(part))
                .isEqualTo(TableHistorySplit.Plan.TOPICS_AND_ROWS_WITHOUT_TOPIC);
        assertThat(TableHistorySplit.isTableHistory(part)).isTrue();
    }

    /** Issue 34, defect 3: an id restored from before plans had codes keeps its plan. */
    @Test
    void anIdWithoutAPlanMarkIsOfTheTopicsOnlyPlan() {
        String restored = "iceberg:db.t@7/a,b";
        assertThat(TableHistorySplit.planOf(restored)).isEqualTo(TableHistorySplit.Plan.TOPICS);
        assertThat(TableHistorySplit.topicsOf(restored, List.of("x"))).containsExactly("a", "b");
        assertThat(
                        TableHistorySplit.id(
                                "db.t", 7, List.of("a", "b"), TableHistorySplit.Plan.TOPICS))
                .isEqualTo(restored);
        assertThat(TableHistorySplit.planOf("iceberg:db.t@7/;plan=1"))
                .isEqualTo(TableHistorySplit.Plan.TOPICS);
    }

    @Test
    void anUnknownPlanFailsNamingTheSplit() {
        assertThatThrownBy(() -> TableHistorySplit.planOf("iceberg:db.t@7/a;plan=9"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("Split iceberg:db.t@7/a;plan=9")
                .hasMessageContaining("plan 9")
                .hasMessageContaining("newer version");
        assertThatThrownBy(() -> TableHistorySplit.planOf("iceberg:db.t@7/a;plan=x"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("plan 'x'");
    }

    @Test
    void thousandsOfTopicsMakeAnIdOfBoundedLengthThatTheSplitSerializerWrites() throws Exception {
        List<String> topics = topics("orders.events.from.region", 2_000);
        String id = TableHistorySplit.id("db.t", 42, topics);
        assertThat(id.length())
                .isLessThan("iceberg:db.t@42/".length() + TableHistorySplit.MAX_TOPICS_IN_ID);
        assertThat(id).startsWith("iceberg:db.t@42/#2000-").endsWith(";plan=2");
        assertThat(TableHistorySplit.snapshotOf(id)).isEqualTo(42);
        assertThat(TableHistorySplit.planOf(id))
                .isEqualTo(TableHistorySplit.Plan.TOPICS_AND_ROWS_WITHOUT_TOPIC);

        BackfillSplit split = BackfillSplit.historyOnly(id, 0, 10);
        BackfillSplitSerializer serializer = BackfillSplitSerializer.INSTANCE;
        assertThat(serializer.deserialize(serializer.getVersion(), serializer.serialize(split)))
                .isEqualTo(split);

        List<String> shuffled = new ArrayList<>(topics);
        Collections.shuffle(shuffled);
        assertThat(TableHistorySplit.topicsOf(id, shuffled))
                .hasSize(2_000)
                .isSorted()
                .containsExactlyInAnyOrderElementsOf(topics);
    }

    @Test
    void aRestoreWithAnotherTopicListFailsNamingTheSplitAndTheCounts() {
        List<String> topics = topics("orders.events.from.region", 2_000);
        String id = TableHistorySplit.id("db.t", 42, topics);
        List<String> other = new ArrayList<>(topics);
        other.set(17, "another-topic");
        assertThatThrownBy(() -> TableHistorySplit.topicsOf(id, other))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("Split " + id)
                .hasMessageContaining("the 2000 topics the job read at its first start")
                .hasMessageContaining("2000 other topics");
        assertThatThrownBy(() -> TableHistorySplit.topicsOf(id, topics.subList(0, 1_999)))
                .hasMessageContaining("1999 other topics");
    }

    /** The reader reads the history of a split named by its topics' digest, rows of one topic. */
    @Test
    void theReaderReadsASplitNamedByItsTopicsDigest(@TempDir Path warehouse) throws Exception {
        Map<String, String> properties = IcebergTestTables.hadoopCatalog(warehouse);
        Catalog catalog = IcebergTestTables.open("local", properties);
        List<String> topics = topics("orders.events.from.region", 2_000);
        Table table = IcebergTestTables.create(catalog, "db.t", Kind.KAFKA_CONNECT);
        List<Record> rows = new ArrayList<>();
        for (long o = 0; o < 5; o++) {
            rows.add(
                    IcebergTestTables.row(
                            Kind.KAFKA_CONNECT, table.schema(), topics.get(3), 0, o, "v" + o));
        }
        rows.add(IcebergTestTables.row(Kind.KAFKA_CONNECT, table.schema(), "unread", 0, 9, "x"));
        IcebergTestTables.append(table, rows);
        table.refresh();
        String id = TableHistorySplit.id("db.t", table.currentSnapshot().snapshotId(), topics);

        List<Long> offsets = new ArrayList<>();
        LogRecordCollector<TableRow> out =
                (split, position, timestamp, row) -> offsets.add(row.kafkaOffset());
        try (IcebergTableReader reader =
                new IcebergTableReader(
                        new IcebergTableRef("local", properties, "db.t"),
                        new RowColumns(Kind.KAFKA_CONNECT.layout, null),
                        topics,
                        100)) {
            reader.addSplit(id, 0);
            for (int polls = 0; !reader.isEndOfSplit(id); polls++) {
                assertThat(polls).isLessThan(100);
                reader.poll(Duration.ofMillis(10), out);
            }
        }
        assertThat(offsets).containsExactly(0L, 1L, 2L, 3L, 4L);
    }
}
