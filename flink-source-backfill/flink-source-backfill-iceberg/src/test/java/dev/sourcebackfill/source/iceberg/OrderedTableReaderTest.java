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

import org.apache.iceberg.DataFile;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.data.Record;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The reader of ordered mode: each partition's rows from the table in offset order, across files,
 * deletes applied, from where the split starts, and the end of the partition's rows signalled at
 * its highest offset plus one.
 */
class OrderedTableReaderTest {

    private static final String TOPIC = "orders";

    @TempDir Path warehouse;
    private Map<String, String> properties;
    private Catalog catalog;

    @BeforeEach
    void openCatalog() {
        properties = IcebergTestTables.hadoopCatalog(warehouse);
        catalog = IcebergTestTables.open("local", properties);
    }

    /** One delivered row: the split it was delivered for, the partition and offset it holds. */
    record Delivered(String split, int partition, long offset) {}

    private static class Collecting implements LogRecordCollector<TableRow> {
        final List<Delivered> rows = new ArrayList<>();

        @Override
        public void collect(String splitId, long offset, long timestamp, TableRow record) {
            // offsets are the Kafka offsets the rows hold, the timestamps theirs
            assertThat(offset).isEqualTo(record.kafkaOffset());
            assertThat(timestamp).isEqualTo(record.timestamp());
            rows.add(new Delivered(splitId, record.partition(), offset));
        }

        List<Long> offsets() {
            return rows.stream().map(Delivered::offset).toList();
        }
    }

    private OrderedTableReader reader(Kind kind, int maxRecordsPerPoll) {
        return new OrderedTableReader(
                new IcebergTableRef("local", properties, "db.t"),
                new RowColumns(kind.layout, TOPIC),
                List.of(TOPIC),
                maxRecordsPerPoll,
                null);
    }

    private static void readToEnd(OrderedTableReader reader, String split, Collecting out)
            throws IOException {
        for (int polls = 0; !reader.isEndOfSplit(split); polls++) {
            assertThat(polls).as("polls until the end").isLessThan(1_000);
            reader.poll(Duration.ofMillis(10), out);
        }
    }

    private static Record row(Kind kind, Table table, int partition, long offset) {
        return IcebergTestTables.row(kind, table.schema(), TOPIC, partition, offset, "v" + offset);
    }

    /** Kafka Connect's layout (a file per partition): one file of partition 0 per range. */
    private static DataFile appendRange(Table table, int partition, long from, long to) {
        List<Record> rows = new ArrayList<>();
        for (long o = from; o < to; o++) {
            rows.add(row(Kind.KAFKA_CONNECT, table, partition, o));
        }
        return IcebergTestTables.append(table, rows).get(0);
    }

    /** Redpanda's layout: each file mixes the partitions 0-3; 3 files of 10 offsets each. */
    private Table mixedTable() {
        Table table = IcebergTestTables.create(catalog, "db.t", Kind.REDPANDA);
        for (int file = 0; file < 3; file++) {
            List<Record> rows = new ArrayList<>();
            for (long i = 0; i < 40; i++) {
                rows.add(row(Kind.REDPANDA, table, (int) (i % 4), file * 10 + i / 4));
            }
            IcebergTestTables.append(table, rows);
        }
        table.refresh();
        return table;
    }

    private static List<Long> range(long from, long to) {
        List<Long> values = new ArrayList<>();
        for (long v = from; v < to; v++) {
            values.add(v);
        }
        return values;
    }

    @Test
    void aPartitionsFilesAreReadInOffsetOrderWhateverOrderTheyWereCommittedIn() throws Exception {
        Table table = IcebergTestTables.create(catalog, "db.t", Kind.KAFKA_CONNECT);
        // committed out of offset order, with partition 1's rows in between
        appendRange(table, 0, 200, 300);
        appendRange(table, 1, 0, 50);
        appendRange(table, 0, 0, 100);
        appendRange(table, 0, 100, 200);
        table.refresh();

        Collecting out = new Collecting();
        try (OrderedTableReader reader = reader(Kind.KAFKA_CONNECT, 7)) {
            reader.addSplit(TOPIC + "-0", 0);
            assertThat(reader.rangesOf(new TopicPartition(TOPIC, 0)))
                    .extracting(OrderedTableReader.Range::first)
                    .containsExactly(0L, 100L, 200L);
            readToEnd(reader, TOPIC + "-0", out);

            assertThat(out.offsets()).containsExactlyElementsOf(range(0, 300));
            assertThat(out.rows).allSatisfy(r -> assertThat(r.partition()).isZero());
            assertThat(out.rows).allSatisfy(r -> assertThat(r.split()).isEqualTo(TOPIC + "-0"));
            assertThat(reader.position(TOPIC + "-0")).isEqualTo(300);
            // files of one partition give their offsets by their bounds: none scanned
            assertThat(reader.scannedFiles()).isZero();
        }
    }

    @Test
    void aFileMixingPartitionsIsReadByEachPartitionsReaderWhichGetsItsOwnRowsOnly()
            throws Exception {
        mixedTable();
        Collecting first = new Collecting();
        Collecting second = new Collecting();
        try (OrderedTableReader one = reader(Kind.REDPANDA, 4);
                OrderedTableReader other = reader(Kind.REDPANDA, 4)) {
            one.addSplit(TOPIC + "-0", 0);
            other.addSplit(TOPIC + "-1", 0);
            readToEnd(one, TOPIC + "-0", first);
            readToEnd(other, TOPIC + "-1", second);

            assertThat(first.rows).allSatisfy(r -> assertThat(r.partition()).isZero());
            assertThat(first.offsets()).containsExactlyElementsOf(range(0, 30));
            assertThat(second.rows).allSatisfy(r -> assertThat(r.partition()).isOne());
            assertThat(second.rows).allSatisfy(r -> assertThat(r.split()).isEqualTo(TOPIC + "-1"));
            assertThat(second.offsets()).containsExactlyElementsOf(range(0, 30));
            assertThat(one.position(TOPIC + "-0")).isEqualTo(30);
            assertThat(other.position(TOPIC + "-1")).isEqualTo(30);
            // each mixed file's Kafka columns scanned once per reader
            assertThat(one.scannedFiles()).isEqualTo(3);
        }
    }

    @Test
    void twoPartitionsOfOneReaderShareItsScanAndEachGetsItsOwnRowsInOrder() throws Exception {
        mixedTable();
        Collecting out = new Collecting();
        try (OrderedTableReader reader = reader(Kind.REDPANDA, 5)) {
            reader.addSplit(TOPIC + "-2", 0);
            reader.addSplit(TOPIC + "-3", 0);
            while (!reader.isEndOfSplit(TOPIC + "-2") || !reader.isEndOfSplit(TOPIC + "-3")) {
                reader.poll(Duration.ofMillis(10), out);
            }
            assertThat(reader.scannedFiles()).isEqualTo(3);
            for (int p : new int[] {2, 3}) {
                String split = TOPIC + "-" + p;
                assertThat(out.rows.stream().filter(r -> r.split().equals(split)))
                        .allSatisfy(r -> assertThat(r.partition()).isEqualTo(p))
                        .extracting(Delivered::offset)
                        .containsExactlyElementsOf(range(0, 30));
            }
        }
    }

    @Test
    void filesWhoseRangesOfAPartitionOverlapAreMergedByOffset() throws Exception {
        Table table = IcebergTestTables.create(catalog, "db.t", Kind.KAFKA_CONNECT);
        List<Record> even = new ArrayList<>();
        List<Record> odd = new ArrayList<>();
        for (long o = 0; o < 40; o++) {
            (o % 2 == 0 ? even : odd).add(row(Kind.KAFKA_CONNECT, table, 0, o));
        }
        IcebergTestTables.append(table, odd);
        IcebergTestTables.append(table, even);
        appendRange(table, 0, 40, 50);
        table.refresh();

        Collecting out = new Collecting();
        try (OrderedTableReader reader = reader(Kind.KAFKA_CONNECT, 3)) {
            reader.addSplit(TOPIC + "-0", 0);
            readToEnd(reader, TOPIC + "-0", out);
            assertThat(out.offsets()).containsExactlyElementsOf(range(0, 50));
        }
        // from the middle of the two merged files
        Collecting restored = new Collecting();
        try (OrderedTableReader reader = reader(Kind.KAFKA_CONNECT, 3)) {
            reader.addSplit(TOPIC + "-0", 17);
            readToEnd(reader, TOPIC + "-0", restored);
            assertThat(restored.offsets()).containsExactlyElementsOf(range(17, 50));
        }
    }

    @Test
    void anOffsetInTwoFilesFailsNamingBoth() throws Exception {
        Table table = IcebergTestTables.create(catalog, "db.t", Kind.KAFKA_CONNECT);
        DataFile first = appendRange(table, 0, 0, 10);
        DataFile second = appendRange(table, 0, 9, 20);
        table.refresh();
        try (OrderedTableReader reader = reader(Kind.KAFKA_CONNECT, 100)) {
            reader.addSplit(TOPIC + "-0", 0);
            assertThatThrownBy(() -> readToEnd(reader, TOPIC + "-0", new Collecting()))
                    .isInstanceOf(IOException.class)
                    .hasMessageContaining("offset 9 of partition " + TOPIC + "-0 twice")
                    .hasMessageContaining(first.location())
                    .hasMessageContaining(second.location());
        }
    }

    @Test
    void rowsOutOfOffsetOrderWithinAFileFailNamingTheFile() throws Exception {
        Table table = IcebergTestTables.create(catalog, "db.t", Kind.KAFKA_CONNECT);
        List<Record> rows = new ArrayList<>();
        for (long o : new long[] {0, 1, 3, 2, 4}) {
            rows.add(row(Kind.KAFKA_CONNECT, table, 0, o));
        }
        DataFile file = IcebergTestTables.append(table, rows).get(0);
        table.refresh();
        try (OrderedTableReader reader = reader(Kind.KAFKA_CONNECT, 100)) {
            reader.addSplit(TOPIC + "-0", 0);
            assertThatThrownBy(() -> readToEnd(reader, TOPIC + "-0", new Collecting()))
                    .isInstanceOf(IOException.class)
                    .hasMessageContaining("Reading data file " + file.location())
                    .hasMessageContaining("the row at position 3")
                    .hasMessageContaining("offset 2 follows offset 3");
        }
    }

    @Test
    void deletedRowsAreHolesAndADeletedLastRowStillCountsForTheEnd() throws Exception {
        Table table = IcebergTestTables.create(catalog, "db.t", Kind.KAFKA_CONNECT);
        DataFile first = appendRange(table, 0, 0, 10);
        DataFile second = appendRange(table, 0, 10, 15);
        IcebergTestTables.deletePositions(table, first, 3, 8, 9);
        // the partition's last row (offset 14) deleted: the topic must not bring it back
        IcebergTestTables.deletePositions(table, second, 4);
        table.refresh();

        Collecting out = new Collecting();
        try (OrderedTableReader reader = reader(Kind.KAFKA_CONNECT, 4)) {
            reader.addSplit(TOPIC + "-0", 0);
            readToEnd(reader, TOPIC + "-0", out);
            assertThat(out.offsets())
                    .containsExactly(0L, 1L, 2L, 4L, 5L, 6L, 7L, 10L, 11L, 12L, 13L);
            assertThat(reader.position(TOPIC + "-0")).isEqualTo(15);
        }
    }

    @Test
    void rowsDeletedByEqualityAreHolesToo() throws Exception {
        Table table = IcebergTestTables.create(catalog, "db.t", Kind.KAFKA_CONNECT);
        List<Record> rows = new ArrayList<>();
        for (long o = 0; o < 10; o++) {
            rows.add(row(Kind.KAFKA_CONNECT, table, 0, o));
        }
        IcebergTestTables.append(table, rows);
        IcebergTestTables.deleteEqual(table, rows.get(0), 0, 0, 2, 9);
        table.refresh();

        Collecting out = new Collecting();
        try (OrderedTableReader reader = reader(Kind.KAFKA_CONNECT, 100)) {
            reader.addSplit(TOPIC + "-0", 0);
            readToEnd(reader, TOPIC + "-0", out);
            assertThat(out.offsets()).containsExactly(1L, 3L, 4L, 5L, 6L, 7L, 8L);
            assertThat(reader.position(TOPIC + "-0")).isEqualTo(10);
        }
    }

    @Test
    void aRestoreInTheMiddleOfAFileSkipsTheRowsBelowAndOpensNoFileBelowIt() throws Exception {
        Table table = IcebergTestTables.create(catalog, "db.t", Kind.KAFKA_CONNECT);
        DataFile below = appendRange(table, 0, 0, 10);
        appendRange(table, 0, 10, 20);
        appendRange(table, 0, 20, 30);
        table.refresh();
        // a file wholly below the restored position is never opened
        assertThat(new File(URI.create(below.location())).delete()).isTrue();

        Collecting out = new Collecting();
        try (OrderedTableReader reader = reader(Kind.KAFKA_CONNECT, 100)) {
            reader.addSplit(TOPIC + "-0", 15);
            assertThat(reader.position(TOPIC + "-0")).isEqualTo(15);
            readToEnd(reader, TOPIC + "-0", out);
            assertThat(out.offsets()).containsExactlyElementsOf(range(15, 30));
        }
    }

    @Test
    void theEndIsSignalledOnlyAfterTheHighestOffsetAndAtItPlusOne() throws Exception {
        mixedTable();
        Collecting out = new Collecting();
        try (OrderedTableReader reader = reader(Kind.REDPANDA, 10)) {
            reader.addSplit(TOPIC + "-2", 0);
            reader.poll(Duration.ofMillis(10), out);
            reader.poll(Duration.ofMillis(10), out);
            assertThat(out.offsets()).containsExactlyElementsOf(range(0, 20));
            assertThat(reader.isEndOfSplit(TOPIC + "-2")).isFalse();
            reader.poll(Duration.ofMillis(10), out);
            assertThat(out.offsets()).containsExactlyElementsOf(range(0, 30));
            readToEnd(reader, TOPIC + "-2", out);
            assertThat(out.rows).hasSize(30);
            assertThat(reader.position(TOPIC + "-2")).isEqualTo(30);
            // a restore at the end: nothing to read, the end at once
            reader.removeSplit(TOPIC + "-2");
            reader.addSplit(TOPIC + "-2", 30);
            assertThat(reader.isEndOfSplit(TOPIC + "-2")).isTrue();
            assertThat(reader.position(TOPIC + "-2")).isEqualTo(30);
        }
    }

    @Test
    void aRowWithoutAnOffsetFailsNamingItsFileAndPosition() throws Exception {
        Table table = IcebergTestTables.create(catalog, "db.t", Kind.KAFKA_CONNECT);
        List<Record> rows = new ArrayList<>();
        for (long o = 0; o < 5; o++) {
            rows.add(row(Kind.KAFKA_CONNECT, table, 0, o));
        }
        rows.get(2).setField("_kafka_metadata_offset", null);
        DataFile file = IcebergTestTables.append(table, rows).get(0);
        table.refresh();
        try (OrderedTableReader reader = reader(Kind.KAFKA_CONNECT, 100)) {
            reader.addSplit(TOPIC + "-0", 0);
            assertThatThrownBy(() -> readToEnd(reader, TOPIC + "-0", new Collecting()))
                    .isInstanceOf(IOException.class)
                    .hasMessageContaining(file.location())
                    .hasMessageContaining("the row at position 2")
                    .hasMessageContaining("no offset");
        }
    }

    /**
     * Review s40 (change 4, ordered mode read the CURRENT snapshot): the job first started on a
     * snapshot where partition 0 has offsets 0..29 (three files), pinned its handover at offset 30
     * and checkpointed at offset 5. A commit then removes the file of offsets 10..19 (a rewrite
     * that drops rows, a retention delete, an overwrite). A restored reader that planned the new
     * snapshot went from 9 to 20 without a word, and the topic never covers 10..19 (the handover is
     * at 30). The split carries the pinned snapshot: the restored reader reads it, every offset.
     */
    @Test
    void aRestoreAfterACommitThatDroppedRowsReadsThePinnedSnapshotsRows() throws Exception {
        Table table = IcebergTestTables.create(catalog, "db.t", Kind.KAFKA_CONNECT);
        appendRange(table, 0, 0, 10);
        DataFile middle = appendRange(table, 0, 10, 20);
        appendRange(table, 0, 20, 30);
        table.refresh();
        String pinned = Long.toString(table.currentSnapshot().snapshotId());
        try (OrderedTableReader first = reader(Kind.KAFKA_CONNECT, 5)) {
            first.addSplit(TOPIC + "-0", 0, pinned);
            first.poll(Duration.ofMillis(10), new Collecting());
            assertThat(first.position(TOPIC + "-0")).isEqualTo(5);
        }
        table.newDelete().deleteFile(middle).commit();

        Collecting out = new Collecting();
        try (OrderedTableReader restored = reader(Kind.KAFKA_CONNECT, 100)) {
            restored.addSplit(TOPIC + "-0", 5, pinned);
            readToEnd(restored, TOPIC + "-0", out);
            assertThat(restored.position(TOPIC + "-0")).isEqualTo(30);
        }
        assertThat(out.offsets()).containsExactlyElementsOf(range(5, 30));

        // a split without a version (a checkpoint of an older release) reads the current snapshot
        Collecting current = new Collecting();
        try (OrderedTableReader unversioned = reader(Kind.KAFKA_CONNECT, 100)) {
            unversioned.addSplit(TOPIC + "-0", 5);
            readToEnd(unversioned, TOPIC + "-0", current);
        }
        assertThat(current.offsets()).doesNotContain(10L, 19L).contains(9L, 20L);
    }

    /** The pinned snapshot expired: the restore fails naming it, the table and the tag option. */
    @Test
    void anExpiredPinnedSnapshotFailsNamingItAndTheTagOption() throws Exception {
        Table table = IcebergTestTables.create(catalog, "db.t", Kind.KAFKA_CONNECT);
        appendRange(table, 0, 0, 10);
        table.refresh();
        long pinned = table.currentSnapshot().snapshotId();
        appendRange(table, 0, 10, 20);
        table.expireSnapshots().expireSnapshotId(pinned).commit();
        try (OrderedTableReader restored = reader(Kind.KAFKA_CONNECT, 100)) {
            assertThatThrownBy(() -> restored.addSplit(TOPIC + "-0", 5, Long.toString(pinned)))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("snapshot " + pinned)
                    .hasMessageContaining("db.t")
                    .hasMessageContaining(IcebergBackfillSourceBuilder.SNAPSHOT_TAG_OPTION);
        }
    }

    /** A version that is not a snapshot id fails naming the split and the version. */
    @Test
    void aHistoryVersionThatIsNoSnapshotIdFailsNamingTheSplit() throws Exception {
        Table table = IcebergTestTables.create(catalog, "db.t", Kind.KAFKA_CONNECT);
        appendRange(table, 0, 0, 10);
        try (OrderedTableReader reader = reader(Kind.KAFKA_CONNECT, 100)) {
            assertThatThrownBy(() -> reader.addSplit(TOPIC + "-0", 0, "snap-1"))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining(TOPIC + "-0")
                    .hasMessageContaining("'snap-1'");
        }
    }

    /**
     * A job restored in ordered mode from a checkpoint of the default mode, which holds the table's
     * history splits: the error names the split and the option.
     */
    @Test
    void aDefaultModeHistorySplitFailsNamingTheOrderedOption() throws Exception {
        Table table = IcebergTestTables.create(catalog, "db.t", Kind.KAFKA_CONNECT);
        appendRange(table, 0, 0, 10);
        table.refresh();
        String history =
                TableHistorySplit.id("db.t", table.currentSnapshot().snapshotId(), List.of(TOPIC));
        try (OrderedTableReader reader = reader(Kind.KAFKA_CONNECT, 100)) {
            assertThatThrownBy(() -> reader.addSplit(history, 0))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining(history)
                    .hasMessageContaining("ordered mode")
                    .hasMessageContaining("'backfill.iceberg.ordered'");
        }
    }
}
