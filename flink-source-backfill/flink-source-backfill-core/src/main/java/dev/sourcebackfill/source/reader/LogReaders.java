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
import org.apache.flink.util.ExceptionUtils;

import javax.annotation.Nullable;

import java.io.IOException;

/**
 * The two log readers of a split reader: the backfill reader and the live reader, each created when
 * a split first needs it. The backfill reader is closed when no split needs it any more and created
 * again if one does.
 */
@Internal
final class LogReaders {

    private final Slot backfill;
    private final Slot live;

    LogReaders(
            LogReading<Object, ?> backfillReading,
            LogReading<Object, ?> liveReading,
            SourceReaderContext context) {
        this.backfill = new Slot(backfillReading, context, "backfill");
        this.live = new Slot(liveReading, context, "live");
    }

    /** The backfill reader, created if it is not open. */
    LogReader<Object> backfill() throws IOException {
        return backfill.open();
    }

    /** The live reader, created if it is not open. */
    LogReader<Object> live() throws IOException {
        return live.open();
    }

    /** The backfill reader if it is open. */
    @Nullable
    LogReader<Object> openBackfill() {
        return backfill.reader;
    }

    /** The live reader if it is open. */
    @Nullable
    LogReader<Object> openLive() {
        return live.reader;
    }

    void closeBackfill() throws IOException {
        backfill.close();
    }

    /**
     * Closes both readers; a failure closing one (an error too) does not keep the other open: the
     * first is thrown, a second is suppressed in it.
     */
    void close() throws IOException {
        Throwable failure = null;
        for (Slot slot : new Slot[] {backfill, live}) {
            try {
                slot.close();
            } catch (Throwable t) {
                if (failure == null) {
                    failure = t;
                } else {
                    failure.addSuppressed(t);
                }
            }
        }
        if (failure != null) {
            ExceptionUtils.rethrowIOException(failure);
        }
    }

    /** Wakes up a live reader that may wait for records (from any thread). */
    void wakeUpLive() {
        live.wakeUp();
    }

    /** Wakes up both readers (from any thread). */
    void wakeUp() {
        backfill.wakeUp();
        live.wakeUp();
    }

    /** One log reader, open or not. */
    private static final class Slot {
        private final LogReading<Object, ?> reading;
        private final SourceReaderContext context;
        private final String role;

        /** Read by {@link #wakeUp} from other threads. */
        @Nullable private volatile LogReader<Object> reader;

        Slot(LogReading<Object, ?> reading, SourceReaderContext context, String role) {
            this.reading = reading;
            this.context = context;
            this.role = role;
        }

        LogReader<Object> open() throws IOException {
            LogReader<Object> open = reader;
            if (open == null) {
                try {
                    open = reading.createReader(context);
                } catch (IOException e) {
                    throw e;
                } catch (Exception e) {
                    throw new IOException("Creating the " + role + " reader failed", e);
                }
                reader = open;
            }
            return open;
        }

        void close() throws IOException {
            LogReader<Object> open = reader;
            reader = null;
            if (open == null) {
                return;
            }
            try {
                open.close();
            } catch (IOException e) {
                throw e;
            } catch (Exception e) {
                throw new IOException("Closing the " + role + " reader failed", e);
            }
        }

        void wakeUp() {
            LogReader<Object> open = reader;
            if (open != null) {
                open.wakeUp();
            }
        }
    }
}
