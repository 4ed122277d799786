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
package dev.sourcebackfill.source.kafka;

import dev.sourcebackfill.source.BackfillSource;
import dev.sourcebackfill.source.BackfillSourceBuilderBase;

import org.apache.flink.annotation.PublicEvolving;

import javax.annotation.Nullable;

import java.util.List;

import static org.apache.flink.util.Preconditions.checkArgument;

/**
 * The builder of a source whose history comes from another store in front of live Kafka topics
 * ({@link HistoryBeforeKafkaLog}): the live topics as a Kafka source builder ({@link #setLive}),
 * the records one fetch of the history reads ({@link #setMaxRecordsPerPoll}), and {@link #build()}:
 * every option checked ({@link #checkOptions}, then the shared settings); the shared settings set
 * here win over the live builder's; then the Kafka source is built with the store's log in front of
 * the topics ({@link #createLog}).
 *
 * @param <B> the builder's own type, which the setters return
 */
@PublicEvolving
public abstract class HistoryBeforeKafkaSourceBuilder<
                T, B extends HistoryBeforeKafkaSourceBuilder<T, B>>
        extends BackfillSourceBuilderBase<T, B> {

    /** The records one fetch of the history reads by default, over all splits of a reader. */
    public static final int DEFAULT_MAX_RECORDS_PER_POLL = 10_000;

    /** How errors name the source: "Archive backfill source". */
    private final String sourceName;

    @Nullable private KafkaBackfillSourceBuilder<T> live;
    private int maxRecordsPerPoll = DEFAULT_MAX_RECORDS_PER_POLL;

    /**
     * @param sourceName how errors name the source: "Archive backfill source"
     */
    protected HistoryBeforeKafkaSourceBuilder(String sourceName) {
        this.sourceName = sourceName;
    }

    /** The live topics; their starting offsets apply to partitions that have no history. */
    public B setLive(KafkaBackfillSourceBuilder<T> live) {
        this.live = live;
        return self();
    }

    /** The records one fetch of the history reads, over all splits of a reader. */
    public B setMaxRecordsPerPoll(int maxRecordsPerPoll) {
        this.maxRecordsPerPoll = maxRecordsPerPoll;
        return self();
    }

    /** Checks every option, naming the first that is wrong, then builds the source. */
    public final BackfillSource<T> build() {
        checkOptions();
        // what a store's checks left out, the template does not: the live builder and the poll
        checkLive();
        checkMaxRecordsPerPoll();
        checkSharedSettings();
        // the settings set here win over the live builder's
        copySetSettingsTo(live);
        prepareLive(live);
        return live.build(kafka -> createLog(new LiveTopics<>(kafka)));
    }

    /**
     * Checks the store's options with {@link #checkOption}, and where it names them among its own,
     * the live builder ({@link #checkLive}) and the records per poll ({@link
     * #checkMaxRecordsPerPoll}): the first wrong option in that order is the one named.
     */
    protected abstract void checkOptions();

    /** Checks that the live builder is set, and returns it. */
    protected final KafkaBackfillSourceBuilder<T> checkLive() {
        checkOption(live != null, "live", "setLive", "is not set");
        return live;
    }

    protected final void checkMaxRecordsPerPoll() {
        checkOption(
                maxRecordsPerPoll >= 1,
                "max records per poll",
                "setMaxRecordsPerPoll",
                "must be at least 1, was " + maxRecordsPerPoll);
    }

    /** Sets what the store needs of the live builder, after the shared settings were copied. */
    protected void prepareLive(KafkaBackfillSourceBuilder<T> live) {}

    /** The store's log in front of the live topics, once every option is checked. */
    protected abstract HistoryBeforeKafkaLog<T> createLog(LiveTopics<T> topics);

    /** The records one fetch of the history reads. */
    protected final int maxRecordsPerPoll() {
        return maxRecordsPerPoll;
    }

    /** The live builder's topic list (empty for a topic pattern). */
    protected final List<String> liveTopicList() {
        return live == null ? List.of() : live.topics();
    }

    @Override
    protected final void checkOption(boolean valid, String option, String setter, String problem) {
        checkArgument(valid, "%s option '%s' (%s) %s", sourceName, option, setter, problem);
    }
}
