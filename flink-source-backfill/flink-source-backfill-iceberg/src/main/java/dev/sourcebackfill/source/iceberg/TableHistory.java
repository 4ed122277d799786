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

import dev.sourcebackfill.source.kafka.KafkaSplitIds;

import org.apache.flink.annotation.Internal;

import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableScan;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Conversions;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.kafka.common.TopicPartition;

import javax.annotation.Nullable;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The history a table's pinned snapshot holds: its data files in a fixed order, each given the
 * positions {@code [start, start + records)} of one position space over the whole table, so that a
 * chunk of history is a run of files (a large file's cut where its row groups start) and a reader's
 * place is one number. Every reader plans the same snapshot the same way and gets the same files
 * and positions.
 *
 * <p>Files are ordered by what their column bounds say: first the files of one partition each, by
 * topic, partition and first offset; then the files mixing partitions, by first timestamp; the path
 * last ({@link #cuts} starts a chunk where the partition changes).
 */
@Internal
final class TableHistory {

    /**
     * A data file (with its delete files) at its positions.
     *
     * @param partition the one Kafka partition the file holds, as its column bounds say; {@code
     *     null} for a file whose rows are of several partitions (or whose bounds do not tell)
     * @param group the one Kafka partition the file's rows of the history's topics are of, as far
     *     as the bounds tell: {@code partition}, or, for a history of one topic whose topic bounds
     *     do not name it exactly (Iceberg truncates string bounds to 16 characters by default), the
     *     one partition the partition bounds name; {@code null} for a file mixing partitions. The
     *     order of the files, the parts and the cuts go by it.
     */
    record HistoryFile(
            FileScanTask task,
            long start,
            long records,
            @Nullable TopicPartition partition,
            @Nullable TopicPartition group) {
        long end() {
            return start + records;
        }
    }

    private final String table;
    private final long snapshotId;
    private final Schema schema;
    private final List<HistoryFile> files;
    private final long records;

    /** The Kafka columns' statistics of the snapshot's schema, as the plan used them. */
    private final Bounds bounds;

    private TableHistory(
            String table, long snapshotId, Schema schema, List<HistoryFile> files, Bounds bounds) {
        this.table = table;
        this.snapshotId = snapshotId;
        this.schema = schema;
        this.files = files;
        this.bounds = bounds;
        this.records = files.isEmpty() ? 0 : files.get(files.size() - 1).end();
    }

    /**
     * Plans the snapshot: its data files with the rows of {@code topics} (all files, without a
     * topic column), in the fixed order.
     *
     * @throws IllegalStateException naming the table and the snapshot if the table no longer has it
     */
    static TableHistory plan(
            Table table,
            String tableName,
            long snapshotId,
            IcebergLayout layout,
            Collection<String> topics) {
        return plan(table, tableName, snapshotId, layout, topics, null);
    }

    /**
     * As {@link #plan(Table, String, long, IcebergLayout, Collection)}, for a source that keeps the
     * snapshot with {@code tag} ({@code null}: none), which the error names.
     *
     * @throws IllegalStateException naming the table, the snapshot and the tag, or without one the
     *     option that sets it, if the table no longer has the snapshot
     */
    static TableHistory plan(
            Table table,
            String tableName,
            long snapshotId,
            IcebergLayout layout,
            Collection<String> topics,
            @Nullable SnapshotTag tag) {
        return plan(
                table, tableName, snapshotId, layout, topics, TableHistorySplit.Plan.CURRENT, tag);
    }

    /**
     * As {@link #plan(Table, String, long, IcebergLayout, Collection, SnapshotTag)}, with the files
     * {@code plan} takes: a restored split's history is planned as the enumerator cut it.
     */
    static TableHistory plan(
            Table table,
            String tableName,
            long snapshotId,
            IcebergLayout layout,
            Collection<String> topics,
            TableHistorySplit.Plan plan,
            @Nullable SnapshotTag tag) {
        Snapshot snapshot = table.snapshot(snapshotId);
        if (snapshot == null) {
            throw new IllegalStateException(
                    String.format(
                            "The history of this source is snapshot %d of Iceberg table %s, which the table no longer has (expired?). A job restored from a checkpoint reads the snapshot it started on; start the job without its state to read the table as it is now. %s",
                            snapshotId,
                            tableName,
                            tag == null
                                    ? "To keep the snapshot until the source is in forward mode, tag it: IcebergBackfillSourceBuilder.setSnapshotTag, in SQL the option '"
                                            + IcebergBackfillSourceBuilder.SNAPSHOT_TAG_OPTION
                                            + "'"
                                    : "The source kept it with "
                                            + tag
                                            + ": the tag's max age (counted from the snapshot's commit time) passed before forward mode, or the tag was removed"));
        }
        Schema schema =
                snapshot.schemaId() != null && table.schemas().containsKey(snapshot.schemaId())
                        ? table.schemas().get(snapshot.schemaId())
                        : table.schema();
        RowColumns.check(layout, schema, tableName, false);
        List<String> kafkaColumns = new ArrayList<>();
        kafkaColumns.add(layout.partitionColumn());
        kafkaColumns.add(layout.offsetColumn());
        kafkaColumns.add(layout.timestampColumn());
        layout.topicColumn().ifPresent(kafkaColumns::add);
        // the bounds of the Kafka columns only: a wide table's other statistics stay unread
        TableScan scan = table.newScan().useSnapshot(snapshotId).includeColumnStats(kafkaColumns);
        if (layout.topicColumn().isPresent()) {
            // the positions of a split's history depend on this filter: what it takes changes
            // only with a new plan code (see TableHistorySplit.Plan)
            String topicColumn = layout.topicColumn().get();
            Expression ofTopics = Expressions.in(topicColumn, topics.toArray());
            scan =
                    scan.filter(
                            plan == TableHistorySplit.Plan.TOPICS
                                    ? ofTopics
                                    // a row without a topic is read, and fails naming its file
                                    // and position, instead of being left out silently
                                    : Expressions.or(Expressions.isNull(topicColumn), ofTopics));
        }
        Bounds bounds = new Bounds(schema, layout);
        List<FileScanTask> tasks = new ArrayList<>();
        try (CloseableIterable<FileScanTask> planned = scan.planFiles()) {
            planned.forEach(tasks::add);
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "Planning snapshot " + snapshotId + " of Iceberg table " + tableName, e);
        }
        // files of one partition first, a partition's files in offset order; then the files
        // mixing partitions, in time order (their first timestamp): a chunk's rows go forward
        // in time as far as the files allow (see #cuts)
        String onlyTopic = topics.size() == 1 ? topics.iterator().next() : null;
        Map<FileScanTask, TopicPartition> singles = new HashMap<>();
        Map<FileScanTask, TopicPartition> partitions = new HashMap<>();
        for (FileScanTask task : tasks) {
            TopicPartition single = bounds.singlePartition(task.file(), onlyTopic);
            if (single != null) {
                singles.put(task, single);
            }
            // the plan that ordered files by their exact partition only keeps that order
            TopicPartition group =
                    plan == TableHistorySplit.Plan.TOPICS
                            ? single
                            : bounds.groupPartition(task.file(), onlyTopic);
            if (group != null) {
                partitions.put(task, group);
            }
        }
        tasks.sort(
                Comparator.comparing((FileScanTask task) -> partitions.containsKey(task) ? 0 : 1)
                        .thenComparing(
                                task ->
                                        partitions.containsKey(task)
                                                ? partitions.get(task).topic()
                                                : "")
                        .thenComparingInt(
                                task ->
                                        partitions.containsKey(task)
                                                ? partitions.get(task).partition()
                                                : 0)
                        .thenComparingLong(
                                task ->
                                        partitions.containsKey(task)
                                                ? bounds.lower(task.file(), bounds.offsetId)
                                                : bounds.lower(task.file(), bounds.timestampId))
                        .thenComparing(task -> task.file().location()));
        List<HistoryFile> files = new ArrayList<>(tasks.size());
        long start = 0;
        for (FileScanTask task : tasks) {
            long records = task.file().recordCount();
            files.add(
                    new HistoryFile(task, start, records, singles.get(task), partitions.get(task)));
            start += records;
        }
        return new TableHistory(tableName, snapshotId, schema, files, bounds);
    }

    String table() {
        return table;
    }

    long snapshotId() {
        return snapshotId;
    }

    Schema schema() {
        return schema;
    }

    List<HistoryFile> files() {
        return files;
    }

    /** Positions of the whole history: {@code [0, records)}. */
    long records() {
        return records;
    }

    /** The index of the file holding {@code position}; {@code files().size()} at the end. */
    int fileAt(long position) {
        int low = 0;
        int high = files.size() - 1;
        while (low <= high) {
            int mid = (low + high) >>> 1;
            HistoryFile file = files.get(mid);
            if (position < file.start()) {
                high = mid - 1;
            } else if (position >= file.end()) {
                low = mid + 1;
            } else {
                return mid;
            }
        }
        return low;
    }

    /**
     * The parts of the history, in order, each {@code [start, end)} of positions: the files of one
     * partition (a part per partition), then the files mixing partitions (one part). A part's rows
     * go forward in time as its files do, so that parts read side by side, each in offset order,
     * hold each other's event time back as partitions do (see {@link IcebergDiscoverer}).
     */
    List<long[]> parts() {
        List<long[]> parts = new ArrayList<>();
        HistoryFile previous = null;
        for (HistoryFile file : files) {
            if (file.records() == 0) {
                continue;
            }
            if (previous == null || !Objects.equals(previous.group(), file.group())) {
                parts.add(new long[] {file.start(), file.end()});
            } else {
                parts.get(parts.size() - 1)[1] = file.end();
            }
            previous = file;
        }
        return parts;
    }

    /** The end of the part holding {@code position}; the history's end past every part. */
    long partEndAt(long position) {
        for (long[] part : parts()) {
            if (position >= part[0] && position < part[1]) {
                return part[1];
            }
        }
        return records;
    }

    /**
     * Cuts the history {@code [from, to)} into runs of whole files: a cut at a file's start where
     * the run before it has {@code chunkSize} positions or more, and where the file holds another
     * partition than the file before it (files of one partition and files mixing partitions are
     * groups of their own): a chunk's rows then go forward in time, one partition's offsets in
     * order, and its split watermark holds nothing of another partition back.
     */
    List<Long> cuts(long from, long to, long chunkSize) {
        return cuts(from, to, chunkSize, file -> NO_ROW_GROUPS);
    }

    private static final long[] NO_ROW_GROUPS = new long[0];

    /** Where a data file's row groups start. */
    @FunctionalInterface
    interface RowGroups {
        /**
         * The first row of each of the file's row groups after the first, relative to the file,
         * increasing.
         */
        long[] firstRows(HistoryFile file);
    }

    /**
     * As {@link #cuts(long, long, long)}, and inside a file of more than {@code chunkSize} rows
     * also where one of its row groups starts ({@code rowGroups}, asked for those files only) and
     * the run before it has {@code chunkSize} positions or more: one large file is read by several
     * readers, each chunk from its row group on.
     */
    List<Long> cuts(long from, long to, long chunkSize, RowGroups rowGroups) {
        List<Long> cuts = new ArrayList<>();
        long runStart = from;
        HistoryFile previous = null;
        for (HistoryFile file : files) {
            long fileStart = file.start();
            boolean otherGroup =
                    previous != null && !Objects.equals(previous.group(), file.group());
            previous = file;
            if (fileStart >= to) {
                break;
            }
            if (fileStart > from && (fileStart - runStart >= chunkSize || otherGroup)) {
                cuts.add(fileStart);
                runStart = fileStart;
            }
            if (file.records() > chunkSize && file.end() > from) {
                for (long firstRow : rowGroups.firstRows(file)) {
                    long cut = fileStart + firstRow;
                    if (cut >= to || cut >= file.end()) {
                        break;
                    }
                    if (cut > from && cut - runStart >= chunkSize) {
                        cuts.add(cut);
                        runStart = cut;
                    }
                }
            }
        }
        return cuts;
    }

    /** The files with more than {@code chunkSize} rows. */
    List<HistoryFile> filesLargerThan(long chunkSize) {
        List<HistoryFile> large = new ArrayList<>();
        for (HistoryFile file : files) {
            if (file.records() > chunkSize) {
                large.add(file);
            }
        }
        return large;
    }

    /**
     * The highest offset each Kafka partition has in the snapshot, deleted rows included (a row the
     * table deleted is history the table dropped; the topic must not bring it back). A file whose
     * column bounds say it holds one partition is not read. Files mixing partitions are taken by
     * their highest offset, highest first, and read (their topic, partition and offset columns
     * only) unless their bounds show they cannot raise any partition's highest offset: every
     * partition they may hold already has one at least as high as the file's highest offset. Where
     * the partitions are at about the same offsets, that is the newest file or few; where they are
     * far apart, every file (a file's upper bound is its leading partition's).
     */
    Map<TopicPartition, Long> lastOffsets(
            RowColumns columns, Collection<String> topics, TableFiles io) throws IOException {
        Map<TopicPartition, Long> last = new HashMap<>();
        List<HistoryFile> mixed = new ArrayList<>();
        for (HistoryFile file : files) {
            DataFile data = file.task().file();
            if (data.recordCount() == 0) {
                continue;
            }
            TopicPartition single = file.partition();
            Long highest = bounds.upper(data, bounds.offsetId);
            if (single != null && highest != null) {
                last.merge(single, highest, Math::max);
            } else {
                mixed.add(file);
            }
        }
        // highest offset first; files without an offset bound first of all (always read)
        mixed.sort(
                Comparator.comparingLong(
                                (HistoryFile f) -> {
                                    Long upper = bounds.upper(f.task().file(), bounds.offsetId);
                                    return upper == null ? Long.MAX_VALUE : upper;
                                })
                        .reversed());
        for (HistoryFile file : mixed) {
            DataFile data = file.task().file();
            if (cannotRaise(data, topics, last)) {
                continue;
            }
            try (TableFiles.KafkaPositions rows =
                    io.readKafkaPositions(file.task(), schema, columns)) {
                readLastOffsets(rows, topics, last);
            } catch (IOException | RuntimeException e) {
                throw new IOException(
                        String.format(
                                "Reading the Kafka columns of data file %s of snapshot %d of Iceberg table %s (for each partition's highest offset) failed: %s",
                                data.location(), snapshotId, table, e.getMessage()),
                        e);
            }
        }
        return last;
    }

    /**
     * Whether the file's bounds show that none of its rows is above a partition's highest offset
     * known so far: each partition in its partition bounds, of its topic (or of every topic read,
     * where its topic bounds do not name one), has a highest offset at least the file's upper
     * offset bound.
     */
    private boolean cannotRaise(
            DataFile data, Collection<String> topics, Map<TopicPartition, Long> last) {
        Long highest = bounds.upper(data, bounds.offsetId);
        Long lowPartition = bounds.bound(data.lowerBounds(), bounds.partitionId);
        Long highPartition = bounds.upper(data, bounds.partitionId);
        if (highest == null
                || lowPartition == null
                || highPartition == null
                || lowPartition < 0
                || highPartition > Integer.MAX_VALUE
                || highPartition - lowPartition >= last.size()) {
            // no bounds, bounds no Kafka partition has (the read fails naming the value), or more
            // partitions than have a highest offset yet: some partition in them has none
            return false;
        }
        Collection<String> fileTopics = topics;
        String oneTopic = bounds.oneTopic(data);
        if (oneTopic != null) {
            if (!topics.contains(oneTopic)) {
                return true; // another topic's rows only
            }
            fileTopics = List.of(oneTopic);
        }
        for (String topic : fileTopics) {
            for (long p = lowPartition; p <= highPartition; p++) {
                Long known = last.get(new TopicPartition(topic, (int) p));
                if (known == null || known < highest) {
                    return false;
                }
            }
        }
        return true;
    }

    /**
     * Each partition's highest offset among {@code rows}, merged into {@code last}: per topic an
     * array indexed by partition, the row's offset plus one in it (0: none yet).
     */
    private static void readLastOffsets(
            TableFiles.KafkaPositions rows,
            Collection<String> topics,
            Map<TopicPartition, Long> last) {
        Map<String, long[]> ends = new HashMap<>();
        String lastTopic = null;
        long[] topicEnds = null;
        while (rows.next()) {
            String topic = rows.topic();
            if (!topic.equals(lastTopic)) {
                lastTopic = topic;
                topicEnds =
                        topics.contains(topic)
                                ? ends.computeIfAbsent(topic, t -> new long[16])
                                : null;
            }
            if (topicEnds == null) {
                continue; // another topic's row
            }
            int partition = rows.partition(); // checked: at least 0
            if (partition >= topicEnds.length) {
                topicEnds =
                        java.util.Arrays.copyOf(
                                topicEnds, Math.max(partition + 1, topicEnds.length * 2));
                ends.put(topic, topicEnds);
            }
            long end = rows.offset() + 1;
            if (end > topicEnds[partition]) {
                topicEnds[partition] = end;
            }
        }
        ends.forEach(
                (topic, partitionEnds) -> {
                    for (int p = 0; p < partitionEnds.length; p++) {
                        if (partitionEnds[p] > 0) {
                            last.merge(
                                    new TopicPartition(topic, p), partitionEnds[p] - 1, Math::max);
                        }
                    }
                });
    }

    /**
     * Whether the data file may hold rows of {@code partition}, as far as its column bounds tell: a
     * file of one partition holds that one only; a file mixing partitions may hold every partition
     * within its partition bounds, of the topic its topic bounds name (any topic where they name
     * none). A file without bounds may hold any partition.
     */
    boolean mayHold(HistoryFile file, TopicPartition partition) {
        if (file.partition() != null) {
            return file.partition().equals(partition);
        }
        DataFile data = file.task().file();
        Long low = bounds.bound(data.lowerBounds(), bounds.partitionId);
        Long high = bounds.upper(data, bounds.partitionId);
        if ((low != null && partition.partition() < low)
                || (high != null && partition.partition() > high)) {
            return false;
        }
        String oneTopic = bounds.oneTopic(data);
        return oneTopic == null || oneTopic.equals(partition.topic());
    }

    /** The file's lower bound of the offset column (every partition's), if it has one. */
    @Nullable
    Long lowerOffsetBound(HistoryFile file) {
        return bounds.bound(file.task().file().lowerBounds(), bounds.offsetId);
    }

    /** The file's upper bound of the offset column (every partition's), if it has one. */
    @Nullable
    Long upperOffsetBound(HistoryFile file) {
        return bounds.upper(file.task().file(), bounds.offsetId);
    }

    /**
     * An offset at or below the lowest offset {@code partition} has in the snapshot: the lowest
     * offset bound of the files that may hold it (0 where one of them has none). A bound, not the
     * lowest offset itself: a file mixing partitions bounds them all.
     */
    long lowestOffsetBound(TopicPartition partition) {
        long lowest = Long.MAX_VALUE;
        for (HistoryFile file : files) {
            if (file.records() == 0 || !mayHold(file, partition)) {
                continue;
            }
            Long lower = lowerOffsetBound(file);
            lowest = Math.min(lowest, lower == null ? 0 : Math.max(0, lower));
        }
        return lowest == Long.MAX_VALUE ? 0 : lowest;
    }

    /** The split id of a row's partition. */
    static String splitIdOf(String topic, int partition) {
        return KafkaSplitIds.of(new TopicPartition(topic, partition));
    }

    /** A string column's bound (Iceberg decodes it as a {@code CharBuffer}). */
    private static String topicOf(ByteBuffer bound) {
        CharSequence topic = Conversions.fromByteBuffer(Types.StringType.get(), bound);
        return topic.toString();
    }

    /** Column bounds of data files, from the manifests' statistics. */
    private static final class Bounds {
        final int partitionId;
        final int offsetId;
        final int timestampId;
        @Nullable final Integer topicId;
        final Type partitionType;
        final Type offsetType;
        final Type timestampType;

        Bounds(Schema schema, IcebergLayout layout) {
            partitionId = RowColumns.fieldId(schema, layout.partitionColumn());
            offsetId = RowColumns.fieldId(schema, layout.offsetColumn());
            timestampId = RowColumns.fieldId(schema, layout.timestampColumn());
            topicId = layout.topicColumn().map(c -> RowColumns.fieldId(schema, c)).orElse(null);
            partitionType = schema.findType(partitionId);
            offsetType = schema.findType(offsetId);
            timestampType = schema.findType(timestampId);
        }

        long lower(DataFile file, int fieldId) {
            Long value = bound(file.lowerBounds(), fieldId);
            return value == null ? Long.MIN_VALUE : value;
        }

        @Nullable
        Long upper(DataFile file, int fieldId) {
            return bound(file.upperBounds(), fieldId);
        }

        @Nullable
        Long bound(@Nullable Map<Integer, ByteBuffer> bounds, int fieldId) {
            if (bounds == null || !bounds.containsKey(fieldId)) {
                return null;
            }
            Type type = fieldId == partitionId ? partitionType : offsetType;
            if (fieldId == timestampId) {
                type = timestampType;
            }
            Object value = Conversions.fromByteBuffer(type, bounds.get(fieldId));
            // a timestamp's bound is its microseconds (or the long column's value)
            return value instanceof Number ? ((Number) value).longValue() : null;
        }

        /** The one topic the file holds, if a topic column's bounds say so. */
        @Nullable
        String oneTopic(DataFile file) {
            if (topicId == null || file.lowerBounds() == null || file.upperBounds() == null) {
                return null;
            }
            ByteBuffer lower = file.lowerBounds().get(topicId);
            ByteBuffer upper = file.upperBounds().get(topicId);
            if (lower == null || upper == null || !lower.equals(upper)) {
                return null; // several topics, or a truncated bound
            }
            return topicOf(lower);
        }

        /**
         * The one partition the file's rows of the history's topics are of, if the bounds say so:
         * {@link #singlePartition}, or with one topic read ({@code onlyTopic}) and a topic column
         * whose bounds do not name a topic exactly (truncated, or several topics), the one
         * partition the partition bounds name (the scan kept the file: its bounds admit the topic;
         * rows of other topics in it are not part of the history).
         */
        @Nullable
        TopicPartition groupPartition(DataFile file, @Nullable String onlyTopic) {
            TopicPartition single = singlePartition(file, onlyTopic);
            if (single != null || topicId == null || onlyTopic == null) {
                return single;
            }
            Long low = bound(file.lowerBounds(), partitionId);
            Long high = bound(file.upperBounds(), partitionId);
            if (low == null || !low.equals(high) || low < 0 || low > Integer.MAX_VALUE) {
                return null;
            }
            return new TopicPartition(onlyTopic, low.intValue());
        }

        /** The one partition the file holds, if its bounds say so. */
        @Nullable
        TopicPartition singlePartition(DataFile file, @Nullable String onlyTopic) {
            Long low = bound(file.lowerBounds(), partitionId);
            Long high = bound(file.upperBounds(), partitionId);
            if (low == null || !low.equals(high) || low < 0 || low > Integer.MAX_VALUE) {
                return null; // several partitions, or a value no partition has: read the rows
            }
            String topic = topicId == null ? onlyTopic : oneTopic(file);
            if (topic == null) {
                return null;
            }
            return new TopicPartition(topic, low.intValue());
        }
    }
}
