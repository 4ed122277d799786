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

import dev.sourcebackfill.source.PollLimiter;
import dev.sourcebackfill.source.control.BackfillControl;
import dev.sourcebackfill.source.split.BackfillSplit;

import org.apache.flink.annotation.Internal;

import javax.annotation.Nullable;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Limits the rate of one reader's backfill records with a {@link PollLimiter}; live records are
 * never counted. The fetcher asks for permission once per backfill poll, for the records that poll
 * emitted, and does not poll the backfill again until the permission is granted; the live reader is
 * polled meanwhile. That is one {@link PollLimiter#acquire(int)} per poll instead of one per record
 * (Flink's rate-limited readers acquire per record).
 *
 * <p>A source with a control file is steered while it runs ({@link #apply}): a control's rate
 * replaces the limiter the source was built with (a new {@link SteadyRateLimiter} per reader), and
 * a pause holds every backfill poll until the backfill is resumed. Such a reader does not poll the
 * backfill before the enumerator's first control came (sent when the reader registers), so that a
 * reader restored while the backfill is paused reads no history.
 *
 * <p>The limiter is not thread-safe: the fetcher thread acquires and announces splits, the task
 * thread announces completed checkpoints and applies controls; all go through this object's lock.
 */
@Internal
final class BackfillRateLimit {

    private static final CompletableFuture<Void> GRANTED = CompletableFuture.completedFuture(null);

    /** The limiter the source was built with. */
    private final PollLimiter builtLimiter;

    /** The limiter that grants polls now: the built one, or a control's rate. */
    private PollLimiter limiter;

    /** The control applied last; {@code null} until the first (then polls wait: see the class). */
    @Nullable private volatile BackfillControl control;

    /**
     * Completes when the backfill may poll as far as the control goes: not paused, a control had.
     */
    private volatile CompletableFuture<Void> running;

    /** The permission for the next backfill poll. */
    private volatile CompletableFuture<Void> permit = GRANTED;

    /** Completed by a wake-up of the fetcher while it waits for a permission. */
    private volatile CompletableFuture<Void> wakeUp = new CompletableFuture<>();

    /**
     * What the fetcher waits on: the permit or the wake-up, made once for each pair, so that waits
     * timing out again and again leave nothing behind on either (fetcher thread only).
     */
    @Nullable private CompletableFuture<Object> permitOrWakeUp;

    @Nullable private CompletableFuture<Void> waitedPermit;
    @Nullable private CompletableFuture<Void> waitedWakeUp;

    private BackfillRateLimit(PollLimiter limiter, boolean controlled) {
        this.builtLimiter = limiter;
        this.limiter = limiter;
        this.control = controlled ? null : BackfillControl.asBuilt();
        this.running = controlled ? new CompletableFuture<>() : GRANTED;
    }

    /** No limit: a limiter that grants everything at once. */
    static BackfillRateLimit unlimited() {
        return new BackfillRateLimit(PollLimiter.unlimited(), false);
    }

    static BackfillRateLimit of(PollLimiter limiter) {
        return new BackfillRateLimit(limiter, false);
    }

    /**
     * A limit steered by the enumerator's controls ({@link #apply}): no backfill poll before the
     * first.
     */
    static BackfillRateLimit controlled(PollLimiter limiter) {
        return new BackfillRateLimit(limiter, true);
    }

    /**
     * Applies the enumerator's control (task thread): the rate for the next permissions, and the
     * pause. A permission the old rate had not granted yet is dropped: the new rate applies at the
     * next poll.
     */
    void apply(BackfillControl next) {
        BackfillControl previous = control;
        if (next.equals(previous)) {
            return;
        }
        synchronized (this) {
            if (previous == null || !next.recordsPerSecond().equals(previous.recordsPerSecond())) {
                limiter =
                        next.recordsPerSecond().isPresent()
                                ? new SteadyRateLimiter(next.recordsPerSecond().getAsDouble())
                                : builtLimiter;
                permit = GRANTED;
            }
            control = next;
            if (next.paused()) {
                if (running.isDone()) {
                    running = new CompletableFuture<>();
                }
            } else {
                running.complete(null);
            }
        }
        wakeUp();
    }

    /** Whether the backfill is held by a pause (or by no control yet). */
    boolean isHeld() {
        return !running.isDone();
    }

    /**
     * Whether the backfill may be polled now.
     *
     * @throws IllegalStateException if the limiter failed to grant the permission: the fetch fails
     *     (the job fails over) rather than the backfill going on unlimited or waiting for ever
     */
    boolean mayPoll() {
        CompletableFuture<Void> current = permit;
        if (current.isCompletedExceptionally()) {
            try {
                current.join();
            } catch (RuntimeException e) {
                throw new IllegalStateException(
                        "The backfill rate limiter failed to grant the next poll", e.getCause());
            }
        }
        return current.isDone() && running.isDone();
    }

    /**
     * Asks for the permission to go on after a backfill poll that delivered {@code records}.
     *
     * @param onGranted run when a permission that was not granted at once is granted (from the
     *     limiter's thread): wakes a poll that waits for live records
     */
    void delivered(int records, Runnable onGranted) {
        if (records == 0) {
            return;
        }
        CompletableFuture<Void> next;
        synchronized (this) {
            next = limiter.acquire(records).toCompletableFuture();
            permit = next;
        }
        if (!next.isDone()) {
            next.thenRun(onGranted);
        }
    }

    /** Waits for the permission, at most {@code maxWait} or until {@link #wakeUp()}. */
    void awaitPermit(Duration maxWait) throws InterruptedException {
        CompletableFuture<Void> held = running;
        CompletableFuture<Void> waiting = held.isDone() ? permit : held;
        if (waiting.isDone()) {
            return;
        }
        CompletableFuture<Void> woken = wakeUp;
        if (permitOrWakeUp == null || waitedPermit != waiting || waitedWakeUp != woken) {
            permitOrWakeUp = CompletableFuture.anyOf(waiting, woken);
            waitedPermit = waiting;
            waitedWakeUp = woken;
        }
        try {
            permitOrWakeUp.get(maxWait.toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException | ExecutionException e) {
            // timed out: the fetcher looks at its splits and comes back; a failed permission is
            // the limiter's to report when it is asked again
        }
        if (woken.isDone()) {
            wakeUp = new CompletableFuture<>();
        }
    }

    /** Ends a wait for a permission; from any thread. */
    void wakeUp() {
        wakeUp.complete(null);
    }

    synchronized void notifyAddingSplit(BackfillSplit split) {
        limiter.splitAdded(split);
    }

    synchronized void notifyCheckpointComplete(long checkpointId) {
        limiter.checkpointComplete(checkpointId);
    }
}
