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
package dev.sourcebackfill.source.metrics;

import dev.sourcebackfill.source.control.BackfillControl;

import org.apache.flink.annotation.Internal;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.runtime.metrics.groups.AbstractMetricGroup;

import java.util.OptionalLong;

/**
 * Metrics of one enumerator (the whole source), in the group {@value #GROUP} under the enumerator's
 * metric group: {@value #SPLITS_BACKFILLING}, {@value #SPLITS_CACHING_UP}, {@value
 * #SPLITS_FINISHED}, {@value #SPLITS_ENDED}, {@value #SPLITS_UNCONFIRMED}, {@value #FORWARD_MODE}
 * (0 or 1), {@value #FORWARD_MODE_CHECKPOINT} and the counter {@value #FORWARD_MODE_HOOK_FAILURES}.
 *
 * <p>The coordinator thread publishes the figures with {@link #update}; reporters read them from
 * their own threads, so the gauges never touch the status table.
 *
 * <p>Lifecycle. Each enumerator registers its own gauges when it is created and removes them in
 * {@link #close()}. A job's metric groups live as long as the job: a new job, even one of the same
 * name, has new groups. Within a job, Flink keeps the coordinator's metric group when it creates
 * the enumerator again (a global failover resets the coordinator and creates a new enumerator; the
 * adaptive scheduler builds a new execution graph, and so a new coordinator, on every restart and
 * rescale), and a gauge cannot be registered twice in one group. So the {@value #GROUP} group is
 * the enumerator's own: it closes it on {@link #close()}, and a new enumerator first closes the one
 * it finds, should the previous enumerator not have closed it yet (the adaptive scheduler closes
 * the old coordinator asynchronously) or never (a coordinator closed before it was started does not
 * close its enumerator). Flink then hands out a fresh group of the same name. The metrics of the
 * newest enumerator are thus always the ones reported.
 */
@Internal
public final class BackfillEnumeratorMetrics implements AutoCloseable {

    /** The group, under the enumerator's metric group, that holds these metrics. */
    public static final String GROUP = "backfill";

    public static final String SPLITS_BACKFILLING = "splitsBackfilling";
    public static final String SPLITS_CACHING_UP = "splitsCachingUp";
    public static final String SPLITS_FINISHED = "splitsFinished";
    public static final String SPLITS_ENDED = "splitsEnded";
    public static final String SPLITS_UNCONFIRMED = "splitsUnconfirmed";

    /** 1 while the source is in forward mode, else 0. */
    public static final String FORWARD_MODE = "forwardMode";

    /**
     * The checkpoint that confirmed forward mode, {@value #NOT_IN_FORWARD_MODE} when not in forward
     * mode.
     */
    public static final String FORWARD_MODE_CHECKPOINT = "forwardModeCheckpoint";

    /**
     * What the {@value #FORWARD_MODE_CHECKPOINT} gauge shows outside forward mode (a gauge has a
     * value; Flink's own source gauges show -1 for "undefined" the same way).
     */
    public static final long NOT_IN_FORWARD_MODE = -1L;

    /**
     * How many times the log's action on forward mode ({@code LogSplitDiscoverer.onForwardMode})
     * failed (the Iceberg adapter's removal of its snapshot tag); such a failure never fails the
     * job.
     */
    public static final String FORWARD_MODE_HOOK_FAILURES = "forwardModeHookFailures";

    /** 1 while the backfill is paused through the source's control file, else 0. */
    public static final String CONTROL_PAUSED = "controlPaused";

    /**
     * The backfill rate the control file sets (records per second per reader), {@value
     * #RATE_AS_BUILT} while the source's own rate limit holds.
     */
    public static final String CONTROL_RATE = "controlRecordsPerSecond";

    /** What {@value #CONTROL_RATE} shows while the source's own rate limit holds. */
    public static final double RATE_AS_BUILT = -1;

    /**
     * How many times the control file could not be read or held no control (each logged and
     * ignored: the setting applied before stays).
     */
    public static final String CONTROL_ERRORS = "controlErrors";

    private final MetricGroup group;
    private final Counter forwardModeHookFailures;
    private final Counter controlErrors;
    private volatile BackfillControl control = BackfillControl.asBuilt();

    private volatile int backfilling;
    private volatile int cachingUp;
    private volatile int finished;
    private volatile int ended;
    private volatile int unconfirmed;
    private volatile OptionalLong forwardModeCheckpoint = OptionalLong.empty();

    /**
     * Registers the gauges in a new {@value #GROUP} group under {@code enumeratorGroup} (the group
     * {@code SplitEnumeratorContext.metricGroup()} gives).
     */
    public BackfillEnumeratorMetrics(MetricGroup enumeratorGroup) {
        this.group = ownGroup(enumeratorGroup);
        group.gauge(SPLITS_BACKFILLING, () -> backfilling);
        group.gauge(SPLITS_CACHING_UP, () -> cachingUp);
        group.gauge(SPLITS_FINISHED, () -> finished);
        group.gauge(SPLITS_ENDED, () -> ended);
        group.gauge(SPLITS_UNCONFIRMED, () -> unconfirmed);
        group.gauge(FORWARD_MODE, () -> forwardModeCheckpoint.isPresent() ? 1 : 0);
        group.gauge(
                FORWARD_MODE_CHECKPOINT, () -> forwardModeCheckpoint.orElse(NOT_IN_FORWARD_MODE));
        forwardModeHookFailures = group.counter(FORWARD_MODE_HOOK_FAILURES);
        group.gauge(CONTROL_PAUSED, () -> control.paused() ? 1 : 0);
        group.gauge(CONTROL_RATE, () -> control.recordsPerSecond().orElse(RATE_AS_BUILT));
        controlErrors = group.counter(CONTROL_ERRORS);
    }

    /** The control the enumerator applies now. */
    public void controlApplied(BackfillControl control) {
        this.control = control;
    }

    /** Counts a control file that could not be read or held no control. */
    public void controlFailed() {
        controlErrors.inc();
    }

    public long controlErrors() {
        return controlErrors.getCount();
    }

    /** Counts a failure of the log's action on forward mode. */
    public void forwardModeHookFailed() {
        forwardModeHookFailures.inc();
    }

    public long forwardModeHookFailures() {
        return forwardModeHookFailures.getCount();
    }

    /**
     * A group no other enumerator's gauges are in. Flink's groups return an open child of the same
     * name if there is one and a new child if the one there is closed; a group that is not one of
     * Flink's (a test's unregistered group) is taken as it is.
     */
    private static MetricGroup ownGroup(MetricGroup enumeratorGroup) {
        MetricGroup found = enumeratorGroup.addGroup(GROUP);
        if (!(found instanceof AbstractMetricGroup)) {
            return found;
        }
        // left by an enumerator of this coordinator that was not closed (yet): its gauges go,
        // this enumerator's take their names
        closeGroup(found);
        return enumeratorGroup.addGroup(GROUP);
    }

    private static void closeGroup(MetricGroup group) {
        if (group instanceof AbstractMetricGroup) {
            ((AbstractMetricGroup<?>) group).close();
        }
    }

    public void update(
            int backfilling,
            int cachingUp,
            int finished,
            int ended,
            int unconfirmed,
            OptionalLong forwardModeCheckpoint) {
        this.backfilling = backfilling;
        this.cachingUp = cachingUp;
        this.finished = finished;
        this.ended = ended;
        this.unconfirmed = unconfirmed;
        this.forwardModeCheckpoint = forwardModeCheckpoint;
    }

    /**
     * Removes this enumerator's gauges. Closing only this instance's own group, never a group
     * looked up by name, leaves a newer enumerator's gauges in place.
     */
    @Override
    public void close() {
        closeGroup(group);
    }
}
