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
package dev.sourcebackfill.source.archive;

import dev.sourcebackfill.source.spi.LogReader;
import dev.sourcebackfill.source.spi.LogRecordCollector;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.eventtime.TimestampAssigner;
import org.apache.flink.api.common.io.InputStreamFSInputWrapper;
import org.apache.flink.api.common.io.compression.InflaterInputStreamFactory;
import org.apache.flink.connector.file.src.compression.StandardDeCompressors;
import org.apache.flink.core.fs.FSDataInputStream;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;
import org.apache.flink.metrics.Counter;
import org.apache.flink.util.function.SerializableFunction;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.annotation.Nullable;

import java.io.IOException;
import java.time.Duration;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The backfill reader of an archive: reads each split's files in offset order, from the file that
 * holds the split's next offset. A record's offset is the file's start offset plus the record's
 * place in the file, or, if the user names one, the offset the record itself holds. A split's
 * archive has ended when its last file is read and a new listing finds no later file; files that
 * appeared until then are read first.
 *
 * <p>What it delivers depends on the format: the bytes of each line, with the file that holds it
 * ({@link ArchivedLine}), for a lines format whose offsets are counted (the values are made in the
 * source's task thread); the values the format reads otherwise (a {@code StreamFormat} reads
 * values, and offsets taken from the records need the values here).
 *
 * @param <R> what the format reads of each record: a line's bytes, or a value
 * @param <D> what the reader delivers of each record
 */
@Internal
final class ArchiveReader<R, D> implements LogReader<D> {

    private static final Logger LOG = LoggerFactory.getLogger(ArchiveReader.class);
    private static final long IDLE_PAUSE_MILLIS = 5;

    /** Archive records skipped because they could not be read (a counter in {@code backfill}). */
    static final String SKIPPED_ARCHIVE_RECORDS = "skippedArchiveRecords";

    /** Listings of the archive this reader made (a counter in {@code backfill}). */
    static final String ARCHIVE_LISTINGS = "archiveListings";

    private final Path root;
    private final ArchiveLayout layout;
    private final RecordOpener<R> format;
    @Nullable private final SerializableFunction<R, Long> recordOffset;
    private final int maxRecordsPerPoll;
    private final boolean skipUnreadableRecords;
    private final Delivery<R, D> delivery;

    /** Counts the records the format could not read; {@code null} if it reads no record itself. */
    @Nullable private final Counter skippedRecords;

    private final Counter listings;
    private final Map<String, SplitRead> reads = new LinkedHashMap<>();

    /** The archive's files by split, as listed last; {@code null} before the first listing. */
    @Nullable private Map<String, List<ArchiveListing.Entry>> listing;

    /**
     * What the listing was made for: the splits added one after the other, or the end checks after
     * one poll, share one listing; {@code null} once a poll began (the next need lists again).
     */
    @Nullable private ListingNeed listedFor;

    /** Why the archive is listed: each run of one of these calls between two polls shares one. */
    private enum ListingNeed {
        ADD_SPLITS,
        END_CHECKS
    }

    /** Opens a file's records: {@link ArchiveFormat#open}, or the lines of a lines format. */
    @FunctionalInterface
    interface RecordOpener<R> {
        ArchiveFormat.RecordReader<R> open(FSDataInputStream stream, long length)
                throws IOException;
    }

    /** What the reader delivers of a record the format read, at its place in the archive. */
    @FunctionalInterface
    interface Delivery<R, D> {
        D deliver(R record, ArchiveListing.Entry file, long offset);
    }

    /**
     * @param recordOffset takes a record's offset from what the format read; {@code null} to count
     *     them from each file's start offset
     * @param skippedRecords counts the records the format read past but could not make, if the
     *     source is told to skip them; {@code null} for a format that never fails on a record (the
     *     lines as bytes)
     */
    ArchiveReader(
            Path root,
            ArchiveLayout layout,
            RecordOpener<R> format,
            @Nullable SerializableFunction<R, Long> recordOffset,
            int maxRecordsPerPoll,
            boolean skipUnreadableRecords,
            Delivery<R, D> delivery,
            @Nullable Counter skippedRecords,
            Counter listings) {
        this.listings = listings;
        this.skipUnreadableRecords = skipUnreadableRecords;
        this.delivery = delivery;
        this.skippedRecords = skippedRecords;
        this.root = root;
        this.layout = layout;
        this.format = format;
        this.recordOffset = recordOffset;
        this.maxRecordsPerPoll = maxRecordsPerPoll;
    }

    @Override
    public void addSplit(String splitId, long startOffset) throws IOException {
        listFor(ListingNeed.ADD_SPLITS);
        SplitRead read = new SplitRead(splitId, startOffset);
        reads.put(splitId, read);
        read.seekTo(startOffset);
    }

    @Override
    public void removeSplit(String splitId) throws IOException {
        SplitRead read = reads.remove(splitId);
        if (read != null) {
            read.closeFile();
        }
    }

    /** A paused split keeps its open file and position; nothing of it is read until resumed. */
    @Override
    public void pauseOrResumeSplits(Collection<String> toPause, Collection<String> toResume) {
        for (String splitId : toPause) {
            SplitRead read = reads.get(splitId);
            if (read != null) {
                read.paused = true;
            }
        }
        for (String splitId : toResume) {
            SplitRead read = reads.get(splitId);
            if (read != null) {
                read.paused = false;
            }
        }
    }

    @Override
    public void poll(Duration maxWait, LogRecordCollector<D> collector) throws IOException {
        listedFor = null; // files may come and go while the poll reads
        int running = 0;
        for (SplitRead read : reads.values()) {
            running += read.paused ? 0 : 1;
        }
        int perSplit = Math.max(1, maxRecordsPerPoll / Math.max(1, running));
        boolean delivered = false;
        for (SplitRead read : reads.values()) {
            if (!read.paused) {
                delivered |= read.read(perSplit, collector) > 0;
            }
        }
        if (!delivered && !maxWait.isZero()) {
            // every split is at the end of its files, which the source checks after this poll:
            // a short pause, not a busy loop
            try {
                Thread.sleep(Math.min(maxWait.toMillis(), IDLE_PAUSE_MILLIS));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public long position(String splitId) {
        return reads.get(splitId).position;
    }

    @Override
    public long earliestOffset(String splitId) throws IOException {
        List<ArchiveListing.Entry> files = filesOf(splitId);
        return files.isEmpty() ? reads.get(splitId).position : files.get(0).startOffset();
    }

    @Override
    public boolean isEndOfSplit(String splitId) throws IOException {
        SplitRead read = reads.get(splitId);
        if (!read.atEndOfFiles()) {
            return false;
        }
        // files may have appeared since the last listing: they are read before the handover
        listFor(ListingNeed.END_CHECKS);
        if (read.continueWithNewFiles()) {
            return false;
        }
        LOG.info(
                "The archive of split {} ended at offset {} ({} files)",
                splitId,
                read.position,
                filesOf(splitId).size());
        return true;
    }

    @Override
    public void wakeUp() {}

    @Override
    public void close() throws IOException {
        for (SplitRead read : reads.values()) {
            read.closeFile();
        }
        reads.clear();
    }

    /** Lists the archive unless the listing was made for the same need since the last poll. */
    private void listFor(ListingNeed need) throws IOException {
        if (listedFor != need) {
            listing = ArchiveListing.list(root, layout);
            listings.inc();
            listedFor = need;
        }
    }

    /**
     * The split's files as listed last: by the splits' addition or the end checks after the
     * previous poll, so that no file is opened that a newer listing no longer holds.
     */
    private List<ArchiveListing.Entry> filesOf(String splitId) throws IOException {
        if (listing == null) {
            listFor(ListingNeed.ADD_SPLITS);
        }
        return listing.getOrDefault(splitId, List.of());
    }

    /** One split's progress through its files. */
    private final class SplitRead {
        final String splitId;

        /** The next offset this reader delivers. */
        long position;

        /** Paused for watermark alignment. */
        boolean paused;

        /**
         * The file open now, or read last; {@code null} before the first. The next file is the
         * listing's first that starts above it: a fresh listing may have lost files already read
         * (retention) or gained new ones, so no index into a listing is kept.
         */
        @Nullable ArchiveListing.Entry file;

        @Nullable ArchiveFormat.RecordReader<R> records;

        /** Records (dropped ones too) read from the open file. */
        long recordsInFile;

        /** The offset of the last record delivered or skipped; {@code null} before the first. */
        @Nullable Long lastOffset;

        /** Offsets below this are skipped (the split's start within its first file). */
        long skipBelow;

        SplitRead(String splitId, long startOffset) {
            this.splitId = splitId;
            this.position = startOffset;
            this.skipBelow = startOffset;
        }

        /** Opens the file that holds {@code offset}: the last one starting at or below it. */
        void seekTo(long offset) throws IOException {
            List<ArchiveListing.Entry> files = filesOf(splitId);
            if (files.isEmpty()) {
                LOG.info(
                        "Split {} has no archive: the live reader reads it from offset {}",
                        splitId,
                        offset);
                return;
            }
            ArchiveListing.Entry holding = null;
            for (int i = 0; i < files.size() && files.get(i).startOffset() <= offset; i++) {
                holding = files.get(i);
            }
            if (holding == null) {
                throw new IOException(
                        String.format(
                                "Split %s must go on at offset %d, but its archive starts at %d (%s): offsets %d..%d are not in the archive",
                                splitId,
                                offset,
                                files.get(0).startOffset(),
                                files.get(0).path(),
                                offset,
                                files.get(0).startOffset() - 1));
            }
            openFile(holding);
        }

        /** The first file of the split's listing that starts above the file read last. */
        @Nullable
        private ArchiveListing.Entry nextFile() throws IOException {
            for (ArchiveListing.Entry candidate : filesOf(splitId)) {
                if (candidate.startOffset() > file.startOffset()) {
                    return candidate;
                }
            }
            return null;
        }

        boolean atEndOfFiles() {
            return records == null;
        }

        /** After a new listing: opens the file after the last one read, if there is one. */
        boolean continueWithNewFiles() throws IOException {
            if (file == null) {
                // no archive before: a file that appeared is read if it holds the next offset;
                // one starting above it is not (the live reader reads the split from there)
                List<ArchiveListing.Entry> files = filesOf(splitId);
                if (files.isEmpty() || files.get(0).startOffset() > position) {
                    return false;
                }
                seekTo(position);
                return records != null;
            }
            ArchiveListing.Entry next = nextFile();
            if (next == null) {
                return false;
            }
            checkContinues(file, next);
            openFile(next);
            return true;
        }

        int read(int max, LogRecordCollector<D> collector) throws IOException {
            int delivered = 0;
            while (records != null && delivered < max) {
                if (!nextRecord()) {
                    endOfFile();
                    continue;
                }
                R value = records.value();
                long offset;
                if (recordOffset == null) {
                    offset = file.startOffset() + recordsInFile - 1;
                } else if (value == null) {
                    continue; // dropped, and it has no offset to count
                } else {
                    offset = offsetOf(value);
                }
                if (offset < skipBelow) {
                    lastOffset = offset;
                    continue;
                }
                lastOffset = offset;
                position = offset + 1;
                if (value != null) {
                    collector.collect(
                            splitId,
                            offset,
                            TimestampAssigner.NO_TIMESTAMP,
                            delivery.deliver(value, file, offset));
                    delivered++;
                }
            }
            return delivered;
        }

        /**
         * Moves to the next record of the open file. A record the format read past but could not
         * make (a rejected line) is skipped and counted if the source is told to, and fails the job
         * otherwise; any other read error fails it.
         */
        private boolean nextRecord() throws IOException {
            boolean more;
            try {
                more = records.next();
            } catch (IOException | RuntimeException e) {
                throw unreadable(recordsInFile + 1, e);
            }
            if (!more) {
                return false;
            }
            recordsInFile++;
            Exception unreadable = records.unreadable();
            if (unreadable != null) {
                if (!skipUnreadableRecords || skippedRecords == null) {
                    throw unreadable(recordsInFile, unreadable);
                }
                skippedRecords.inc();
                LOG.warn(
                        "Archive file {} (split {}): record {} cannot be read and is skipped, as the source is told to: {}",
                        file.path(),
                        splitId,
                        recordsInFile,
                        unreadable.toString());
            }
            return true;
        }

        private IOException unreadable(long record, Exception cause) {
            return new IOException(
                    String.format(
                            "Archive file %s (split %s): record %d cannot be read: %s",
                            file.path(), splitId, record, cause.getMessage()),
                    cause);
        }

        private long offsetOf(R value) throws IOException {
            Long offset = recordOffset.apply(value);
            if (offset == null
                    || offset < file.startOffset()
                    || (lastOffset != null && offset <= lastOffset)) {
                throw new IOException(
                        String.format(
                                "Archive file %s (split %s): record %d holds offset %s, but offsets must increase from the file's start offset %d (last one %s)",
                                file.path(),
                                splitId,
                                recordsInFile,
                                offset,
                                file.startOffset(),
                                lastOffset));
            }
            return offset;
        }

        /** The open file has no more records: the next known file must continue its offsets. */
        private void endOfFile() throws IOException {
            closeFile();
            if (recordOffset == null) {
                // counted offsets: the file held [start, start + records)
                position = Math.max(position, file.startOffset() + recordsInFile);
            }
            ArchiveListing.Entry next = nextFile();
            if (next != null) {
                checkContinues(file, next);
                openFile(next);
            }
        }

        private void checkContinues(ArchiveListing.Entry previous, ArchiveListing.Entry next)
                throws IOException {
            long end =
                    recordOffset == null
                            ? previous.startOffset() + recordsInFile
                            : (lastOffset == null ? previous.startOffset() : lastOffset + 1);
            boolean continues =
                    recordOffset == null ? next.startOffset() == end : next.startOffset() >= end;
            if (!continues) {
                throw new IOException(
                        String.format(
                                "Archive files of split %s do not continue each other: %s ends before offset %d, %s starts at %d",
                                splitId, previous.path(), end, next.path(), next.startOffset()));
            }
        }

        private void openFile(ArchiveListing.Entry entry) throws IOException {
            FileSystem fs = entry.path().getFileSystem();
            file = entry;
            recordsInFile = 0;
            FSDataInputStream in = null;
            try {
                long length = fs.getFileStatus(entry.path()).getLen();
                in = fs.open(entry.path());
                InflaterInputStreamFactory<?> decompressor =
                        StandardDeCompressors.getDecompressorForFileName(entry.path().getName());
                FSDataInputStream stream =
                        decompressor == null
                                ? in
                                : new InputStreamFSInputWrapper(decompressor.create(in));
                // a decompressed stream's length is unknown: no byte bound within it
                records = format.open(stream, decompressor == null ? length : Long.MAX_VALUE);
            } catch (IOException | RuntimeException e) {
                if (in != null) {
                    in.close();
                }
                throw new IOException(
                        String.format(
                                "Archive file %s (split %s) cannot be opened: %s",
                                entry.path(), splitId, e),
                        e);
            }
            LOG.debug("Split {} reads archive file {}", splitId, entry.path());
        }

        void closeFile() throws IOException {
            if (records != null) {
                records.close();
                records = null;
            }
        }
    }
}
