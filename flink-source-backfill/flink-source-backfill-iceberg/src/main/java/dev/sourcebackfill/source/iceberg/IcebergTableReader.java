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
import dev.sourcebackfill.source.spi.LogReader;
import dev.sourcebackfill.source.spi.LogRecordCollector;

import org.apache.flink.annotation.Internal;
import org.apache.flink.annotation.VisibleForTesting;
import org.apache.flink.util.ExceptionUtils;

import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.annotation.Nullable;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads a table's history (the backfill reader of this adapter): for each split of it, the rows of
 * the pinned snapshot's data files from the split's position on, file after file, as Iceberg's
 * generic records, deletes applied. A row's offset is its position ({@link TableHistory}); rows
 * below the position a split was added at are read and dropped. The table is loaded, and each
 * snapshot planned, once per reader.
 */
@Internal
final class IcebergTableReader implements LogReader<TableRow> {

    private static final Logger LOG = LoggerFactory.getLogger(IcebergTableReader.class);

    private final IcebergTableRef tableRef;
    private final RowColumns columns;

    /** The source's topics: those of a split whose id names them by their digest. */
    private final List<String> sourceTopics;

    private final int maxRecordsPerPoll;

    /**
     * What the values are made of: where the live topic's deserializer makes them (no mapper),
     * files without deletes are read into the parts of the Kafka records it reads ({@link
     * TableRowReader}).
     */
    private final TableFiles.ValuesFrom valuesFrom;

    /** The tag the source keeps the pinned snapshot with, for the error if it expired anyway. */
    @Nullable private final SnapshotTag snapshotTag;

    @Nullable private Catalog catalog;
    @Nullable private Table table;
    @Nullable private TableFiles files;

    /**
     * The history of each split by the history's id (the parts of a history and their chunks share
     * it), planned once.
     */
    private final Map<String, TableHistory> plans = new HashMap<>();

    private final Map<String, Cursor> cursors = new LinkedHashMap<>();

    /** Polls so far: where the next poll starts among the splits that can read. */
    private int pollCount;

    private final Object idle = new Object();
    private boolean wokenUp;

    IcebergTableReader(
            IcebergTableRef tableRef,
            RowColumns columns,
            List<String> sourceTopics,
            int maxRecordsPerPoll) {
        this(tableRef, columns, sourceTopics, maxRecordsPerPoll, null, TableFiles.ValuesFrom.ROWS);
    }

    /**
     * @param valuesFrom what the values are made of: unless the rows (a mapper), rows are read
     *     without Iceberg's generic records where no deletes apply
     */
    IcebergTableReader(
            IcebergTableRef tableRef,
            RowColumns columns,
            List<String> sourceTopics,
            int maxRecordsPerPoll,
            @Nullable SnapshotTag snapshotTag,
            TableFiles.ValuesFrom valuesFrom) {
        this.tableRef = tableRef;
        this.valuesFrom = valuesFrom;
        this.columns = columns;
        this.sourceTopics = sourceTopics;
        this.maxRecordsPerPoll = maxRecordsPerPoll;
        this.snapshotTag = snapshotTag;
    }

    @Override
    public void addSplit(String splitId, long startOffset) throws IOException {
        TableHistory history = history(splitId);
        if (startOffset < 0 || startOffset > history.records()) {
            throw new IOException(
                    String.format(
                            "Split %s: position %d is outside the history of snapshot %d of Iceberg table %s, [0, %d)",
                            splitId,
                            startOffset,
                            history.snapshotId(),
                            tableRef.name(),
                            history.records()));
        }
        // a part of the history ends where the part does: its cursor does not read on into the
        // next part's files (rows its split would drop, the poll's budget spent on them)
        long end =
                TableHistorySplit.historyOf(splitId).equals(splitId)
                        ? history.records()
                        : history.partEndAt(startOffset);
        Cursor previous = cursors.put(splitId, new Cursor(splitId, history, startOffset, end));
        if (previous != null) {
            previous.close();
        }
    }

    /**
     * A partition's split with the pinned snapshot as its history version is ordered mode's: this
     * reader reads the default mode's history splits only.
     */
    @Override
    public void addSplit(String splitId, long startOffset, String historyVersion) {
        throw new IllegalStateException(
                String.format(
                        "Split %s reads its partition's rows of snapshot %s of Iceberg table %s in ordered mode, but this source is not in ordered mode: restore the job in ordered mode (IcebergBackfillSourceBuilder.setOrdered(true), in SQL '%s' = 'true'), or start it without its state",
                        splitId,
                        historyVersion,
                        tableRef.name(),
                        IcebergBackfillSourceBuilder.ORDERED_OPTION));
    }

    /** The split's history: its snapshot, planned for its topics (as the enumerator did). */
    private TableHistory history(String splitId) {
        String historyId = TableHistorySplit.historyOf(splitId);
        TableHistory plan = plans.get(historyId);
        if (plan == null) {
            if (catalog == null) {
                catalog = tableRef.openCatalog();
                table = tableRef.load(catalog);
                files = new TableFiles(table.io(), tableRef.name());
            }
            long snapshotId = TableHistorySplit.snapshotOf(splitId);
            plan =
                    TableHistory.plan(
                            table,
                            tableRef.name(),
                            snapshotId,
                            columns.layout(),
                            TableHistorySplit.topicsOf(splitId, sourceTopics),
                            TableHistorySplit.planOf(splitId),
                            snapshotTag);
            LOG.info(
                    "Snapshot {} of Iceberg table {} (split {}): {} data files, {} rows",
                    snapshotId,
                    tableRef.name(),
                    splitId,
                    plan.files().size(),
                    plan.records());
            plans.put(historyId, plan);
        }
        return plan;
    }

    @Override
    public void removeSplit(String splitId) throws IOException {
        Cursor cursor = cursors.remove(splitId);
        if (cursor != null) {
            cursor.close();
        }
    }

    /**
     * Reads up to a poll's rows, the splits that can read taking turns: each poll starts at the
     * split after the one the previous poll started at, so that splits read side by side (the parts
     * of a history) all go forward, each within a few polls, and none is left behind (its split
     * would then be taken for idle, and its rows be late, under a watermark strategy with
     * idleness).
     */
    @Override
    public void poll(Duration maxWait, LogRecordCollector<TableRow> collector) throws IOException {
        List<Cursor> readable = new ArrayList<>(cursors.size());
        for (Cursor cursor : cursors.values()) {
            if (!cursor.paused && !cursor.ended()) {
                readable.add(cursor);
            }
        }
        if (readable.isEmpty()) {
            idle(maxWait);
            return;
        }
        int first = Math.floorMod(pollCount++, readable.size());
        int budget = maxRecordsPerPoll;
        for (int i = 0; i < readable.size() && budget > 0; i++) {
            budget -= readable.get((first + i) % readable.size()).read(budget, collector);
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
        return cursor(splitId).position;
    }

    @Override
    public long earliestOffset(String splitId) {
        return 0; // the pinned snapshot keeps all of it
    }

    @Override
    public boolean isEndOfSplit(String splitId) {
        return cursor(splitId).ended();
    }

    @Override
    public void pauseOrResumeSplits(Collection<String> toPause, Collection<String> toResume) {
        for (String splitId : toPause) {
            Cursor cursor = cursors.get(splitId);
            if (cursor != null) {
                cursor.paused = true;
            }
        }
        for (String splitId : toResume) {
            Cursor cursor = cursors.get(splitId);
            if (cursor != null) {
                cursor.paused = false;
            }
        }
    }

    private Cursor cursor(String splitId) {
        Cursor cursor = cursors.get(splitId);
        if (cursor == null) {
            throw new IllegalStateException("Split " + splitId + " is not read by this reader");
        }
        return cursor;
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
        // every cursor's file closed (a file read holds native memory: its zstd context), the
        // catalog too, whatever fails (an error too); the first failure thrown, the others
        // suppressed in it
        Throwable failure = null;
        for (Cursor cursor : cursors.values()) {
            try {
                cursor.close();
            } catch (Throwable t) {
                failure = ExceptionUtils.firstOrSuppressed(t, failure);
            }
        }
        cursors.clear();
        if (catalog != null) {
            try {
                IcebergTableRef.close(catalog);
            } catch (Throwable t) {
                failure = ExceptionUtils.firstOrSuppressed(t, failure);
            }
        }
        if (failure != null) {
            ExceptionUtils.rethrowException(failure);
        }
    }

    @VisibleForTesting
    int plannedSnapshots() {
        return plans.size();
    }

    /** One split's place in the history: a file, and the position of the next row to deliver. */
    private final class Cursor {
        private final String splitId;
        private final TableHistory history;
        private int fileIndex;
        private long position;

        /** The position the split's rows end at: its part's end, or the history's. */
        private final long end;

        private boolean paused;
        @Nullable private TableFiles.FileRows rows;

        Cursor(String splitId, TableHistory history, long position, long end) {
            this.splitId = splitId;
            this.history = history;
            this.position = position;
            this.end = end;
            this.fileIndex = history.fileAt(position);
        }

        boolean ended() {
            return fileIndex >= history.files().size() || position >= end;
        }

        /** Delivers up to {@code budget} rows; returns how many it delivered. */
        int read(int budget, LogRecordCollector<TableRow> collector) throws IOException {
            int delivered = 0;
            while (delivered < budget && !ended()) {
                HistoryFile file = history.files().get(fileIndex);
                TableRow row;
                long offset = -1; // the row's position, once known
                try {
                    if (rows == null) {
                        // from the row group holding the split's position (after a restore, or
                        // a chunk starting inside the file), where the file's reader can
                        rows =
                                files.readTableRows(
                                        file.task(),
                                        history.schema(),
                                        columns,
                                        valuesFrom,
                                        Math.max(0, position - file.start()));
                    }
                    if (!rows.hasNext()) {
                        close();
                        fileIndex++;
                        position = file.end(); // past deleted rows at the file's end
                        continue;
                    }
                    offset = file.start() + rows.next();
                    if (offset < position) {
                        continue; // below where the split was added: delivered before
                    }
                    row = rows.row();
                } catch (IOException | RuntimeException e) {
                    throw new IOException(
                            String.format(
                                    "Reading data file %s of snapshot %d of Iceberg table %s (split %s, %s) failed: %s",
                                    file.task().file().location(),
                                    history.snapshotId(),
                                    tableRef.name(),
                                    splitId,
                                    offset < 0
                                            ? "from position " + position
                                            : "the row at position " + offset,
                                    e.getMessage()),
                            e);
                }
                position = offset + 1;
                collector.collect(splitId, offset, row.timestamp(), row);
                delivered++;
            }
            return delivered;
        }

        void close() throws IOException {
            if (rows != null) {
                TableFiles.FileRows closing = rows;
                rows = null;
                closing.close();
            }
        }
    }
}
