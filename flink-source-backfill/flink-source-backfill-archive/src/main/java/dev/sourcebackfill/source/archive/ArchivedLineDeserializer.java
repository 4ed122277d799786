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

import dev.sourcebackfill.source.spi.LogRecordDeserializer;

import org.apache.flink.annotation.Internal;
import org.apache.flink.metrics.Counter;
import org.apache.flink.util.Collector;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Makes the values of archived lines with the archive's lines format, in the source's task thread,
 * then completes each with its place ({@link ArchivedRecordMapper}). A line the format rejects is
 * skipped and counted if the source is told to (its offset stays taken), and fails the job naming
 * the file, the split and the offset otherwise.
 */
@Internal
final class ArchivedLineDeserializer<T> implements LogRecordDeserializer<ArchivedLine, T> {

    private static final Logger LOG = LoggerFactory.getLogger(ArchivedLineDeserializer.class);

    private final ArchiveFormat<T> format;
    private final ArchivedRecordMapper<T> recordMapper;
    private final boolean skipUnreadableRecords;
    private final Counter skippedRecords;

    /** The values of the line being read: made first, emitted once the format is done. */
    private final List<T> values = new ArrayList<>(1);

    private final Collector<T> valueCollector =
            new Collector<>() {
                @Override
                public void collect(T value) {
                    values.add(value);
                }

                @Override
                public void close() {}
            };

    /**
     * @param format an opened lines format, used by this deserializer only
     */
    ArchivedLineDeserializer(
            ArchiveFormat<T> format,
            ArchivedRecordMapper<T> recordMapper,
            boolean skipUnreadableRecords,
            Counter skippedRecords) {
        this.format = format;
        this.recordMapper = recordMapper;
        this.skipUnreadableRecords = skipUnreadableRecords;
        this.skippedRecords = skippedRecords;
    }

    @Override
    public void deserialize(String splitId, long offset, ArchivedLine line, Collector<T> out)
            throws IOException {
        values.clear();
        try {
            format.deserializeLine(line.bytes(), valueCollector);
        } catch (IOException | RuntimeException e) {
            if (!skipUnreadableRecords) {
                throw new IOException(
                        String.format(
                                "Archive file %s (split %s): the record at offset %d cannot be read: %s",
                                line.path(), splitId, offset, e.getMessage()),
                        e);
            }
            values.clear();
            skippedRecords.inc();
            LOG.warn(
                    "Archive file {} (split {}): the record at offset {} cannot be read and is skipped, as the source is told to: {}",
                    line.path(),
                    splitId,
                    offset,
                    e.toString());
            return;
        }
        // emitted once the format is done: a failure after this is the job's, not the line's
        for (T value : values) {
            out.collect(recordMapper.map(value, line.file(), offset));
        }
        values.clear();
    }
}
