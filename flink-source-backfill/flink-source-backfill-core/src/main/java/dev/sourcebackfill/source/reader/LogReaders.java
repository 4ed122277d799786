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
package dev.sourcebackfill.source.reader;

import dev.sourcebackfill.source.spi.LogReader;
import dev.sourcebackfill.source.spi.LogReading;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.source.SourceReaderContext;

import javax.annotation.Nullable;

import java.io.IOException;

/**
 * The two log readers of a split reader: the backfill reader and the live reader, each created when
 * a split first needs it. The backfill reader is closed when no split needs it any more and created
 * again if one does.
 */
@Internal
final class LogReaders {

    private final LogReading<Object, ?> backfillReading;
    private final LogReading<Object, ?> liveReading;
    private final SourceReaderContext context;

    @Nullable private volatile LogReader<Object> backfillReader;
    @Nullable private volatile LogReader<Object> liveReader;

    LogReaders(
            LogReading<Object, ?> backfillReading,
            LogReading<Object, ?> liveReading,
            SourceReaderContext context) {
        this.backfillReading = backfillReading;
        this.liveReading = liveReading;
        this.context = context;
    }

    /** The backfill reader, created if it is not open. */
    LogReader<Object> backfill() throws IOException {
        LogReader<Object> reader = backfillReader;
        if (reader == null) {
            reader = create(backfillReading, "backfill");
            backfillReader = reader;
        }
        return reader;
    }

    /** The live reader, created if it is not open. */
    LogReader<Object> live() throws IOException {
        LogReader<Object> reader = liveReader;
        if (reader == null) {
            reader = create(liveReading, "live");
            liveReader = reader;
        }
        return reader;
    }

    /** The backfill reader if it is open. */
    @Nullable
    LogReader<Object> openBackfill() {
        return backfillReader;
    }

    /** The live reader if it is open. */
    @Nullable
    LogReader<Object> openLive() {
        return liveReader;
    }

    void closeBackfill() throws IOException {
        LogReader<Object> reader = backfillReader;
        backfillReader = null;
        close(reader, "backfill");
    }

    void close() throws IOException {
        try {
            closeBackfill();
        } finally {
            LogReader<Object> reader = liveReader;
            liveReader = null;
            close(reader, "live");
        }
    }

    /** Wakes up a live reader that may wait for records (from any thread). */
    void wakeUpLive() {
        LogReader<Object> live = liveReader;
        if (live != null) {
            live.wakeUp();
        }
    }

    /** Wakes up both readers (from any thread). */
    void wakeUp() {
        LogReader<Object> backfill = backfillReader;
        if (backfill != null) {
            backfill.wakeUp();
        }
        wakeUpLive();
    }

    private LogReader<Object> create(LogReading<Object, ?> reading, String role)
            throws IOException {
        try {
            return reading.createReader(context);
        } catch (IOException e) {
            throw e;
        } catch (Exception e) {
            throw new IOException("Creating the " + role + " reader failed", e);
        }
    }

    private static void close(@Nullable LogReader<Object> reader, String role) throws IOException {
        if (reader == null) {
            return;
        }
        try {
            reader.close();
        } catch (IOException e) {
            throw e;
        } catch (Exception e) {
            throw new IOException("Closing the " + role + " reader failed", e);
        }
    }
}
