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
import dev.sourcebackfill.source.kafka.KafkaSplitIds;
import dev.sourcebackfill.source.spi.LogReader;
import dev.sourcebackfill.source.spi.LogRecordCollector;

import org.apache.flink.annotation.Internal;
import org.apache.flink.annotation.VisibleForTesting;

import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.annotation.Nullable;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.TreeSet;

/**
 * The backfill reader of ordered mode ({@link IcebergBackfillSourceBuilder#setOrdered}): each split
 * is a Kafka partition ({@code topic-partition}), whose rows it reads from the table in offset
 * order, offsets being the Kafka offsets the rows hold. Once the partition's last row is read its
 * position is the partition's highest offset in the table plus one (deleted rows included: the
 * table dropped them, the topic must not bring them back) and {@link #isEndOfSplit} says so: the
 * source then hands the partition over to the topic there, as the archive's reader does after its
 * last file.
 *
 * <p>The files a partition's rows are in are those whose column bounds may hold it: a file of one
 * partition gives its offset range by its bounds; a file mixing partitions is scanned once per
 * reader (its topic, partition, offset and position columns only, every row, deleted or not) for
 * each partition's lowest and highest offset in it. A partition's files are read in the order of
 * their lowest offset of it; files whose ranges of it overlap are read together, their rows merged
 * by offset. A file mixing partitions is read by each reader of a partition it holds, which skips
 * the other partitions' rows (and row groups whose statistics rule the partition out). Rows within
 * a file must be in offset order per partition, and an offset must be in one file only: either
 * fails naming the file(s).
 *
 * <p>The reader plans the snapshot the enumerator pinned at the job's first start, which each split
 * carries as its history version ({@link #addSplit(String, long, String)}), once per reader: a
 * restored split reads the rows it was first planned with, whatever the writer committed since (a
 * rewrite or a delete that drops rows does not make a gap the handover, pinned at the snapshot's
 * last row, would never cover). A snapshot the table no longer has fails naming it and the tag that
 * keeps it ({@link IcebergBackfillSourceBuilder#setSnapshotTag}). A split without a version (a
 * checkpoint of a release before versions) plans the table's current snapshot.
 */
@Internal
final class OrderedTableReader implements LogReader<TableRow> {

    private static final Logger LOG = LoggerFactory.getLogger(OrderedTableReader.class);

    private final IcebergTableRef tableRef;
    private final RowColumns columns;
    private final Set<String> sourceTopics;
    private final int maxRecordsPerPoll;

    /** The tag the source keeps the pinned snapshot with, for the error if it expired anyway. */
    @Nullable private final SnapshotTag snapshotTag;

    @Nullable private Catalog catalog;
    @Nullable private TableFiles files;
    @Nullable private TableHistory history;

    /** Offset ranges per partition of each file scanned (files mixing partitions), by location. */
    private final Map<String, Map<TopicPartition, long[]>> scanned = new HashMap<>();

    private final Map<String, PartitionRead> reads = new LinkedHashMap<>();

    private final Object idle = new Object();
    private boolean wokenUp;

    OrderedTableReader(
            IcebergTableRef tableRef,
            RowColumns columns,
            Collection<String> sourceTopics,
            int maxRecordsPerPoll,
            @Nullable SnapshotTag snapshotTag) {
        this.tableRef = tableRef;
        this.columns = columns;
        this.sourceTopics = new TreeSet<>(sourceTopics);
        this.maxRecordsPerPoll = maxRecordsPerPoll;
        this.snapshotTag = snapshotTag;
    }

    /** A file holding rows of a partition, with the partition's lowest and highest offset in it. */
    record Range(HistoryFile file, long first, long last) {}

    /** A split of a checkpoint without history versions: the table's current snapshot. */
    @Override
    public void addSplit(String splitId, long startOffset) throws IOException {
        addSplit(
                splitId,
                startOffset,
                TableHistorySplit.isTableHistory(splitId) ? null : history(null));
    }

    /** A split with the snapshot the enumerator pinned at the job's first start. */
    @Override
    public void addSplit(String splitId, long startOffset, String historyVersion)
            throws IOException {
        long snapshotId;
        try {
            snapshotId = Long.parseLong(historyVersion);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(
                    String.format(
                            "Split %s: its history version '%s' is not a snapshot id of Iceberg table %s",
                            splitId, historyVersion, tableRef.name()),
                    e);
        }
        TableHistory plan = history(snapshotId);
        if (plan.snapshotId() != snapshotId) {
            throw new IllegalStateException(
                    String.format(
                            "Split %s reads snapshot %d of Iceberg table %s, but this reader reads snapshot %d: the splits of one job read one snapshot",
                            splitId, snapshotId, tableRef.name(), plan.snapshotId()));
        }
        addSplit(splitId, startOffset, plan);
    }

    private void addSplit(String splitId, long startOffset, TableHistory plan) throws IOException {
        if (TableHistorySplit.isTableHistory(splitId)) {
            throw new IllegalStateException(
                    String.format(
                            "Split %s is the table's history as the default mode reads it, but this source is in ordered mode: restore the job without ordered mode (IcebergBackfillSourceBuilder.setOrdered, in SQL '%s'), or start it without its state",
                            splitId, IcebergBackfillSourceBuilder.ORDERED_OPTION));
        }
        TopicPartition partition = KafkaSplitIds.parse(splitId);
        List<Range> ranges = rangesOf(partition, plan);
        PartitionRead read = new PartitionRead(splitId, partition, ranges, startOffset);
        PartitionRead previous = reads.put(splitId, read);
        if (previous != null) {
            previous.close();
        }
        LOG.info(
                "Partition {} from snapshot {} of Iceberg table {}: {} data files in {} runs, from offset {}, its rows end at offset {}",
                splitId,
                history.snapshotId(),
                tableRef.name(),
                ranges.size(),
                read.groups.size(),
                startOffset,
                read.end);
    }

    /**
     * The snapshot this reader reads, planned once per reader: {@code snapshotId}, or the table's
     * current one if {@code null}.
     */
    private TableHistory history(@Nullable Long snapshotId) {
        if (history == null) {
            if (catalog == null) {
                catalog = tableRef.openCatalog();
            }
            Table table = tableRef.load(catalog);
            files = new TableFiles(table.io(), tableRef.name());
            long planned;
            if (snapshotId != null) {
                planned = snapshotId;
            } else {
                Snapshot snapshot = table.currentSnapshot();
                if (snapshot == null) {
                    throw new IllegalStateException(
                            String.format(
                                    "Iceberg table %s has no snapshot, but the source found rows in it at its first start: was the table replaced?",
                                    tableRef.name()));
                }
                planned = snapshot.snapshotId();
            }
            history =
                    TableHistory.plan(
                            table,
                            tableRef.name(),
                            planned,
                            columns.layout(),
                            sourceTopics,
                            snapshotTag);
            LOG.info(
                    "Snapshot {} of Iceberg table {} ({}): {} data files, {} rows, read in offset order per partition",
                    planned,
                    tableRef.name(),
                    snapshotId != null ? "pinned at the job's first start" : "its current one",
                    history.files().size(),
                    history.records());
        }
        return history;
    }

    /**
     * The files holding rows of {@code partition}, with its offsets in each, by lowest offset (then
     * highest, then path).
     */
    @VisibleForTesting
    List<Range> rangesOf(TopicPartition partition) throws IOException {
        return rangesOf(partition, history(null));
    }

    private List<Range> rangesOf(TopicPartition partition, TableHistory plan) throws IOException {
        List<Range> ranges = new ArrayList<>();
        for (HistoryFile file : plan.files()) {
            if (file.records() == 0 || !plan.mayHold(file, partition)) {
                continue;
            }
            long[] range = null;
            if (file.partition() != null) {
                Long lower = plan.lowerOffsetBound(file);
                Long upper = plan.upperOffsetBound(file);
                if (lower != null && upper != null) {
                    range = new long[] {lower, upper};
                }
            }
            if (range == null) {
                range = scan(file).get(partition);
            }
            if (range != null) {
                ranges.add(new Range(file, range[0], range[1]));
            }
        }
        ranges.sort(
                Comparator.comparingLong(Range::first)
                        .thenComparingLong(Range::last)
                        .thenComparing(range -> range.file().task().file().location()));
        return ranges;
    }

    /**
     * Each partition's lowest and highest offset in the file, every row counted (deleted ones too);
     * read once per reader and file.
     */
    private Map<TopicPartition, long[]> scan(HistoryFile file) throws IOException {
        String location = file.task().file().location();
        Map<TopicPartition, long[]> known = scanned.get(location);
        if (known != null) {
            return known;
        }
        Map<String, long[][]> byTopic = new HashMap<>();
        long rowPosition = -1;
        long lastPosition = -1;
        try (TableFiles.KafkaPositions rows =
                files.readKafkaPositions(file.task(), history.schema(), columns)) {
            while (true) {
                rowPosition = -1;
                if (!rows.next()) {
                    break;
                }
                rowPosition = rows.position();
                lastPosition = rowPosition;
                String topic = rows.topic();
                int partition = rows.partition();
                long offset = rows.offset();
                if (!sourceTopics.contains(topic)) {
                    continue;
                }
                long[][] ranges = byTopic.computeIfAbsent(topic, t -> new long[16][]);
                if (partition >= ranges.length) {
                    ranges = Arrays.copyOf(ranges, Math.max(partition + 1, ranges.length * 2));
                    byTopic.put(topic, ranges);
                }
                long[] range = ranges[partition];
                if (range == null) {
                    ranges[partition] = new long[] {offset, offset};
                } else {
                    range[0] = Math.min(range[0], offset);
                    range[1] = Math.max(range[1], offset);
                }
            }
        } catch (IOException | RuntimeException e) {
            throw new IOException(
                    String.format(
                            "Reading the Kafka columns of data file %s of snapshot %d of Iceberg table %s (for its partitions' offsets) failed at %s: %s",
                            location,
                            history.snapshotId(),
                            tableRef.name(),
                            rowPosition >= 0
                                    ? "the row at position " + rowPosition
                                    : (lastPosition >= 0
                                            ? "the row after position " + lastPosition
                                            : "its first row"),
                            e.getMessage()),
                    e);
        }
        Map<TopicPartition, long[]> found = new HashMap<>();
        byTopic.forEach(
                (topic, ranges) -> {
                    for (int p = 0; p < ranges.length; p++) {
                        if (ranges[p] != null) {
                            found.put(new TopicPartition(topic, p), ranges[p]);
                        }
                    }
                });
        scanned.put(location, found);
        return found;
    }

    @Override
    public void removeSplit(String splitId) throws IOException {
        PartitionRead read = reads.remove(splitId);
        if (read != null) {
            read.close();
        }
    }

    @Override
    public void poll(Duration maxWait, LogRecordCollector<TableRow> collector) throws IOException {
        int running = 0;
        for (PartitionRead read : reads.values()) {
            running += read.paused || read.ended() ? 0 : 1;
        }
        if (running == 0) {
            idle(maxWait);
            return;
        }
        int perSplit = Math.max(1, maxRecordsPerPoll / running);
        for (PartitionRead read : reads.values()) {
            if (!read.paused && !read.ended()) {
                read.read(perSplit, collector);
            }
        }
    }

    private void idle(Duration maxWait) {
        synchronized (idle) {
            if (!wokenUp) {
                try {
                    idle.wait(Math.max(1, maxWait.toMillis()));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            wokenUp = false;
        }
    }

    @Override
    public long position(String splitId) {
        return read(splitId).position;
    }

    /** The partition's lowest offset in the table (the start, where it has none). */
    @Override
    public long earliestOffset(String splitId) {
        PartitionRead read = read(splitId);
        return read.groups.isEmpty()
                ? read.position
                : Math.min(read.position, read.groups.get(0).get(0).first());
    }

    @Override
    public boolean isEndOfSplit(String splitId) {
        PartitionRead read = read(splitId);
        if (read.ended() && !read.endLogged) {
            read.endLogged = true;
            LOG.info(
                    "Partition {}: its rows in Iceberg table {} end at offset {}",
                    splitId,
                    tableRef.name(),
                    read.position);
        }
        return read.ended();
    }

    @Override
    public void pauseOrResumeSplits(Collection<String> toPause, Collection<String> toResume) {
        for (String splitId : toPause) {
            PartitionRead read = reads.get(splitId);
            if (read != null) {
                read.paused = true;
            }
        }
        for (String splitId : toResume) {
            PartitionRead read = reads.get(splitId);
            if (read != null) {
                read.paused = false;
            }
        }
    }

    private PartitionRead read(String splitId) {
        PartitionRead read = reads.get(splitId);
        if (read == null) {
            throw new IllegalStateException("Split " + splitId + " is not read by this reader");
        }
        return read;
    }

    @Override
    public void wakeUp() {
        synchronized (idle) {
            wokenUp = true;
            idle.notifyAll();
        }
    }

    @Override
    public void close() throws Exception {
        for (PartitionRead read : reads.values()) {
            read.close();
        }
        reads.clear();
        if (catalog != null) {
            IcebergTableRef.close(catalog);
            catalog = null;
        }
    }

    @VisibleForTesting
    int scannedFiles() {
        return scanned.size();
    }

    /** One partition's way through its files. */
    private final class PartitionRead {
        final String splitId;
        final TopicPartition partition;

        /** The partition's files in runs: the ranges of a run overlap, runs do not. */
        final List<List<Range>> groups = new ArrayList<>();

        /** The highest offset of each run plus one. */
        final List<Long> groupEnds = new ArrayList<>();

        /** The partition's highest offset in the snapshot plus one; the start if it has none. */
        final long end;

        /** Offsets below this are skipped: where the split was added. */
        final long skipBelow;

        long position;
        int groupIndex;
        boolean paused;
        boolean endLogged;
        @Nullable Merge merge;

        PartitionRead(String splitId, TopicPartition partition, List<Range> ranges, long start) {
            this.splitId = splitId;
            this.partition = partition;
            this.position = start;
            this.skipBelow = start;
            List<Range> group = null;
            long groupLast = Long.MIN_VALUE;
            for (Range range : ranges) {
                if (group == null || range.first() > groupLast) {
                    if (group != null) {
                        groupEnds.add(groupLast + 1);
                    }
                    group = new ArrayList<>();
                    groups.add(group);
                    groupLast = range.last();
                }
                group.add(range);
                groupLast = Math.max(groupLast, range.last());
            }
            if (group != null) {
                groupEnds.add(groupLast + 1);
            }
            this.end = groups.isEmpty() ? start : groupEnds.get(groupEnds.size() - 1);
            // runs wholly below the start are not opened
            while (groupIndex < groups.size() && groupEnds.get(groupIndex) <= start) {
                groupIndex++;
            }
        }

        boolean ended() {
            return groupIndex >= groups.size();
        }

        void read(int budget, LogRecordCollector<TableRow> collector) throws IOException {
            int delivered = 0;
            while (delivered < budget && !ended()) {
                if (merge == null) {
                    merge = new Merge(this, groups.get(groupIndex));
                }
                TableRow row = merge.next();
                if (row == null) {
                    merge.close();
                    merge = null;
                    // past deleted rows at the run's end
                    position = Math.max(position, groupEnds.get(groupIndex));
                    groupIndex++;
                    continue;
                }
                position = row.kafkaOffset() + 1;
                collector.collect(splitId, row.kafkaOffset(), row.timestamp(), row);
                delivered++;
            }
        }

        void close() throws IOException {
            if (merge != null) {
                merge.close();
                merge = null;
            }
        }
    }

    /** The rows of one run of files of a partition, merged by offset. */
    private final class Merge {
        private final PartitionRead read;
        private final List<FileRows> sources = new ArrayList<>();
        @Nullable private PriorityQueue<FileRows> queue;
        @Nullable private FileRows lastFrom;
        private long lastOffset = Long.MIN_VALUE;

        Merge(PartitionRead read, List<Range> group) {
            this.read = read;
            for (Range range : group) {
                sources.add(new FileRows(read, range.file()));
            }
        }

        /** The run's next row of the partition, or {@code null} at the run's end. */
        @Nullable
        TableRow next() throws IOException {
            if (queue == null) {
                queue =
                        new PriorityQueue<>(
                                Math.max(1, sources.size()),
                                Comparator.comparingLong(source -> source.head.kafkaOffset()));
                for (FileRows source : sources) {
                    source.open();
                    if (source.advance()) {
                        queue.add(source);
                    }
                }
            }
            FileRows top = queue.poll();
            if (top == null) {
                return null;
            }
            TableRow row = top.head;
            if (row.kafkaOffset() == lastOffset) {
                throw new IOException(
                        String.format(
                                "Iceberg table %s has offset %d of partition %s twice, in data files %s and %s (snapshot %d): an offset must be in one row only",
                                tableRef.name(),
                                lastOffset,
                                read.splitId,
                                lastFrom.location(),
                                top.location(),
                                history.snapshotId()));
            }
            lastOffset = row.kafkaOffset();
            lastFrom = top;
            if (top.advance()) {
                queue.add(top);
            }
            return row;
        }

        void close() throws IOException {
            for (FileRows source : sources) {
                source.close();
            }
        }
    }

    /** One file's rows of a partition, in offset order, from the partition's start on. */
    private final class FileRows {
        private final PartitionRead read;
        private final HistoryFile file;
        @Nullable private CloseableIterable<Record> open;
        @Nullable private Iterator<Record> rows;
        @Nullable TableRow head;
        private long previousOffset = Long.MIN_VALUE;
        private long lastPosition = -1;

        FileRows(PartitionRead read, HistoryFile file) {
            this.read = read;
            this.file = file;
        }

        String location() {
            return file.task().file().location();
        }

        void open() throws IOException {
            try {
                open = files.readRows(file.task(), history.schema(), rowGroupsOf(read));
                rows = open.iterator();
            } catch (RuntimeException e) {
                throw failure(-1, e);
            }
        }

        /** Moves to the file's next row of the partition; {@code false} (and closed) at its end. */
        boolean advance() throws IOException {
            long rowPosition = -1;
            try {
                while (rows.hasNext()) {
                    Record next = rows.next();
                    rowPosition = columns.position(next);
                    lastPosition = rowPosition;
                    String topic = columns.topic(next);
                    int partition = columns.partition(next);
                    if (partition != read.partition.partition()
                            || !topic.equals(read.partition.topic())) {
                        rowPosition = -1;
                        continue; // another partition's row
                    }
                    long offset = columns.offset(next);
                    if (offset <= previousOffset) {
                        throw new IllegalStateException(
                                String.format(
                                        "the rows of partition %s are not in offset order in it: offset %d follows offset %d",
                                        read.splitId, offset, previousOffset));
                    }
                    previousOffset = offset;
                    if (offset < read.skipBelow) {
                        rowPosition = -1;
                        continue; // below where the split was added: delivered before
                    }
                    head = TableRow.read(columns, next);
                    return true;
                }
            } catch (RuntimeException e) {
                throw failure(rowPosition, e);
            }
            head = null;
            close();
            return false;
        }

        private IOException failure(long rowPosition, Exception e) {
            return new IOException(
                    String.format(
                            "Reading data file %s of snapshot %d of Iceberg table %s (split %s, %s) failed: %s",
                            location(),
                            history.snapshotId(),
                            tableRef.name(),
                            read.splitId,
                            rowPosition >= 0
                                    ? "the row at position " + rowPosition
                                    : (lastPosition >= 0
                                            ? "after the row at position " + lastPosition
                                            : "from its first row"),
                            e.getMessage()),
                    e);
        }

        void close() throws IOException {
            rows = null;
            if (open != null) {
                CloseableIterable<Record> closing = open;
                open = null;
                closing.close();
            }
        }
    }

    /**
     * The row groups that may hold rows of the partition from its start on, by their statistics:
     * nulls kept (a row without a partition or an offset must fail its read, not vanish).
     */
    private Expression rowGroupsOf(PartitionRead read) {
        IcebergLayout layout = columns.layout();
        return Expressions.and(
                Expressions.or(
                        Expressions.isNull(layout.partitionColumn()),
                        Expressions.equal(layout.partitionColumn(), read.partition.partition())),
                Expressions.or(
                        Expressions.isNull(layout.offsetColumn()),
                        Expressions.greaterThanOrEqual(layout.offsetColumn(), read.skipBelow)));
    }
}
