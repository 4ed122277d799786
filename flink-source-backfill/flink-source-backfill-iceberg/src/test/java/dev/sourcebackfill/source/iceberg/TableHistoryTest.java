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
import dev.sourcebackfill.source.iceberg.TableHistory.HistoryFile;

import org.apache.iceberg.DataFile;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.data.Record;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Planning a pinned snapshot: the files' order and positions, the cuts, each partition's end. */
class TableHistoryTest {

    private static final String TOPIC = "orders";

    @TempDir Path warehouse;
    private Catalog catalog;

    @BeforeEach
    void openCatalog() {
        catalog = IcebergTestTables.open("local", IcebergTestTables.hadoopCatalog(warehouse));
    }

    private static List<Record> rows(Kind kind, Table table, int partition, long from, long to) {
        List<Record> rows = new ArrayList<>();
        for (long o = from; o < to; o++) {
            rows.add(
                    IcebergTestTables.row(
                            kind, table.schema(), TOPIC, partition, o, "T|" + partition + "|" + o));
        }
        return rows;
    }

    private static TableHistory plan(Table table, Kind kind) {
        table.refresh();
        return TableHistory.plan(
                table, "db.t", table.currentSnapshot().snapshotId(), kind.layout, List.of(TOPIC));
    }

    private static RowColumns columns(Kind kind) {
        return new RowColumns(kind.layout, TOPIC);
    }

    @Test
    void filesAreOrderedByPartitionThenFirstOffsetAndGetConsecutivePositions() {
        Kind kind = Kind.KAFKA_CONNECT;
        Table table = IcebergTestTables.create(catalog, "db.t", kind);
        List<Record> first = new ArrayList<>(rows(kind, table, 1, 0, 100));
        first.addAll(rows(kind, table, 0, 50, 80));
        IcebergTestTables.append(table, first);
        IcebergTestTables.append(table, rows(kind, table, 0, 0, 50));

        TableHistory history = plan(table, kind);

        assertThat(history.files())
                .extracting(HistoryFile::start, HistoryFile::records)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple(0L, 50L),
                        org.assertj.core.groups.Tuple.tuple(50L, 30L),
                        org.assertj.core.groups.Tuple.tuple(80L, 100L));
        assertThat(history.records()).isEqualTo(180);
        assertThat(history.fileAt(0)).isZero();
        assertThat(history.fileAt(49)).isZero();
        assertThat(history.fileAt(50)).isEqualTo(1);
        assertThat(history.fileAt(179)).isEqualTo(2);
        assertThat(history.fileAt(180)).isEqualTo(3);
        // every reader plans the same order
        assertThat(plan(table, kind).files())
                .extracting(f -> f.task().file().location())
                .containsExactlyElementsOf(
                        history.files().stream()
                                .map(f -> f.task().file().location())
                                .collect(Collectors.toList()));
    }

    /**
     * The history's parts (issue 34, defect 2 for a table): each partition's files, then the files
     * mixing partitions; consecutive ranges of positions covering the whole history.
     */
    @Test
    void thePartsAreEachPartitionsFilesThenTheFilesMixingPartitions() {
        Kind kind = Kind.KAFKA_CONNECT; // partitioned by the Kafka partition: a file each
        Table table = IcebergTestTables.create(catalog, "db.t", kind);
        List<Record> first = new ArrayList<>(rows(kind, table, 1, 0, 100));
        first.addAll(rows(kind, table, 0, 50, 80));
        IcebergTestTables.append(table, first);
        IcebergTestTables.append(table, rows(kind, table, 0, 0, 50));
        assertThat(plan(table, kind).parts())
                .containsExactly(new long[] {0, 80}, new long[] {80, 180});

        Kind mixing = Kind.REDPANDA; // files by hour: each holds every partition
        Table redpanda = IcebergTestTables.create(catalog, "db.r", mixing);
        List<Record> rows = new ArrayList<>(rows(mixing, redpanda, 0, 0, 40));
        rows.addAll(rows(mixing, redpanda, 1, 0, 40));
        IcebergTestTables.append(redpanda, rows);
        IcebergTestTables.append(redpanda, rows(mixing, redpanda, 2, 0, 10));
        TableHistory history = plan(redpanda, mixing);
        List<long[]> parts = history.parts();
        assertThat(parts.get(0)[0]).isZero();
        assertThat(parts.get(parts.size() - 1)[1]).isEqualTo(history.records()).isEqualTo(90);
        for (int i = 1; i < parts.size(); i++) {
            assertThat(parts.get(i)[0])
                    .as("part %d starts where %d ends", i, i - 1)
                    .isEqualTo(parts.get(i - 1)[1]);
        }
        // the file of partition 2 alone is a part of its own, before the mixing ones
        assertThat(parts).hasSize(2);
        assertThat(parts.get(0)).containsExactly(0, 10);
    }

    /**
     * A topic named with more than 16 characters (Iceberg truncates string bounds to 16 by
     * default): the topic column's bounds no longer name it, yet each file holds one partition of
     * it; the files are ordered and grouped by that partition (before, they counted as files mixing
     * partitions, ordered by time with partitions interleaved, and a chunk's event time went back
     * at each partition change). A split restored with plan 1 keeps plan 1's order.
     */
    @Test
    void filesOfOnePartitionOfALongTopicNameAreGroupedByTheirPartition() {
        Kind kind = Kind.KAFKA_CONNECT;
        String topic = "orders.events.from.region-eu-west"; // 33 characters
        Table table = IcebergTestTables.create(catalog, "db.t", kind);
        for (long from = 0; from < 300; from += 100) {
            List<Record> commit = new ArrayList<>();
            for (int p = 0; p < 2; p++) {
                for (long o = from; o < from + 100; o++) {
                    commit.add(IcebergTestTables.row(kind, table.schema(), topic, p, o, "v"));
                }
            }
            IcebergTestTables.append(table, commit);
        }
        table.refresh();
        long snapshot = table.currentSnapshot().snapshotId();
        TableHistory history =
                TableHistory.plan(table, "db.t", snapshot, kind.layout, List.of(topic));
        assertThat(history.files()).hasSize(6);
        assertThat(history.files())
                .extracting(f -> f.group() == null ? -1 : f.group().partition())
                .containsExactly(0, 0, 0, 1, 1, 1);
        assertThat(history.files()).extracting(HistoryFile::partition).containsOnlyNulls();
        assertThat(history.parts()).containsExactly(new long[] {0, 300}, new long[] {300, 600});
        assertThat(history.cuts(0, 600, 1_000)).containsExactly(300L);

        TableHistory restored =
                TableHistory.plan(
                        table,
                        "db.t",
                        snapshot,
                        kind.layout,
                        List.of(topic),
                        TableHistorySplit.Plan.TOPICS,
                        null);
        assertThat(restored.files()).extracting(HistoryFile::group).containsOnlyNulls();
        assertThat(restored.parts()).hasSize(1);
    }

    @Test
    void cutsAreTheStartsOfRunsOfWholeFilesOfAtLeastTheChunkSize() {
        Kind kind = Kind.KAFKA_CONNECT;
        Table table = IcebergTestTables.create(catalog, "db.t", kind);
        for (long from = 0; from < 500; from += 100) {
            IcebergTestTables.append(table, rows(kind, table, 0, from, from + 100));
        }
        TableHistory history = plan(table, kind);

        assertThat(history.cuts(0, 500, 150)).containsExactly(200L, 400L);
        assertThat(history.cuts(0, 500, 100)).containsExactly(100L, 200L, 300L, 400L);
        assertThat(history.cuts(0, 500, 1_000)).isEmpty();
    }

    @Test
    void aFileOfOnePartitionGivesItsLastOffsetFromItsBoundsWithoutBeingRead() throws Exception {
        Kind kind = Kind.KAFKA_CONNECT;
        Table table = IcebergTestTables.create(catalog, "db.t", kind);
        List<Record> rows = new ArrayList<>(rows(kind, table, 0, 0, 40));
        rows.addAll(rows(kind, table, 2, 0, 70));
        List<DataFile> files = IcebergTestTables.append(table, rows);
        TableHistory history = plan(table, kind);
        // the files are gone from the disk: only their statistics can answer
        for (DataFile file : files) {
            assertThat(new File(URI.create(file.location())).delete()).isTrue();
        }

        Map<TopicPartition, Long> last =
                history.lastOffsets(
                        columns(kind), List.of(TOPIC), new TableFiles(table.io(), "db.t"));

        assertThat(last)
                .containsExactlyInAnyOrderEntriesOf(
                        Map.of(
                                new TopicPartition(TOPIC, 0), 39L,
                                new TopicPartition(TOPIC, 2), 69L));
    }

    @Test
    void filesMixingPartitionsAreReadForEachPartitionsLastOffset() throws Exception {
        for (Kind kind : new Kind[] {Kind.REDPANDA, Kind.AIVEN, Kind.AUTOMQ}) {
            Table table =
                    IcebergTestTables.create(catalog, "db." + kind.name().toLowerCase(), kind);
            List<Record> rows = new ArrayList<>();
            for (long o = 0; o < 60; o++) {
                rows.add(
                        IcebergTestTables.row(
                                kind,
                                table.schema(),
                                TOPIC,
                                (int) (o % 3),
                                o / 3 + 10 * (o % 3),
                                "v"));
            }
            IcebergTestTables.append(table, rows);
            table.refresh();
            TableHistory history =
                    TableHistory.plan(
                            table,
                            table.name(),
                            table.currentSnapshot().snapshotId(),
                            kind.layout,
                            List.of(TOPIC));

            assertThat(
                            history.lastOffsets(
                                    columns(kind),
                                    List.of(TOPIC),
                                    new TableFiles(table.io(), table.name())))
                    .as(kind.name())
                    .containsExactlyInAnyOrderEntriesOf(
                            Map.of(
                                    new TopicPartition(TOPIC, 0), 19L,
                                    new TopicPartition(TOPIC, 1), 29L,
                                    new TopicPartition(TOPIC, 2), 39L));
        }
    }

    /**
     * Files mixing partitions are read highest offset first, and only while their bounds can raise
     * a partition's highest offset: a file whose upper offset bound is at most every partition's
     * highest offset known so far is not read (gone from the disk here, so reading it would fail),
     * one that can is read.
     */
    @Test
    void filesMixingPartitionsAreReadOnlyWhereTheirBoundsCanRaiseAPartitionsLastOffset()
            throws Exception {
        Kind kind = Kind.REDPANDA;
        Table table = IcebergTestTables.create(catalog, "db.t", kind);
        // E: partition 0 up to 100, partition 1 up to 5; F: 0 up to 3, 1 up to 50 (must be read,
        // partition 1's highest is in it); G: both up to 20 (cannot raise either once E and F
        // are read)
        DataFile e = mixed(kind, table, 100, 5);
        DataFile f = mixed(kind, table, 3, 50);
        DataFile g = mixed(kind, table, 20, 20);
        TableHistory history = plan(table, kind);
        assertThat(new File(URI.create(g.location())).delete()).isTrue();

        assertThat(
                        history.lastOffsets(
                                columns(kind), List.of(TOPIC), new TableFiles(table.io(), "db.t")))
                .containsExactlyInAnyOrderEntriesOf(
                        Map.of(
                                new TopicPartition(TOPIC, 0), 100L,
                                new TopicPartition(TOPIC, 1), 50L));
        // F is read: without it, partition 1's highest offset cannot be known
        assertThat(new File(URI.create(f.location())).delete()).isTrue();
        assertThatThrownBy(
                        () ->
                                history.lastOffsets(
                                        columns(kind),
                                        List.of(TOPIC),
                                        new TableFiles(table.io(), "db.t")))
                .hasMessageContaining(f.location());
        assertThat(e.location()).isNotEqualTo(f.location());
    }

    /** One data file of partitions 0 and 1, offsets 0 to the highest given for each. */
    private static DataFile mixed(Kind kind, Table table, long highest0, long highest1) {
        List<Record> rows = new ArrayList<>();
        for (long o = 0; o <= Math.max(highest0, highest1); o++) {
            if (o <= highest0) {
                rows.add(IcebergTestTables.row(kind, table.schema(), TOPIC, 0, o, "v"));
            }
            if (o <= highest1) {
                rows.add(IcebergTestTables.row(kind, table.schema(), TOPIC, 1, o, "v"));
            }
        }
        List<DataFile> files = IcebergTestTables.append(table, rows);
        assertThat(files).hasSize(1);
        return files.get(0);
    }

    @Test
    void aDeletedRowStillCountsForItsPartitionsLastOffset() throws Exception {
        Kind kind = Kind.KAFKA_CONNECT;
        Table table = IcebergTestTables.create(catalog, "db.t", kind);
        List<DataFile> files = IcebergTestTables.append(table, rows(kind, table, 0, 0, 10));
        IcebergTestTables.deletePositions(table, files.get(0), 8, 9);

        TableHistory history = plan(table, kind);

        assertThat(
                        history.lastOffsets(
                                columns(kind), List.of(TOPIC), new TableFiles(table.io(), "db.t")))
                .containsEntry(new TopicPartition(TOPIC, 0), 9L);
    }

    @Test
    void rowsOfOtherTopicsAreNotPartOfTheHistory() throws Exception {
        Kind kind = Kind.KAFKA_CONNECT_NESTED;
        Table table = IcebergTestTables.create(catalog, "db.t", kind);
        List<Record> rows = new ArrayList<>();
        for (long o = 0; o < 20; o++) {
            rows.add(IcebergTestTables.row(kind, table.schema(), TOPIC, 0, o, "v"));
            rows.add(IcebergTestTables.row(kind, table.schema(), "other", 0, o + 100, "v"));
        }
        IcebergTestTables.append(table, rows);

        TableHistory history = plan(table, kind);

        assertThat(
                        history.lastOffsets(
                                columns(kind), List.of(TOPIC), new TableFiles(table.io(), "db.t")))
                .containsExactly(Map.entry(new TopicPartition(TOPIC, 0), 19L));
    }

    @Test
    void anExpiredSnapshotFailsNamingItAndTheTable() {
        Kind kind = Kind.KAFKA_CONNECT;
        Table table = IcebergTestTables.create(catalog, "db.t", kind);
        IcebergTestTables.append(table, rows(kind, table, 0, 0, 10));
        long first = table.currentSnapshot().snapshotId();
        IcebergTestTables.append(table, rows(kind, table, 0, 10, 20));
        table.expireSnapshots().expireSnapshotId(first).commit();

        assertThatThrownBy(
                        () -> TableHistory.plan(table, "db.t", first, kind.layout, List.of(TOPIC)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("snapshot " + first + " of Iceberg table db.t")
                .hasMessageContaining("expired");
    }

    @Test
    void aLayoutColumnTheTableDoesNotHaveFailsNamingItAndTheTable() {
        Table table = IcebergTestTables.create(catalog, "db.t", Kind.AIVEN);
        IcebergTestTables.append(table, rows(Kind.AIVEN, table, 0, 0, 10));
        table.refresh();

        assertThatThrownBy(
                        () ->
                                TableHistory.plan(
                                        table,
                                        "db.t",
                                        table.currentSnapshot().snapshotId(),
                                        IcebergLayout.redpanda(),
                                        List.of(TOPIC)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("Iceberg table db.t has no column 'redpanda.partition'")
                .hasMessageContaining("partition column of the layout");
    }
}
