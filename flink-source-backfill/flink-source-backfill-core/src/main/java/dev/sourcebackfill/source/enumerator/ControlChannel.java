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
package dev.sourcebackfill.source.enumerator;

import dev.sourcebackfill.source.control.BackfillControl;
import dev.sourcebackfill.source.control.ControlFile;
import dev.sourcebackfill.source.event.BackfillControlEvent;
import dev.sourcebackfill.source.metrics.BackfillEnumeratorMetrics;
import dev.sourcebackfill.source.split.BackfillSplit;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.annotation.Nullable;

import java.time.Duration;
import java.util.Optional;

/**
 * The enumerator's side of the control channel: it reads the source's {@link ControlFile} in the
 * worker thread every interval and, when the control it holds changes, applies it (in the
 * coordinator thread): the new control goes to every registered reader, and into the enumerator's
 * checkpoints, so that a failover, a restore and a rescale keep it. A reader that registers (a
 * start, a restore, a regional failover) is sent the current control, and does not read history
 * until it has it; none is sent before the file was read once (successfully or not), so that a
 * pause written before the job started or while it was restarting holds from the first poll.
 *
 * <p>A file that cannot be read or holds no control is logged and counted ({@value
 * BackfillEnumeratorMetrics#CONTROL_ERRORS}); the control applied before stays, and the job goes
 * on. A missing file changes nothing either: the control applied last stays (the source as built
 * until a file was read).
 */
@Internal
final class ControlChannel {

    private static final Logger LOG = LoggerFactory.getLogger(ControlChannel.class);

    private final SplitEnumeratorContext<BackfillSplit> context;
    private final ControlFile file;
    private final Duration interval;
    private final BackfillEnumeratorMetrics metrics;
    private BackfillControl control;

    /** Whether the file was read once: no reader gets a control before. */
    private boolean readOnce;

    ControlChannel(
            SplitEnumeratorContext<BackfillSplit> context,
            ControlFile file,
            Duration interval,
            BackfillControl restored,
            BackfillEnumeratorMetrics metrics) {
        this.context = context;
        this.file = file;
        this.interval = interval;
        this.control = restored;
        this.metrics = metrics;
        metrics.controlApplied(restored);
    }

    void start() {
        LOG.info("Backfill control: {} (file {}, read every {})", control, file, interval);
        context.callAsync(this::read, this::onRead, 0, interval.toMillis());
    }

    /** In the worker thread. */
    private Optional<BackfillControl> read() throws Exception {
        return file.read();
    }

    private void onRead(@Nullable Optional<BackfillControl> read, @Nullable Throwable error) {
        boolean first = !readOnce;
        readOnce = true;
        boolean changed = false;
        if (error != null) {
            metrics.controlFailed();
            LOG.warn(
                    "Backfill control file {} ignored, the control stays {}: {}",
                    file,
                    control,
                    error.toString());
        } else if (read.isPresent() && !read.get().equals(control)) {
            LOG.info("Backfill control changed by file {}: {} -> {}", file, control, read.get());
            control = read.get();
            metrics.controlApplied(control);
            changed = true;
        }
        if (first || changed) {
            for (int reader : context.registeredReaders().keySet()) {
                send(reader);
            }
        }
    }

    void addReader(int subtask) {
        if (readOnce) {
            send(subtask);
        }
    }

    BackfillControl current() {
        return control;
    }

    private void send(int subtask) {
        context.sendEventToSourceReader(subtask, new BackfillControlEvent(control));
    }
}
