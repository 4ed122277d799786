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
package dev.sourcebackfill.source;

import dev.sourcebackfill.source.spi.BackfillLog;

import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.api.connector.source.Boundedness;

import java.time.Duration;

import static org.apache.flink.util.Preconditions.checkArgument;

/**
 * Builds a {@link BackfillSource}. Every option is checked in {@link #build()}, which names the
 * option that is wrong (an {@link IllegalArgumentException}). Besides the settings every backfill
 * source builder has ({@link BackfillSourceBuilderBase}):
 *
 * <table>
 *   <tr><th>option</th><th>default</th><th>meaning</th></tr>
 *   <tr><td>{@link #setLog}</td><td>required</td><td>the log to read</td></tr>
 *   <tr><td>{@link #setBounded}</td><td>unbounded</td><td>stop each split at its stopping
 *       offset (the log must give one for every split: {@link BackfillLog#hasStoppingOffsets})</td></tr>
 *   <tr><td>{@link #setSplitDiscoveryInterval}</td><td>30 s</td><td>how often new splits are
 *       looked for; zero looks only at start</td></tr>
 * </table>
 */
@PublicEvolving
public final class BackfillSourceBuilder<T>
        extends BackfillSourceBuilderBase<T, BackfillSourceBuilder<T>> {

    private BackfillLog<T> log;
    private Boundedness boundedness = Boundedness.CONTINUOUS_UNBOUNDED;
    private Duration splitDiscoveryInterval = DEFAULT_DISCOVERY_INTERVAL;

    BackfillSourceBuilder() {}

    @Override
    protected BackfillSourceBuilder<T> self() {
        return this;
    }

    public BackfillSourceBuilder<T> setLog(BackfillLog<T> log) {
        this.log = log;
        return this;
    }

    /** Each split ends at the stopping offset its log gives it; the job then finishes. */
    public BackfillSourceBuilder<T> setBounded() {
        this.boundedness = Boundedness.BOUNDED;
        return this;
    }

    public BackfillSourceBuilder<T> setUnbounded() {
        this.boundedness = Boundedness.CONTINUOUS_UNBOUNDED;
        return this;
    }

    public BackfillSourceBuilder<T> setSplitDiscoveryInterval(Duration interval) {
        this.splitDiscoveryInterval = interval;
        return this;
    }

    /** Checks every option, naming the first that is wrong, then builds the source. */
    public BackfillSource<T> build() {
        sanityCheck();
        return buildSource(log, boundedness, splitDiscoveryInterval);
    }

    private void sanityCheck() {
        checkOption(log != null, "log", "setLog", "is not set");
        checkOption(
                log.getProducedType() != null, "log", "setLog", "gives no produced type: " + log);
        checkOption(
                boundedness != Boundedness.BOUNDED || log.hasStoppingOffsets(),
                "bounded",
                "setBounded",
                "needs a stopping offset for every split, and the log gives none: " + log);
        checkOption(
                splitDiscoveryInterval != null && !splitDiscoveryInterval.isNegative(),
                "splitDiscoveryInterval",
                "setSplitDiscoveryInterval",
                "must be zero or positive, was " + splitDiscoveryInterval);
        checkSharedSettings();
    }

    @Override
    protected void checkOption(boolean valid, String option, String setter, String problem) {
        checkArgument(valid, "BackfillSource option '%s' (%s) %s", option, setter, problem);
    }
}
