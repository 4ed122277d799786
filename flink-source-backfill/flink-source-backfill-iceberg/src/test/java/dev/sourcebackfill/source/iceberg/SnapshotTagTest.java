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

import dev.sourcebackfill.source.enumerator.BackfillEnumeratorState;
import dev.sourcebackfill.source.enumerator.BackfillSplitEnumerator;
import dev.sourcebackfill.source.event.SplitStatus;
import dev.sourcebackfill.source.event.SplitStatusReportEvent;
import dev.sourcebackfill.source.iceberg.IcebergTestTables.Kind;
import dev.sourcebackfill.source.spi.DiscoveredSplit;
import dev.sourcebackfill.source.spi.LogRecordCollector;
import dev.sourcebackfill.source.spi.LogSplitDiscoverer;
import dev.sourcebackfill.source.split.BackfillSplit;
import dev.sourcebackfill.source.split.HandoverState;
import dev.sourcebackfill.source.split.SplitKind;

import org.apache.flink.api.connector.source.ReaderInfo;
import org.apache.flink.api.connector.source.mocks.MockSplitEnumeratorContext;

import org.apache.iceberg.SnapshotRef;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.data.Record;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Issue 34, item 2: the tag that keeps the pinned snapshot from expiring, set at the first start,
 * removed once forward mode is confirmed (also by an enumerator restored from its state), and what
 * a writer's snapshot expiry does with and without it.
 */
class SnapshotTagTest {

    private static final String TOPIC = "orders";
    private static final String TAG = "orders-backfill";
    private static final Duration MAX_AGE = Duration.ofHours(6);

    @TempDir Path warehouse;
    private Map<String, String> properties;
    private Catalog catalog;

    @BeforeEach
    void openCatalog() {
        properties = IcebergTestTables.hadoopCatalog(warehouse);
        catalog = IcebergTestTables.open("local", properties);
    }

    /** The topic: partitions from offset 0 to their ends. */
    private static LogSplitDiscoverer topic(long... ends) {
        return initial -> {
            List<DiscoveredSplit> splits = new ArrayList<>();
            for (int p = 0; p < ends.length; p++) {
                splits.add(
                        initial
                                ? DiscoveredSplit.backfilled(TOPIC + "-" + p, 0, ends[p])
                                : DiscoveredSplit.readByLive(TOPIC + "-" + p, ends[p]));
            }
            return splits;
        };
    }

    private IcebergDiscoverer discoverer(SnapshotTag tag) {
        return discoverer(tag, false);
    }

    private IcebergDiscoverer discoverer(SnapshotTag tag, boolean ordered) {
        return new IcebergDiscoverer(
                topic(400, 300),
                new IcebergTableRef("local", properties, "db.t"),
                new RowColumns(Kind.KAFKA_CONNECT.layout, TOPIC),
                false,
                tag,
                ordered);
    }

    /** Partition 0's offsets [0, 250), partition 1's [0, 100), a commit per 100 rows. */
    private Table table() {
        Table table = IcebergTestTables.create(catalog, "db.t", Kind.KAFKA_CONNECT);
        append(table, 0, 0, 100);
        append(table, 0, 100, 200);
        append(table, 0, 200, 250);
        append(table, 1, 0, 100);
        table.refresh();
        return table;
    }

    private static void append(Table table, int partition, long from, long to) {
        List<Record> rows = new ArrayList<>();
        for (long o = from; o < to; o++) {
            rows.add(
                    IcebergTestTables.row(
                            Kind.KAFKA_CONNECT, table.schema(), TOPIC, partition, o, "v"));
        }
        IcebergTestTables.append(table, rows);
    }

    private Table reload() {
        return catalog.loadTable(org.apache.iceberg.catalog.TableIdentifier.parse("db.t"));
    }

    /** What a writer like AutoMQ does at each commit: every snapshot but the current expires. */
    private static void expireAllButTheCurrent(Table table) {
        table.refresh();
        table.expireSnapshots()
                .expireOlderThan(System.currentTimeMillis() + 1)
                .retainLast(1)
                .commit();
    }

    // ------------------------------------------------------------ the first start

    @Test
    void theFirstStartTagsThePinnedSnapshotWithTheMaxAge() throws Exception {
        long pinned = table().currentSnapshot().snapshotId();
        try (IcebergDiscoverer discoverer = discoverer(new SnapshotTag(TAG, MAX_AGE))) {
            List<DiscoveredSplit> splits = discoverer.discoverSplits(true);
            assertThat(TableHistorySplit.historyOf(splits.get(splits.size() - 1).splitId()))
                    .isEqualTo(TableHistorySplit.id("db.t", pinned, List.of(TOPIC)));
        }
        SnapshotRef tag = reload().refs().get(TAG);
        assertThat(tag).isNotNull();
        assertThat(tag.isTag()).isTrue();
        assertThat(tag.snapshotId()).isEqualTo(pinned);
        assertThat(tag.maxRefAgeMs()).isEqualTo(MAX_AGE.toMillis());
    }

    @Test
    void withoutTheOptionNoTagIsSet() throws Exception {
        table();
        try (IcebergDiscoverer discoverer = discoverer(null)) {
            discoverer.discoverSplits(true);
            discoverer.onForwardMode(1, Set.of(), Set.of());
        }
        assertThat(reload().refs().keySet()).containsExactly(SnapshotRef.MAIN_BRANCH);
    }

    @Test
    void aRetriedFirstStartKeepsTheTagOnTheSameSnapshot() throws Exception {
        long pinned = table().currentSnapshot().snapshotId();
        try (IcebergDiscoverer first = discoverer(new SnapshotTag(TAG, MAX_AGE))) {
            first.discoverSplits(true);
        }
        // the first attempt failed before its first checkpoint; the writer did not commit since
        try (IcebergDiscoverer retried = discoverer(new SnapshotTag(TAG, MAX_AGE))) {
            List<DiscoveredSplit> splits = retried.discoverSplits(true);
            assertThat(splits).as("two partitions, the history's two parts").hasSize(4);
        }
        assertThat(reload().refs().get(TAG).snapshotId()).isEqualTo(pinned);
    }

    /**
     * A retried first start after the writer committed pins the new snapshot: the tag left by the
     * failed attempt (no checkpoint holds its snapshot) moves there; failing would fail every
     * retry.
     */
    @Test
    void aRetriedFirstStartAfterACommitMovesTheTagToTheSnapshotItPins() throws Exception {
        Table table = table();
        long first = table.currentSnapshot().snapshotId();
        try (IcebergDiscoverer attempt = discoverer(new SnapshotTag(TAG, MAX_AGE))) {
            attempt.discoverSplits(true);
        }
        append(table, 0, 250, 300);
        table.refresh();
        long second = table.currentSnapshot().snapshotId();
        try (IcebergDiscoverer retried = discoverer(new SnapshotTag(TAG, MAX_AGE))) {
            List<DiscoveredSplit> splits = retried.discoverSplits(true);
            assertThat(splits.get(2).splitId()).contains("@" + second + "/");
        }
        assertThat(second).isNotEqualTo(first);
        assertThat(reload().refs().get(TAG).snapshotId()).isEqualTo(second);
        assertThat(reload().refs().get(TAG).maxRefAgeMs()).isEqualTo(MAX_AGE.toMillis());
    }

    @Test
    void aBranchOfTheTagsNameFailsNamingItAndTheTable() {
        Table table = table();
        table.manageSnapshots().createBranch(TAG, table.currentSnapshot().snapshotId()).commit();
        assertThatThrownBy(() -> discoverer(new SnapshotTag(TAG, MAX_AGE)).discoverSplits(true))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("Iceberg table db.t has a branch named '" + TAG + "'");
    }

    // ------------------------------------------------------------ forward mode

    /**
     * The enumerator, every split reported FINISHED, a completed checkpoint confirms forward mode:
     * the tag is gone.
     */
    @Test
    void theTagIsRemovedWhenForwardModeIsConfirmed() throws Throwable {
        long pinned = table().currentSnapshot().snapshotId();
        try (MockSplitEnumeratorContext<BackfillSplit> context =
                        new MockSplitEnumeratorContext<>(1);
                BackfillSplitEnumerator enumerator =
                        enumerator(context, new SnapshotTag(TAG, MAX_AGE), null)) {
            enumerator.start();
            context.runNextOneTimeCallable();
            context.registerReader(new ReaderInfo(0, "localhost"));
            enumerator.addReader(0);
            assertThat(reload().refs().get(TAG).snapshotId()).isEqualTo(pinned);

            confirmForwardMode(context, enumerator, 1);

            assertThat(reload().refs()).doesNotContainKey(TAG);
        }
    }

    /**
     * A job restored from a checkpoint taken before forward mode: the restored enumerator's
     * discoverer never pinned anything and does not tag again, but removes the tag of the pinned
     * snapshot in its state once forward mode is confirmed.
     */
    @Test
    void aRestoredEnumeratorDoesNotTagAgainAndRemovesTheTagOnForwardMode() throws Throwable {
        Table table = table();
        long pinned = table.currentSnapshot().snapshotId();
        BackfillEnumeratorState state;
        try (MockSplitEnumeratorContext<BackfillSplit> context =
                        new MockSplitEnumeratorContext<>(1);
                BackfillSplitEnumerator enumerator =
                        enumerator(context, new SnapshotTag(TAG, MAX_AGE), null)) {
            enumerator.start();
            context.runNextOneTimeCallable();
            context.registerReader(new ReaderInfo(0, "localhost"));
            enumerator.addReader(0);
            state = enumerator.snapshotState(1);
        }
        // the writer commits on; the tag removed by hand shows that the restore does not tag
        append(table, 1, 100, 150);
        table.manageSnapshots().removeTag(TAG).commit();

        try (MockSplitEnumeratorContext<BackfillSplit> context =
                        new MockSplitEnumeratorContext<>(1);
                BackfillSplitEnumerator restored =
                        enumerator(context, new SnapshotTag(TAG, MAX_AGE), state)) {
            restored.start();
            context.runNextOneTimeCallable();
            context.registerReader(new ReaderInfo(0, "localhost"));
            restored.addReader(0);
            assertThat(reload().refs()).as("not tagged by the restore").doesNotContainKey(TAG);

            // the tag as the first start left it
            reload().manageSnapshots()
                    .createTag(TAG, pinned)
                    .setMaxRefAgeMs(TAG, MAX_AGE.toMillis())
                    .commit();
            confirmForwardMode(context, restored, 3);

            assertThat(reload().refs()).doesNotContainKey(TAG);
        }
    }

    /**
     * Ordered mode: the partitions' splits carry the pinned snapshot as their history version (in
     * the enumerator's state), the first start tags it, and a restored enumerator, whose discoverer
     * planned nothing, finds it there and removes the tag once forward mode is confirmed.
     */
    @Test
    void orderedModeTagsThePinnedSnapshotAndARestoredEnumeratorRemovesTheTag() throws Throwable {
        Table table = table();
        long pinned = table.currentSnapshot().snapshotId();
        BackfillEnumeratorState state;
        try (MockSplitEnumeratorContext<BackfillSplit> context =
                        new MockSplitEnumeratorContext<>(1);
                BackfillSplitEnumerator enumerator =
                        enumerator(context, new SnapshotTag(TAG, MAX_AGE), null, true)) {
            enumerator.start();
            context.runNextOneTimeCallable();
            context.registerReader(new ReaderInfo(0, "localhost"));
            enumerator.addReader(0);
            assertThat(reload().refs().get(TAG).snapshotId()).isEqualTo(pinned);
            state = enumerator.snapshotState(1);
        }
        Map<String, Optional<String>> versions = new HashMap<>();
        for (BackfillEnumeratorState.SplitEntry entry : state.splits()) {
            versions.put(entry.split().splitId(), entry.split().historyVersion());
        }
        assertThat(versions)
                .as("no table history split in ordered mode; each partition with rows pinned")
                .containsOnly(
                        Map.entry(TOPIC + "-0", Optional.of(Long.toString(pinned))),
                        Map.entry(TOPIC + "-1", Optional.of(Long.toString(pinned))));
        append(table, 1, 100, 150);

        try (MockSplitEnumeratorContext<BackfillSplit> context =
                        new MockSplitEnumeratorContext<>(1);
                BackfillSplitEnumerator restored =
                        enumerator(context, new SnapshotTag(TAG, MAX_AGE), state, true)) {
            restored.start();
            context.runNextOneTimeCallable();
            context.registerReader(new ReaderInfo(0, "localhost"));
            restored.addReader(0);
            assertThat(reload().refs().get(TAG).snapshotId()).isEqualTo(pinned);

            confirmForwardMode(context, restored, 3);

            assertThat(reload().refs()).doesNotContainKey(TAG);
        }
    }

    /** A tag of the name on another snapshot is not this job's: it stays. */
    @Test
    void aTagOnAnotherSnapshotIsLeftAlone() throws Exception {
        Table table = table();
        long pinned = table.currentSnapshot().snapshotId();
        long other = table.snapshots().iterator().next().snapshotId();
        table.manageSnapshots().createTag(TAG, other).commit();
        try (IcebergDiscoverer discoverer = discoverer(new SnapshotTag(TAG, MAX_AGE))) {
            discoverer.onForwardMode(
                    3,
                    Set.of(TOPIC + "-0", TableHistorySplit.id("db.t", pinned, List.of(TOPIC))),
                    Set.of());
        }
        assertThat(reload().refs().get(TAG).snapshotId()).isEqualTo(other);
    }

    @Test
    void aTagAlreadyGoneIsFine() throws Exception {
        long pinned = table().currentSnapshot().snapshotId();
        try (IcebergDiscoverer discoverer = discoverer(new SnapshotTag(TAG, MAX_AGE))) {
            discoverer.onForwardMode(
                    3, Set.of(TableHistorySplit.id("db.t", pinned, List.of(TOPIC))), Set.of());
        }
        assertThat(reload().refs()).doesNotContainKey(TAG);
    }

    // ------------------------------------------------------------ the writer's expiry

    /**
     * With the tag, the writer's expiry (every snapshot but the current, after new commits and a
     * compaction that replaced the pinned snapshot's files) keeps the pinned snapshot and its
     * files: the history reads every row.
     */
    @Test
    void withTheTagTheWritersExpiryKeepsThePinnedSnapshotAndItsRows() throws Exception {
        Table table = table();
        long pinned = table.currentSnapshot().snapshotId();
        String split;
        try (IcebergDiscoverer discoverer = discoverer(new SnapshotTag(TAG, MAX_AGE))) {
            List<DiscoveredSplit> splits = discoverer.discoverSplits(true);
            // the whole history (its parts' history id): every row of the pinned snapshot
            split = TableHistorySplit.historyOf(splits.get(2).splitId());
        }
        append(table, 0, 250, 300);
        table.refresh();
        IcebergTestTables.compact(table);
        expireAllButTheCurrent(table);

        Table expired = reload();
        assertThat(expired.snapshot(pinned)).as("the pinned snapshot").isNotNull();
        assertThat(expired.snapshots()).hasSize(2);
        assertThat(readAll(split, new SnapshotTag(TAG, MAX_AGE))).isEqualTo(350);
    }

    /**
     * Without the tag, the same expiry takes the pinned snapshot, and the restored reader fails
     * naming the snapshot, the table and the option that prevents it.
     */
    @Test
    void withoutTheTagTheSameExpiryFailsTheRestoreNamingTheOption() throws Exception {
        Table table = table();
        long pinned = table.currentSnapshot().snapshotId();
        String split;
        try (IcebergDiscoverer discoverer = discoverer(null)) {
            split = discoverer.discoverSplits(true).get(2).splitId();
        }
        append(table, 0, 250, 300);
        table.refresh();
        IcebergTestTables.compact(table);
        expireAllButTheCurrent(table);

        assertThat(reload().snapshot(pinned)).isNull();
        assertThatThrownBy(() -> readAll(split, null))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("snapshot " + pinned + " of Iceberg table db.t")
                .hasMessageContaining("IcebergBackfillSourceBuilder.setSnapshotTag")
                .hasMessageContaining("'backfill.iceberg.snapshot-tag'");
    }

    /** With a tag whose max age passed, the error says so. */
    @Test
    void aTagWhoseMaxAgePassedIsNamedInTheError() throws Exception {
        Table table = table();
        long pinned = table.currentSnapshot().snapshotId();
        String split;
        SnapshotTag shortLived = new SnapshotTag(TAG, Duration.ofMillis(1));
        try (IcebergDiscoverer discoverer = discoverer(shortLived)) {
            split = discoverer.discoverSplits(true).get(2).splitId();
        }
        append(table, 0, 250, 300);
        // the tag's age counts from the snapshot's commit time
        long deadline = System.currentTimeMillis() + 2;
        while (System.currentTimeMillis() <= deadline) {
            Thread.onSpinWait();
        }
        expireAllButTheCurrent(table);

        assertThat(reload().snapshot(pinned)).isNull();
        assertThatThrownBy(() -> readAll(split, shortLived))
                .hasMessageContaining("snapshot " + pinned + " of Iceberg table db.t")
                .hasMessageContaining("snapshot tag '" + TAG + "' (max age PT0.001S)")
                .hasMessageContaining("max age");
    }

    // ------------------------------------------------------------ helpers

    private BackfillSplitEnumerator enumerator(
            MockSplitEnumeratorContext<BackfillSplit> context,
            SnapshotTag tag,
            BackfillEnumeratorState restored) {
        return enumerator(context, tag, restored, false);
    }

    private BackfillSplitEnumerator enumerator(
            MockSplitEnumeratorContext<BackfillSplit> context,
            SnapshotTag tag,
            BackfillEnumeratorState restored,
            boolean ordered) {
        return new BackfillSplitEnumerator(
                context,
                discoverer(tag, ordered),
                false,
                Duration.ZERO,
                OptionalLong.empty(),
                restored);
    }

    /**
     * Reader 0 reports every split of the enumerator's state (checkpoint {@code checkpointId})
     * finished, the table's history ended; checkpoint {@code checkpointId + 1}'s snapshot and
     * completion confirm forward mode, and the enumerator's worker runs the discoverer's hook.
     */
    private static void confirmForwardMode(
            MockSplitEnumeratorContext<BackfillSplit> context,
            BackfillSplitEnumerator enumerator,
            long checkpointId)
            throws Throwable {
        List<SplitStatus> statuses = new ArrayList<>();
        Set<String> ids = new HashSet<>();
        for (BackfillEnumeratorState.SplitEntry entry :
                enumerator.snapshotState(checkpointId).splits()) {
            BackfillSplit split = entry.split();
            ids.add(split.splitId());
            // a history split (the table's parts) ends BACKFILLING: it never goes live
            HandoverState ended =
                    split.kind() == SplitKind.HISTORY
                            ? HandoverState.BACKFILLING
                            : HandoverState.FINISHED;
            statuses.add(
                    split.stoppingOffset().isPresent()
                            ? new SplitStatus(
                                    split.splitId(),
                                    ended,
                                    split.stoppingOffset().getAsLong(),
                                    true)
                            : new SplitStatus(
                                    split.splitId(),
                                    HandoverState.FINISHED,
                                    split.nextOffset(),
                                    false));
        }
        assertThat(ids).contains(TOPIC + "-0", TOPIC + "-1");
        enumerator.handleSourceEvent(
                0, new SplitStatusReportEvent(100 + checkpointId, 1, statuses));
        enumerator.snapshotState(checkpointId + 1);
        enumerator.notifyCheckpointComplete(checkpointId + 1);
        assertThat(context.getOneTimeCallables()).as("the hook, queued").hasSize(1);
        context.runNextOneTimeCallable();
    }

    /** Reads the split to its end as a restored reader does; the rows read. */
    private long readAll(String split, SnapshotTag tag) throws Exception {
        List<Long> positions = new ArrayList<>();
        LogRecordCollector<TableRow> out =
                (splitId, offset, timestamp, record) -> positions.add(offset);
        try (IcebergTableReader reader =
                new IcebergTableReader(
                        new IcebergTableRef("local", properties, "db.t"),
                        new RowColumns(Kind.KAFKA_CONNECT.layout, TOPIC),
                        List.of(TOPIC),
                        100,
                        tag,
                        TableFiles.ValuesFrom.KAFKA_RECORDS)) {
            reader.addSplit(split, 0);
            for (int polls = 0; !reader.isEndOfSplit(split); polls++) {
                assertThat(polls).as("polls until the end").isLessThan(1_000);
                reader.poll(Duration.ofMillis(10), out);
            }
        }
        assertThat(positions).doesNotHaveDuplicates();
        return positions.size();
    }
}
