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

import dev.sourcebackfill.source.iceberg.TableHistory.HistoryFile;
import dev.sourcebackfill.source.kafka.HistoryBeforeKafkaDiscoverer;
import dev.sourcebackfill.source.kafka.KafkaSplitIds;
import dev.sourcebackfill.source.spi.DiscoveredSplit;
import dev.sourcebackfill.source.spi.LogSplitDiscoverer;

import org.apache.flink.annotation.Internal;

import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.util.Tasks;
import org.apache.iceberg.util.ThreadPools;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.annotation.Nullable;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The topic's partitions, each read by the live reader from the first offset after the rows the
 * table has of it, and the table's history as a split of its own, read in chunks (runs of files, a
 * file larger than a chunk cut where its row groups start).
 *
 * <p>At the job's first discovery the table's current snapshot is pinned: its history, {@code
 * iceberg:<table>@<snapshot>/<topics>;plan=<code>} ({@link TableHistorySplit}), is read as one
 * split per {@linkplain TableHistory#parts() part} (the files of one partition; the files mixing
 * partitions), each bounded at its part's end and cut into chunks. The parts are read side by side
 * as a topic's partitions are, each oldest chunk first: a part's rows go forward in time, so a
 * chunk waiting for its turn is never older than what its part's reader has emitted, also when a
 * watermark strategy with idleness takes waiting chunks for idle (a single split of the whole
 * history went back in time at each partition's files, and such chunks' rows were late). A
 * partition with rows in the snapshot goes live at its highest offset there plus one; a partition
 * without rows where the live topic's starting offsets say. Partitions found later come from the
 * topic alone.
 *
 * <p>With a {@link SnapshotTag}, the pinned snapshot is tagged at the first discovery, once it is
 * planned and has rows to read, and the tag is removed in {@link #onForwardMode}. That works the
 * same in an enumerator restored from a checkpoint, whose discoverer planned nothing: the snapshot
 * to release is the one in the id of the table history split among the split ids the enumerator
 * passes (those of its state), and the tag's name comes from the builder. The tag is removed only
 * if it still points at that snapshot.
 *
 * <p>In ordered mode there is no history split: a partition with rows in the snapshot is backfilled
 * from the table ({@link OrderedTableReader}) and handed over to the topic after its rows there.
 * Its split carries the pinned snapshot as its history version, kept in the checkpoints: a restored
 * reader reads that snapshot, and the tag to release is found there; the rest is the same.
 */
@Internal
final class IcebergDiscoverer extends HistoryBeforeKafkaDiscoverer {

    private static final Logger LOG = LoggerFactory.getLogger(IcebergDiscoverer.class);

    private final IcebergTableRef tableRef;
    private final RowColumns columns;

    /** Whether the topic's deserializer makes the values of the layout's value column. */
    private final boolean valuesFromValueColumn;

    /** The tag that keeps the pinned snapshot until forward mode; {@code null}: none. */
    @Nullable private final SnapshotTag tag;

    /** Ordered mode: partitions with rows are backfilled from the table, no history split. */
    private final boolean ordered;

    /** The pinned snapshot's history, as the first discovery planned it; cut into chunks. */
    @Nullable private TableHistory planned;

    /**
     * The row groups of the planned history's files larger than a chunk of {@link
     * #rowGroupsChunkSize} rows, read at the first cut.
     */
    @Nullable private Map<HistoryFile, long[]> rowGroups;

    private long rowGroupsChunkSize;

    /** Whether this discoverer has released the tag (removed, or found gone or elsewhere). */
    private boolean tagReleased;

    IcebergDiscoverer(
            LogSplitDiscoverer live,
            IcebergTableRef tableRef,
            RowColumns columns,
            boolean valuesFromValueColumn) {
        this(live, tableRef, columns, valuesFromValueColumn, null, false);
    }

    /**
     * @param tag the tag to keep the pinned snapshot with until forward mode; {@code null}: none
     * @param ordered ordered mode: each partition with rows in the snapshot is backfilled from the
     *     table by its own split
     */
    IcebergDiscoverer(
            LogSplitDiscoverer live,
            IcebergTableRef tableRef,
            RowColumns columns,
            boolean valuesFromValueColumn,
            @Nullable SnapshotTag tag,
            boolean ordered) {
        super(live);
        this.tableRef = tableRef;
        this.columns = columns;
        this.valuesFromValueColumn = valuesFromValueColumn;
        this.tag = tag;
        this.ordered = ordered;
    }

    @Override
    protected String historyName() {
        return "Iceberg table " + tableRef.name();
    }

    @Override
    protected List<DiscoveredSplit> discoverWithHistory() throws Exception {
        Map<TopicPartition, Long> lastOffsets;
        List<DiscoveredSplit> liveSplits;
        Set<String> topics = new TreeSet<>();
        Map<String, DiscoveredSplit> byId = new HashMap<>();
        Catalog catalog = tableRef.openCatalog();
        try {
            Table table = tableRef.load(catalog);
            // pinned before the topic's end offsets are looked up: a writer's commit in between
            // adds rows below the ends, never above them
            Snapshot snapshot = table.currentSnapshot();
            liveSplits = liveTopics.discoverSplits(true);
            for (DiscoveredSplit split : liveSplits) {
                topics.add(KafkaSplitIds.parse(split.splitId()).topic());
                byId.put(split.splitId(), split);
            }
            if (columns.topicColumn().isEmpty() && topics.size() > 1) {
                throw new IllegalArgumentException(
                        String.format(
                                "The source reads topics %s, but the layout of Iceberg table %s has no topic column: set one (IcebergLayout.withTopicColumn)",
                                topics, tableRef.name()));
            }
            if (snapshot == null) {
                LOG.info(
                        "Iceberg table {} has no snapshot yet: every partition is read from the topic",
                        tableRef.name());
                return fromTopicAlone(liveSplits);
            }
            if (valuesFromValueColumn) {
                RowColumns.check(columns.layout(), table.schema(), tableRef.name(), true);
            }
            planned =
                    TableHistory.plan(
                            table,
                            tableRef.name(),
                            snapshot.snapshotId(),
                            columns.layout(),
                            topics);
            rowGroups = null; // of this plan's files, read at the first cut
            if (tag != null && planned.records() > 0) {
                // before any file is read: the snapshot was current a moment ago, and a job
                // failing from here on keeps it until the tag's max age
                tag.protect(table, tableRef.name(), snapshot.snapshotId());
            }
            lastOffsets =
                    planned.lastOffsets(
                            columns, topics, new TableFiles(table.io(), tableRef.name()));
            LOG.info(
                    "Iceberg table {}: snapshot {} pinned, {} data files, {} rows, rows of {} partitions",
                    tableRef.name(),
                    snapshot.snapshotId(),
                    planned.files().size(),
                    planned.records(),
                    lastOffsets.size());
        } finally {
            IcebergTableRef.close(catalog);
        }
        for (TopicPartition partition : lastOffsets.keySet()) {
            if (!byId.containsKey(KafkaSplitIds.of(partition))) {
                throw noLiveReader(partition.toString(), "");
            }
        }
        List<DiscoveredSplit> splits = new ArrayList<>(liveSplits.size() + 1);
        for (DiscoveredSplit split : liveSplits) {
            Long last = lastOffsets.get(KafkaSplitIds.parse(split.splitId()));
            if (last == null) {
                LOG.info(
                        "Partition {} has no rows in Iceberg table {}: it is read from offset {} of the topic",
                        split.splitId(),
                        tableRef.name(),
                        split.backfillStartOffset());
                splits.add(fromTopic(split, split.backfillStartOffset()));
                continue;
            }
            long liveStart = last + 1;
            // the topic's own end, not the live end (a starting offset beyond the end raises it)
            long topicEnd = split.logEndOffset().orElse(split.liveEndOffset());
            if (liveStart > topicEnd) {
                throw anotherIncarnation(split.splitId(), last, topicEnd, "");
            }
            LOG.info(
                    "Partition {}: rows up to offset {} in Iceberg table {}; the topic is read from offset {} (its end is {} now)",
                    split.splitId(),
                    last,
                    tableRef.name(),
                    liveStart,
                    topicEnd);
            if (ordered) {
                splits.add(fromTable(split, last));
                continue;
            }
            // its history is the table's: its position is committed once that was read
            splits.add(fromTopic(split, liveStart).withHistoryElsewhere());
        }
        if (!ordered && planned.records() > 0) {
            String id = TableHistorySplit.id(tableRef.name(), planned.snapshotId(), topics);
            List<long[]> parts = planned.parts();
            for (int index = 0; index < parts.size(); index++) {
                long[] part = parts.get(index);
                splits.add(
                        DiscoveredSplit.historyOnly(
                                TableHistorySplit.partId(id, index), part[0], part[1]));
            }
            LOG.info(
                    "Iceberg table {}: its history is read as {} splits, one per partition's files and one for the files mixing partitions",
                    tableRef.name(),
                    parts.size());
        }
        return splits;
    }

    private List<DiscoveredSplit> fromTopicAlone(List<DiscoveredSplit> liveSplits) {
        List<DiscoveredSplit> splits = new ArrayList<>(liveSplits.size());
        for (DiscoveredSplit split : liveSplits) {
            splits.add(fromTopic(split, split.backfillStartOffset()));
        }
        return splits;
    }

    /**
     * The partition read by the live reader alone, from {@code start}, to its stop if it has one.
     */
    private DiscoveredSplit fromTopic(DiscoveredSplit split, long start) {
        DiscoveredSplit fromTopic = DiscoveredSplit.readByLive(split.splitId(), start);
        if (split.stoppingOffset().isPresent()) {
            long stop = split.stoppingOffset().getAsLong();
            if (stop < start) {
                throw new IllegalStateException(
                        String.format(
                                "Partition %s stops at offset %d, but Iceberg table %s has its rows up to offset %d: a stopping offset inside the table's history is not supported",
                                split.splitId(), stop, tableRef.name(), start - 1));
            }
            fromTopic = fromTopic.withStoppingOffset(stop);
        }
        return fromTopic;
    }

    /**
     * Ordered mode: the partition backfilled from the table, from an offset at or below its first
     * row there (the files' lowest offset bound), up to the topic's end at discovery; its reader
     * ends after the partition's last row in the table, where the topic takes over.
     */
    private DiscoveredSplit fromTable(DiscoveredSplit split, long last) {
        long start =
                Math.min(last, planned.lowestOffsetBound(KafkaSplitIds.parse(split.splitId())));
        DiscoveredSplit fromTable =
                DiscoveredSplit.backfilled(
                        split.splitId(), start, Math.max(split.liveEndOffset(), last + 1));
        if (split.stoppingOffset().isPresent()) {
            long stop = split.stoppingOffset().getAsLong();
            if (stop <= last) {
                throw new IllegalStateException(
                        String.format(
                                "Partition %s stops at offset %d, but Iceberg table %s has its rows up to offset %d: a stopping offset inside the table's history is not supported",
                                split.splitId(), stop, tableRef.name(), last));
            }
            fromTable = fromTable.withStoppingOffset(stop);
        }
        // a restored split reads the rows of the snapshot pinned here, not the current one
        return fromTable.withHistoryVersion(Long.toString(planned.snapshotId()));
    }

    /**
     * Runs of the pinned snapshot's files, each at least {@code chunkSize} rows, a file of more
     * rows than that cut where its row groups start ({@link TableHistory#cuts(long, long, long,
     * TableHistory.RowGroups)}): at the first call, the footers of every such file of the history
     * are read, side by side in Iceberg's worker pool, with one catalog opened; the parts of the
     * history asked for after it use them.
     */
    @Override
    public List<Long> cutHistory(DiscoveredSplit split, long from, long to, long chunkSize)
            throws IOException {
        if (planned == null || !TableHistorySplit.isTableHistory(split.splitId())) {
            return List.of();
        }
        if (rowGroups == null || rowGroupsChunkSize != chunkSize) {
            rowGroups = readRowGroups(planned.filesLargerThan(chunkSize));
            rowGroupsChunkSize = chunkSize;
        }
        Map<HistoryFile, long[]> firstRows = rowGroups;
        List<Long> cuts = planned.cuts(from, to, chunkSize, firstRows::get);
        LOG.info(
                "Iceberg table {}: history [{}, {}) of split {} cut into {} chunks of at least {} rows ({} data files of more rows in the history, cut where their row groups start)",
                tableRef.name(),
                from,
                to,
                split.splitId(),
                cuts.size() + 1,
                chunkSize,
                firstRows.size());
        return cuts;
    }

    /** The first row of each row group but the first of each of {@code files}, by its footer. */
    private Map<HistoryFile, long[]> readRowGroups(List<HistoryFile> files) throws IOException {
        Map<HistoryFile, long[]> firstRows = new ConcurrentHashMap<>();
        if (files.isEmpty()) {
            return firstRows;
        }
        long started = System.nanoTime();
        Catalog catalog = tableRef.openCatalog();
        try {
            TableFiles io = new TableFiles(tableRef.load(catalog).io(), tableRef.name());
            Tasks.foreach(files)
                    .executeWith(ThreadPools.getWorkerPool())
                    .stopOnFailure()
                    .throwFailureWhenFinished()
                    .run(file -> firstRows.put(file, io.rowGroupFirstRows(file.task())));
        } finally {
            IcebergTableRef.close(catalog);
        }
        LOG.info(
                "Iceberg table {}: the footers of {} data files larger than a chunk read in {} ms",
                tableRef.name(),
                files.size(),
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
        return firstRows;
    }

    /**
     * Removes the tag from the pinned snapshot: the snapshot in the id of the table history split
     * among {@code splitIds} (the enumerator's state), so also after a restore, or in ordered mode
     * the partitions' history version. Once per discoverer: a later confirmation (after a failover)
     * does not ask the catalog again.
     */
    @Override
    public void onForwardMode(long checkpointId, Set<String> splitIds, Set<String> historyVersions)
            throws Exception {
        try {
            releaseTag(splitIds, historyVersions);
        } finally {
            super.onForwardMode(checkpointId, splitIds, historyVersions);
        }
    }

    private void releaseTag(Set<String> splitIds, Set<String> historyVersions) throws Exception {
        if (tag == null || tagReleased) {
            return;
        }
        // the parts of a history name its snapshot each; in ordered mode the partitions' splits
        // carry it as their history version
        Set<Long> pinned = new TreeSet<>();
        for (String splitId : splitIds) {
            if (TableHistorySplit.isTableHistory(splitId)) {
                pinned.add(TableHistorySplit.snapshotOf(splitId));
            }
        }
        for (String version : historyVersions) {
            pinned.add(Long.parseLong(version));
        }
        if (pinned.isEmpty()) {
            // no history was read from the table: nothing was tagged
            tagReleased = true;
            return;
        }
        Catalog catalog = tableRef.openCatalog();
        try {
            Table table = tableRef.load(catalog);
            for (long snapshotId : pinned) {
                tag.release(table, tableRef.name(), snapshotId);
            }
        } finally {
            IcebergTableRef.close(catalog);
        }
        tagReleased = true;
    }
}
