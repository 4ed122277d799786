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

import dev.sourcebackfill.source.enumerator.BackfillSplitEnumerator;
import dev.sourcebackfill.source.iceberg.IcebergTestTables.Kind;
import dev.sourcebackfill.source.spi.DiscoveredSplit;
import dev.sourcebackfill.source.spi.LogSplitDiscoverer;
import dev.sourcebackfill.source.split.BackfillSplit;
import dev.sourcebackfill.source.split.SplitKind;

import org.apache.flink.api.connector.source.ReaderInfo;
import org.apache.flink.api.connector.source.SplitsAssignment;
import org.apache.flink.api.connector.source.mocks.MockSplitEnumeratorContext;

import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.data.Record;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** What the first discovery makes of the topic's partitions and the table's pinned snapshot. */
class IcebergDiscovererTest {

    private static final String TOPIC = "orders";

    @TempDir Path warehouse;
    private Map<String, String> properties;
    private Catalog catalog;

    @BeforeEach
    void openCatalog() {
        properties = IcebergTestTables.hadoopCatalog(warehouse);
        catalog = IcebergTestTables.open("local", properties);
    }

    /** The topic as the Kafka adapter's discoverer finds it: partitions from offset 0. */
    private static LogSplitDiscoverer topic(long... ends) {
        return new LogSplitDiscoverer() {
            @Override
            public List<DiscoveredSplit> discoverSplits(boolean initial) {
                List<DiscoveredSplit> splits = new ArrayList<>();
                for (int p = 0; p < ends.length; p++) {
                    splits.add(
                            initial
                                    ? DiscoveredSplit.backfilled(TOPIC + "-" + p, 0, ends[p])
                                    : DiscoveredSplit.readByLive(TOPIC + "-" + p, ends[p]));
                }
                return splits;
            }
        };
    }

    private IcebergDiscoverer discoverer(LogSplitDiscoverer topic) {
        return discoverer(topic, false);
    }

    private IcebergDiscoverer discoverer(LogSplitDiscoverer topic, boolean ordered) {
        return new IcebergDiscoverer(
                topic,
                new IcebergTableRef("local", properties, "db.t"),
                new RowColumns(Kind.KAFKA_CONNECT.layout, TOPIC),
                false,
                null,
                ordered);
    }

    private Table tableWith(Map<Integer, Long> rowsPerPartition) {
        Table table = IcebergTestTables.create(catalog, "db.t", Kind.KAFKA_CONNECT);
        rowsPerPartition.forEach(
                (partition, rows) -> {
                    for (long from = 0; from < rows; from += 100) {
                        List<Record> file = new ArrayList<>();
                        for (long o = from; o < Math.min(rows, from + 100); o++) {
                            file.add(
                                    IcebergTestTables.row(
                                            Kind.KAFKA_CONNECT,
                                            table.schema(),
                                            TOPIC,
                                            partition,
                                            o,
                                            "v"));
                        }
                        IcebergTestTables.append(table, file);
                    }
                });
        table.refresh();
        return table;
    }

    @Test
    void partitionsGoLiveAfterTheirRowsAndTheTablesHistoryIsASplitOfItsOwn() throws Exception {
        Table table = tableWith(Map.of(0, 250L, 1, 100L));
        long snapshot = table.currentSnapshot().snapshotId();
        try (IcebergDiscoverer discoverer = discoverer(topic(400, 100, 30))) {
            List<DiscoveredSplit> splits = discoverer.discoverSplits(true);

            assertThat(splits).hasSize(5);
            assertThat(splits.get(0).splitId()).isEqualTo(TOPIC + "-0");
            assertThat(splits.get(0).liveReadsWholeSplit()).isTrue();
            assertThat(splits.get(0).backfillStartOffset()).isEqualTo(250);
            assertThat(splits.get(1).backfillStartOffset()).isEqualTo(100);
            assertThat(splits.get(1).liveReadsWholeSplit()).isTrue();
            // no rows: where the topic's starting offsets say
            assertThat(splits.get(2).backfillStartOffset()).isZero();
            assertThat(splits.get(2).liveReadsWholeSplit()).isTrue();
            // the history in two parts, the files of each partition
            DiscoveredSplit history = splits.get(3);
            assertThat(history.splitId())
                    .isEqualTo("iceberg:db.t@" + snapshot + "/" + TOPIC + ";plan=2;part=0");
            assertThat(history.liveReadsWholeSplit()).isFalse();
            assertThat(history.backfillStartOffset()).isZero();
            assertThat(history.stoppingOffset()).hasValue(250);
            DiscoveredSplit second = splits.get(4);
            assertThat(second.splitId())
                    .isEqualTo("iceberg:db.t@" + snapshot + "/" + TOPIC + ";plan=2;part=1");
            assertThat(second.liveReadsWholeSplit()).isFalse();
            assertThat(second.backfillStartOffset()).isEqualTo(250);
            assertThat(second.stoppingOffset()).hasValue(350);
            assertThat(history.liveEndOffset()).isEqualTo(250);
            assertThat(second.liveEndOffset()).isEqualTo(350);
            // whole files: 100, 100, 50 rows of partition 0 (the first part): runs of at least
            // the chunk size; the whole history too is cut where the partition changes
            assertThat(discoverer.cutHistory(history, 0, 250, 150)).containsExactly(200L);
            assertThat(discoverer.cutHistory(history, 0, 250, 100)).containsExactly(100L, 200L);
            assertThat(discoverer.cutHistory(second, 250, 350, 10)).isEmpty();
            assertThat(discoverer.cutHistory(history, 0, 350, 150)).containsExactly(200L, 250L);
            assertThat(discoverer.cutHistory(splits.get(0), 250, 400, 10)).isEmpty();
            // later discoveries are the topic's
            assertThat(discoverer.discoverSplits(false))
                    .extracting(DiscoveredSplit::splitId)
                    .containsExactly(TOPIC + "-0", TOPIC + "-1", TOPIC + "-2");
        }
    }

    @Test
    void inOrderedModeEachPartitionWithRowsIsBackfilledFromTheTableAndThereIsNoHistorySplit()
            throws Exception {
        Table table = tableWith(Map.of(0, 250L));
        List<Record> later = new ArrayList<>();
        for (long o = 40; o < 100; o++) {
            later.add(IcebergTestTables.row(Kind.KAFKA_CONNECT, table.schema(), TOPIC, 1, o, "v"));
        }
        IcebergTestTables.append(table, later);
        try (IcebergDiscoverer discoverer = discoverer(topic(400, 100, 30), true)) {
            List<DiscoveredSplit> splits = discoverer.discoverSplits(true);

            assertThat(splits)
                    .extracting(DiscoveredSplit::splitId)
                    .containsExactly(TOPIC + "-0", TOPIC + "-1", TOPIC + "-2");
            // backfilled from the partition's first row in the table up to the topic's end; the
            // reader ends after its rows there, where the topic takes over
            assertThat(splits.get(0).liveReadsWholeSplit()).isFalse();
            assertThat(splits.get(0).hasHistoryElsewhere()).isFalse();
            assertThat(splits.get(0).backfillStartOffset()).isZero();
            assertThat(splits.get(0).liveEndOffset()).isEqualTo(400);
            assertThat(splits.get(1).liveReadsWholeSplit()).isFalse();
            assertThat(splits.get(1).backfillStartOffset()).isEqualTo(40);
            assertThat(splits.get(1).liveEndOffset()).isEqualTo(100);
            // no rows: from the topic, as without ordered mode
            assertThat(splits.get(2).liveReadsWholeSplit()).isTrue();
            assertThat(splits.get(2).backfillStartOffset()).isZero();
            assertThat(discoverer.cutHistory(splits.get(0), 0, 400, 10)).isEmpty();
        }
    }

    @Test
    void inOrderedModeAStoppingOffsetInsideTheTablesHistoryFailsToo() {
        tableWith(Map.of(0, 50L));
        LogSplitDiscoverer bounded =
                new LogSplitDiscoverer() {
                    @Override
                    public List<DiscoveredSplit> discoverSplits(boolean initial) {
                        return List.of(
                                DiscoveredSplit.backfilled(TOPIC + "-0", 0, 100)
                                        .withStoppingOffset(30));
                    }
                };
        assertThatThrownBy(() -> discoverer(bounded, true).discoverSplits(true))
                .hasMessageContaining("Partition " + TOPIC + "-0 stops at offset 30")
                .hasMessageContaining("rows up to offset 49");
    }

    @Test
    void aTableWithoutASnapshotLeavesEveryPartitionToTheTopic() throws Exception {
        IcebergTestTables.create(catalog, "db.t", Kind.KAFKA_CONNECT);
        try (IcebergDiscoverer discoverer = discoverer(topic(10, 20))) {
            List<DiscoveredSplit> splits = discoverer.discoverSplits(true);
            assertThat(splits)
                    .extracting(DiscoveredSplit::splitId)
                    .containsExactly(TOPIC + "-0", TOPIC + "-1");
            assertThat(splits).allSatisfy(s -> assertThat(s.liveReadsWholeSplit()).isTrue());
            assertThat(splits).allSatisfy(s -> assertThat(s.backfillStartOffset()).isZero());
        }
    }

    @Test
    void rowsOfAPartitionTheTopicDoesNotHaveFailNamingIt() {
        tableWith(Map.of(0, 10L, 3, 10L));
        assertThatThrownBy(() -> discoverer(topic(10, 10)).discoverSplits(true))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("Iceberg table db.t has rows of partition " + TOPIC + "-3");
    }

    @Test
    void aTableAheadOfTheTopicFailsNamingThePartitionAndBothOffsets() {
        tableWith(Map.of(0, 50L));
        assertThatThrownBy(() -> discoverer(topic(40)).discoverSplits(true))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("offset 49 of partition " + TOPIC + "-0")
                .hasMessageContaining("end offset 40");
    }

    @Test
    void aStoppingOffsetInsideTheTablesHistoryFailsNamingIt() {
        tableWith(Map.of(0, 50L));
        LogSplitDiscoverer bounded =
                new LogSplitDiscoverer() {
                    @Override
                    public List<DiscoveredSplit> discoverSplits(boolean initial) {
                        return List.of(
                                DiscoveredSplit.backfilled(TOPIC + "-0", 0, 100)
                                        .withStoppingOffset(30));
                    }
                };
        assertThatThrownBy(() -> discoverer(bounded).discoverSplits(true))
                .hasMessageContaining("Partition " + TOPIC + "-0 stops at offset 30")
                .hasMessageContaining("rows up to offset 49");
    }

    /**
     * Issue 34, defect 1: the enumerator asks the table where to cut whatever the history's length.
     * A table of 400 rows, a file per 100 rows of one partition, in chunks of 1,000,000 rows (the
     * default): two runs, each of one partition (parts of the history of their own), so no split's
     * event time goes back where the partition changes (one split holding both partitions' files
     * made 199 of partition 1's 200 rows late).
     */
    @Test
    void theEnumeratorCutsATableNoLongerThanAChunkWhereThePartitionChanges() throws Throwable {
        tableWith(Map.of(0, 200L, 1, 200L));
        try (MockSplitEnumeratorContext<BackfillSplit> context =
                        new MockSplitEnumeratorContext<>(2);
                BackfillSplitEnumerator enumerator =
                        new BackfillSplitEnumerator(
                                context,
                                discoverer(topic(200, 200)),
                                false,
                                Duration.ZERO,
                                OptionalLong.of(1_000_000),
                                null)) {
            enumerator.start();
            context.runNextOneTimeCallable();
            for (int subtask = 0; subtask < 2; subtask++) {
                context.registerReader(new ReaderInfo(subtask, "localhost"));
                enumerator.addReader(subtask);
            }
            List<BackfillSplit> history = new ArrayList<>();
            for (SplitsAssignment<BackfillSplit> assignment :
                    context.getSplitsAssignmentSequence()) {
                assignment
                        .assignment()
                        .values()
                        .forEach(
                                splits ->
                                        splits.stream()
                                                .filter(
                                                        s ->
                                                                TableHistorySplit.isTableHistory(
                                                                        s.logSplitId()))
                                                .forEach(history::add));
            }
            // a part per partition's files (each shorter than a chunk: no chunks)
            history.sort(Comparator.comparingLong(BackfillSplit::nextOffset));
            assertThat(history).hasSize(2);
            assertThat(history.get(0).chunk()).isEmpty();
            assertThat(history.get(0).kind()).isEqualTo(SplitKind.HISTORY);
            assertThat(history.get(0).nextOffset()).isZero();
            assertThat(history.get(0).stoppingOffset()).hasValue(200);
            assertThat(history.get(1).chunk()).isEmpty();
            assertThat(history.get(1).kind()).isEqualTo(SplitKind.HISTORY);
            assertThat(history.get(1).nextOffset()).isEqualTo(200);
            assertThat(history.get(1).stoppingOffset()).hasValue(400);
            assertThat(history.get(0).logSplitId()).isNotEqualTo(history.get(1).logSplitId());
        }
    }

    /**
     * Issue 34, defect 4: a partition whose history is the table's says so (its position is not
     * committed to Kafka before forward mode); one without rows in the table does not.
     */
    @Test
    void partitionsWithRowsInTheTableHaveTheirHistoryElsewhere() throws Exception {
        tableWith(Map.of(0, 250L, 1, 100L));
        try (IcebergDiscoverer discoverer = discoverer(topic(400, 100, 30))) {
            List<DiscoveredSplit> splits = discoverer.discoverSplits(true);
            assertThat(splits.get(0).hasHistoryElsewhere()).isTrue();
            assertThat(splits.get(1).hasHistoryElsewhere()).isTrue();
            assertThat(splits.get(2).hasHistoryElsewhere()).as("no rows in the table").isFalse();
            assertThat(splits.get(3).hasHistoryElsewhere()).as("the table's history").isFalse();
        }
    }

    /**
     * Issue 34, defect 5: the check against another incarnation of the topic compares with the
     * topic's own end, also where a starting offset beyond the end raised the live end.
     */
    @Test
    void aTableBeyondTheTopicsEndFailsAlsoWhenTheStartingOffsetIsBeyondTheEnd() {
        tableWith(Map.of(0, 50L));
        LogSplitDiscoverer startBeyondTheEnd =
                initial ->
                        List.of(
                                DiscoveredSplit.backfilled(TOPIC + "-0", 100, 100)
                                        .withLogEndOffset(40));
        assertThatThrownBy(() -> discoverer(startBeyondTheEnd).discoverSplits(true))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("offset 49 of partition " + TOPIC + "-0")
                .hasMessageContaining("end offset 40");
    }

    /**
     * Issue 34, defect 6: the snapshot is pinned before the topic's ends are looked up, so a
     * writer's commit right after the look-up (rows the ends do not cover) is not in the history.
     */
    @Test
    void theSnapshotIsPinnedBeforeTheTopicsEndsAreLookedUp() throws Exception {
        Table table = tableWith(Map.of(0, 50L));
        long before = table.currentSnapshot().snapshotId();
        LogSplitDiscoverer endsThenACommit =
                initial -> {
                    List<DiscoveredSplit> ends =
                            List.of(
                                    DiscoveredSplit.backfilled(TOPIC + "-0", 0, 50)
                                            .withLogEndOffset(50));
                    List<Record> later = new ArrayList<>();
                    for (long o = 50; o < 60; o++) {
                        later.add(
                                IcebergTestTables.row(
                                        Kind.KAFKA_CONNECT, table.schema(), TOPIC, 0, o, "v"));
                    }
                    IcebergTestTables.append(table, later);
                    return ends;
                };
        try (IcebergDiscoverer discoverer = discoverer(endsThenACommit)) {
            List<DiscoveredSplit> splits = discoverer.discoverSplits(true);
            assertThat(splits.get(0).backfillStartOffset()).isEqualTo(50);
            assertThat(splits.get(1).splitId())
                    .isEqualTo("iceberg:db.t@" + before + "/" + TOPIC + ";plan=2;part=0");
            assertThat(splits.get(1).stoppingOffset()).hasValue(50);
        }
        table.refresh();
        assertThat(table.currentSnapshot().snapshotId()).isNotEqualTo(before);
    }
}
