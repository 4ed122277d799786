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

import dev.sourcebackfill.source.kafka.HistoryBeforeKafkaLog;
import dev.sourcebackfill.source.kafka.LiveTopics;
import dev.sourcebackfill.source.spi.LogReading;
import dev.sourcebackfill.source.spi.LogSplitDiscoverer;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.core.fs.Path;
import org.apache.flink.metrics.Counter;
import org.apache.flink.util.InstantiationUtil;
import org.apache.flink.util.function.SerializableFunction;

import javax.annotation.Nullable;

/**
 * An archive in front of a live log: history from the archive's files, the live log's live reader.
 */
@Internal
final class ArchiveBackfillLog<T> extends HistoryBeforeKafkaLog<T> {

    private static final long serialVersionUID = 1L;

    private final Path root;
    private final ArchiveLayout layout;
    private final ArchiveFormat<T> format;
    @Nullable private final SerializableFunction<T, Long> recordOffset;
    private final int maxRecordsPerPoll;
    private final boolean skipUnreadableRecords;
    private final ArchivedRecordMapper<T> recordMapper;

    ArchiveBackfillLog(
            LiveTopics<T> topics,
            Path root,
            ArchiveLayout layout,
            ArchiveFormat<T> format,
            @Nullable SerializableFunction<T, Long> recordOffset,
            int maxRecordsPerPoll,
            boolean skipUnreadableRecords,
            ArchivedRecordMapper<T> recordMapper) {
        super(topics);
        if (!format.producedType().equals(getProducedType())) {
            throw new IllegalArgumentException(
                    String.format(
                            "Archive backfill source option 'format' (setFormat) makes %s, but the live topic's deserializer makes %s: both must make the same type",
                            format.producedType(), getProducedType()));
        }
        this.root = root;
        this.layout = layout;
        this.format = format;
        this.recordOffset = recordOffset;
        this.maxRecordsPerPoll = maxRecordsPerPoll;
        this.skipUnreadableRecords = skipUnreadableRecords;
        this.recordMapper = recordMapper;
    }

    @Override
    public LogSplitDiscoverer createSplitDiscoverer() throws Exception {
        return new ArchiveDiscoverer(createTopicDiscoverer(), root, layout);
    }

    /**
     * A lines format with counted offsets: the reader hands on each line's bytes and the values are
     * made in the task thread ({@link ArchivedLineDeserializer}). Otherwise the reader makes the
     * values itself, in the fetcher thread: a {@code StreamFormat} reads values, and offsets taken
     * from the records need the values there.
     */
    @Override
    public LogReading<?, T> backfillReading() {
        if (format.readsLines() && recordOffset == null) {
            return LogReading.of(this::createLineReader, this::createLineDeserializer);
        }
        return LogReading.ofValues(this::createValueReader);
    }

    private ArchiveReader<byte[], ArchivedLine> createLineReader(SourceReaderContext context) {
        return new ArchiveReader<>(
                root,
                layout,
                format::openLines,
                null,
                maxRecordsPerPoll,
                skipUnreadableRecords,
                (line, file, offset) -> new ArchivedLine(line, file.file(), file.path()),
                null,
                listings(context));
    }

    private ArchivedLineDeserializer<T> createLineDeserializer(SourceReaderContext context)
            throws Exception {
        return new ArchivedLineDeserializer<>(
                openedFormat(context),
                recordMapper,
                skipUnreadableRecords,
                skippedRecords(context));
    }

    private ArchiveReader<T, T> createValueReader(SourceReaderContext context) throws Exception {
        ArchiveFormat<T> opened = openedFormat(context);
        return new ArchiveReader<>(
                root,
                layout,
                opened::open,
                recordOffset,
                maxRecordsPerPoll,
                skipUnreadableRecords,
                (value, file, offset) -> recordMapper.map(value, file.file(), offset),
                skippedRecords(context),
                listings(context));
    }

    /** A copy of the format for one reader or deserializer: a schema may keep state or metrics. */
    private ArchiveFormat<T> openedFormat(SourceReaderContext context) throws Exception {
        ArchiveFormat<T> copy =
                InstantiationUtil.clone(format, context.getUserCodeClassLoader().asClassLoader());
        copy.open(
                ArchiveFormat.context(
                        context.metricGroup().addGroup("deserializer").addGroup("archive"),
                        context.getUserCodeClassLoader()));
        return copy;
    }

    private static Counter skippedRecords(SourceReaderContext context) {
        return context.metricGroup()
                .addGroup("backfill")
                .counter(ArchiveReader.SKIPPED_ARCHIVE_RECORDS);
    }

    private static Counter listings(SourceReaderContext context) {
        return context.metricGroup().addGroup("backfill").counter(ArchiveReader.ARCHIVE_LISTINGS);
    }

    /**
     * A partition's archive can be read in chunks: runs of whole files, cut at the files' start
     * offsets ({@link ArchiveDiscoverer#cutHistory}); the archive reader opens the file holding any
     * offset, again after it let go of the partition.
     */
    @Override
    public boolean supportsHistoryChunks() {
        return true;
    }

    @Override
    public String toString() {
        return "ArchiveBackfillLog{archive "
                + root
                + " ("
                + layout
                + ", "
                + format
                + "), live "
                + describeTopics()
                + '}';
    }
}
