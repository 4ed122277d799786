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

import dev.sourcebackfill.source.BackfillSource;
import dev.sourcebackfill.source.kafka.HistoryBeforeKafkaSourceBuilder;
import dev.sourcebackfill.source.kafka.LiveTopics;

import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;
import org.apache.flink.util.function.SerializableFunction;

import javax.annotation.Nullable;

/**
 * Builds a {@link BackfillSource} over an archive of Kafka partitions in front of the live topics.
 * Every option is checked in {@link #build()}, which names the option that is wrong.
 *
 * <pre>{@code
 * BackfillSource<String> source = ArchiveBackfill.<String>sourceBuilder()
 *         .setArchive("s3://bucket/topics")
 *         .setFormat(ArchiveFormat.lines(new SimpleStringSchema()))
 *         .setLive(KafkaBackfill.<String>sourceBuilder()
 *                 .setBootstrapServers("broker:9092")
 *                 .setTopics("orders")
 *                 .setValueOnlyDeserializer(new SimpleStringSchema()))
 *         .build();
 * }</pre>
 *
 * <table>
 *   <tr><th>option</th><th>default</th><th>meaning</th></tr>
 *   <tr><td>{@link #setArchive}</td><td>required</td><td>the archive's root, any Flink file
 *       system ({@code file://}, {@code s3://}, {@code hdfs://}, ...)</td></tr>
 *   <tr><td>{@link #setLayout}</td><td>{@link ArchiveLayout#kafkaConnect()}</td><td>which file
 *       holds which partition from which offset</td></tr>
 *   <tr><td>{@link #setFormat}</td><td>required</td><td>how a file's records are read</td></tr>
 *   <tr><td>{@link #setRecordOffset}</td><td>counted</td><td>a record's Kafka offset from the
 *       record itself; by default the file's start offset plus the record's place in it</td></tr>
 *   <tr><td>{@link #setLive}</td><td>required</td><td>the live topics, as a Kafka source
 *       builder: its starting offsets apply to partitions with no archive</td></tr>
 *   <tr><td>{@link #setOffsetGapPolicy}</td><td>fail</td><td>a gap between a partition's
 *       archive and the topic's earliest offset fails the job, or is skipped and counted</td></tr>
 *   <tr><td>{@link #setMaxRecordsPerPoll}</td><td>10,000</td><td>archive records one fetch
 *       reads, over all splits of a reader</td></tr>
 * </table>
 */
@PublicEvolving
public final class ArchiveBackfillSourceBuilder<T>
        extends HistoryBeforeKafkaSourceBuilder<T, ArchiveBackfillSourceBuilder<T>> {

    @Nullable private String archive;
    private ArchiveLayout layout = ArchiveLayout.kafkaConnect();
    @Nullable private ArchiveFormat<T> format;
    @Nullable private SerializableFunction<T, Long> recordOffset;
    private boolean skipUnreadableRecords;
    private ArchivedRecordMapper<T> recordMapper = ArchivedRecordMapper.identity();

    ArchiveBackfillSourceBuilder() {
        super("Archive backfill source");
    }

    @Override
    protected ArchiveBackfillSourceBuilder<T> self() {
        return this;
    }

    /**
     * The archive's root: a path or URI of any file system Flink has; a relative path without a
     * scheme is taken relative to the working directory of the program that builds the source.
     */
    public ArchiveBackfillSourceBuilder<T> setArchive(String root) {
        this.archive = root;
        return this;
    }

    public ArchiveBackfillSourceBuilder<T> setLayout(ArchiveLayout layout) {
        this.layout = layout;
        return this;
    }

    public ArchiveBackfillSourceBuilder<T> setFormat(ArchiveFormat<T> format) {
        this.format = format;
        return this;
    }

    /**
     * A record's Kafka offset, read from the record (a field the sink wrote); records of a file
     * must then have increasing offsets from the file's start offset on, and gaps between them are
     * allowed (compaction, transaction markers).
     */
    public ArchiveBackfillSourceBuilder<T> setRecordOffset(SerializableFunction<T, Long> offset) {
        this.recordOffset = offset;
        return this;
    }

    /**
     * Skips a line that the format's schema cannot read, with a warning naming the file and the
     * line, and counts it in the {@code backfill.skippedArchiveRecords} metric; by default such a
     * line fails the job. Applies to {@link ArchiveFormat#lines}; other read errors always fail.
     */
    public ArchiveBackfillSourceBuilder<T> setSkipUnreadableRecords(boolean skip) {
        this.skipUnreadableRecords = skip;
        return this;
    }

    /**
     * Completes each archived record once its topic, partition and offset are known (for a format
     * whose records do not hold them); by default records are emitted as the format made them.
     */
    public ArchiveBackfillSourceBuilder<T> setArchivedRecordMapper(
            ArchivedRecordMapper<T> recordMapper) {
        this.recordMapper = recordMapper;
        return this;
    }

    @Override
    protected ArchiveBackfillLog<T> createLog(LiveTopics<T> topics) {
        return new ArchiveBackfillLog<>(
                topics,
                rootOf(archive),
                layout,
                format,
                recordOffset,
                maxRecordsPerPoll(),
                skipUnreadableRecords,
                recordMapper);
    }

    /**
     * The root as given, or for a relative local path, that path in the working directory of the
     * program that builds the source (not in each TaskManager's).
     */
    private static Path rootOf(String archive) {
        Path root = new Path(archive);
        return root.toUri().getScheme() == null && !root.isAbsolute()
                ? root.makeQualified(FileSystem.getLocalFileSystem())
                : root;
    }

    @Override
    protected void checkOptions() {
        checkOption(archive != null && !archive.isBlank(), "archive", "setArchive", "is not set");
        try {
            new Path(archive);
        } catch (IllegalArgumentException e) {
            checkOption(false, "archive", "setArchive", "is not a path: " + e.getMessage());
        }
        checkOption(layout != null, "layout", "setLayout", "must not be null");
        checkOption(format != null, "format", "setFormat", "is not set");
        checkLive();
        checkOption(
                recordMapper != null,
                "archived record mapper",
                "setArchivedRecordMapper",
                "must not be null");
        checkMaxRecordsPerPoll();
    }
}
