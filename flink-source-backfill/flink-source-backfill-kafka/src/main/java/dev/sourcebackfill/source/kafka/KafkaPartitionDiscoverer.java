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

import dev.sourcebackfill.source.OffsetGapPolicy;
import dev.sourcebackfill.source.spi.DiscoveredSplit;
import dev.sourcebackfill.source.spi.LogSplitDiscoverer;

import org.apache.flink.annotation.Internal;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.flink.connector.kafka.source.enumerator.subscriber.KafkaSubscriber;
import org.apache.flink.util.ExceptionUtils;

import org.apache.kafka.clients.admin.AdminClient;
import org.apache.kafka.clients.consumer.OffsetResetStrategy;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Lists the partitions of the selected topics, as Flink's Kafka source does: its {@link
 * KafkaSubscriber} asks the admin client for them. At the job's first start each partition is
 * backfilled from its starting offset up to its end offset at that moment (the last stable offset
 * under {@code read_committed}); a start beyond the end leaves nothing to backfill, and the live
 * reader waits until the partition reaches it. A partition found later is read by the live reader
 * from its earliest offset.
 *
 * <p>A bounded source reads the partitions and stopping offsets fixed at its first start, as
 * Flink's {@code KafkaSource} does: it discovers partitions only in the initial discovery. A later
 * discovery (and the first discovery of an enumerator restored from a checkpoint or savepoint,
 * which never saw the partitions) returns nothing, so that a restored job ends where the first run
 * would have, even if partitions were added meanwhile.
 */
@Internal
final class KafkaPartitionDiscoverer implements LogSplitDiscoverer {

    private static final Logger LOG = LoggerFactory.getLogger(KafkaPartitionDiscoverer.class);

    private final KafkaClientProperties properties;
    private final KafkaSubscriber subscriber;

    /** The topics, for messages: {@code [a, b]} or {@code matching <pattern>}. */
    private final String topics;

    private final OffsetsInitializer startingOffsets;

    /** {@code null} if unbounded. */
    private final OffsetsInitializer stoppingOffsets;

    private final String groupId;
    private final OffsetGapPolicy gapPolicy;
    private final Set<TopicPartition> seen = new HashSet<>();
    private AdminClient admin;
    private boolean discoveredOnce;
    private boolean announcedFixedPartitions;

    KafkaPartitionDiscoverer(
            KafkaClientProperties properties,
            KafkaSubscriber subscriber,
            String topics,
            OffsetsInitializer startingOffsets,
            OffsetsInitializer stoppingOffsets,
            String groupId,
            OffsetGapPolicy gapPolicy) {
        this.properties = properties;
        this.subscriber = subscriber;
        this.topics = topics;
        this.startingOffsets = startingOffsets;
        this.stoppingOffsets = stoppingOffsets;
        this.groupId = groupId;
        this.gapPolicy = gapPolicy;
    }

    @Override
    public List<DiscoveredSplit> discoverSplits(boolean initial) {
        if (!initial && stoppingOffsets != null) {
            discoveredOnce = true;
            if (!announcedFixedPartitions) {
                announcedFixedPartitions = true;
                LOG.info(
                        "Bounded Kafka source over topics {}: it reads the partitions and stopping offsets fixed at the job's first start; no partition discovery after that (partitions added since are not read)",
                        topics);
            }
            return List.of();
        }
        if (admin == null) {
            admin = AdminClient.create(properties.admin("enumerator"));
        }
        String servers = properties.bootstrapServers();
        long timeout = properties.apiTimeoutMs();
        List<TopicPartition> fresh = new ArrayList<>();
        for (TopicPartition tp : subscribedPartitions(servers)) {
            if (seen.add(tp)) {
                fresh.add(tp);
            }
        }
        discoveredOnce = true;
        if (fresh.isEmpty()) {
            return List.of();
        }
        KafkaOffsetsResolver resolver =
                new KafkaOffsetsResolver(
                        admin, properties.isolationLevel(), groupId, servers, timeout);
        Map<TopicPartition, Long> beginning = resolver.beginningOffsets(fresh);
        List<DiscoveredSplit> splits = new ArrayList<>(fresh.size());
        if (!initial) {
            for (TopicPartition tp : fresh) {
                LOG.info(
                        "New Kafka partition {}: read by the live reader from its earliest offset {}",
                        tp,
                        beginning.get(tp));
                splits.add(DiscoveredSplit.readByLive(KafkaSplitIds.of(tp), beginning.get(tp)));
            }
            return splits;
        }
        Map<TopicPartition, Long> start = resolver.resolve(startingOffsets, fresh, "starting");
        Map<TopicPartition, Long> end = resolver.endOffsets(fresh);
        Map<TopicPartition, Long> stop =
                stoppingOffsets == null
                        ? null
                        : resolver.resolve(stoppingOffsets, fresh, "stopping");
        for (TopicPartition tp : fresh) {
            long from = startBelowLogStart(tp, start.get(tp), beginning.get(tp), end.get(tp));
            // a start beyond the end: nothing to backfill, the live reader waits for that offset
            boolean beyondEnd = from > end.get(tp);
            long target = Math.max(from, end.get(tp));
            if (stop != null) {
                long until = stop.get(tp);
                if (until < from) {
                    // as Flink's Kafka source: nothing of the partition is read
                    LOG.info(
                            "Kafka partition {}: stopping offset {} is below its starting offset {}: nothing of it is read",
                            tp,
                            until,
                            from);
                    until = from;
                }
                target = Math.min(target, until);
                splits.add(
                        DiscoveredSplit.backfilled(KafkaSplitIds.of(tp), from, target)
                                .withStoppingOffset(until)
                                .withLogEndOffset(end.get(tp)));
            } else {
                splits.add(
                        DiscoveredSplit.backfilled(KafkaSplitIds.of(tp), from, target)
                                .withLogEndOffset(end.get(tp)));
            }
            if (beyondEnd) {
                LOG.info(
                        "Kafka partition {}: start offset {} is beyond its end offset {}: nothing to backfill; the live reader waits until the partition reaches offset {} and reads from there{}",
                        tp,
                        from,
                        end.get(tp),
                        from,
                        stop != null ? ", stops at " + stop.get(tp) : "");
            } else {
                LOG.info(
                        "Kafka partition {}: backfill offsets [{}, {}){}",
                        tp,
                        from,
                        target,
                        stop != null ? ", stops at " + stop.get(tp) : "");
            }
        }
        return splits;
    }

    /**
     * The subscriber's partitions, in topic and partition order. Its failures name what is wrong: a
     * topic that does not exist, or the servers that did not answer (the subscriber's admin calls
     * time out after {@code default.api.timeout.ms}).
     */
    private List<TopicPartition> subscribedPartitions(String servers) {
        List<TopicPartition> partitions;
        try {
            partitions = new ArrayList<>(subscriber.getSubscribedTopicPartitions(admin));
        } catch (RuntimeException e) {
            if (Thread.currentThread().isInterrupted()) {
                throw new KafkaSourceException(
                        "Interrupted while asking Kafka for the partitions of topics " + topics, e);
            }
            Throwable unknown =
                    ExceptionUtils.findThrowable(e, UnknownTopicOrPartitionException.class)
                            .orElse(null);
            if (unknown != null) {
                throw new KafkaSourceException(
                        String.format(
                                "Topic(s) %s: at least one does not exist on the Kafka cluster at %s (%s)",
                                topics, servers, unknown.getMessage()),
                        unknown);
            }
            Throwable cause =
                    ExceptionUtils.findThrowable(
                                    e, org.apache.kafka.common.errors.TimeoutException.class)
                            .map(Throwable.class::cast)
                            // Flink's subscriber wraps the admin call's ExecutionException
                            .orElse(
                                    e.getCause() == null
                                            ? e
                                            : ExceptionUtils.stripExecutionException(e.getCause()));
            throw KafkaAdminCalls.failed(cause, "the partitions of topics " + topics, servers);
        }
        partitions.sort(
                Comparator.comparing(TopicPartition::topic)
                        .thenComparingInt(TopicPartition::partition));
        return partitions;
    }

    /**
     * Where a partition whose starting offset is below its log's start begins: a reset strategy the
     * starting offsets carry ({@link OffsetsInitializer#getAutoOffsetResetStrategy()}, as Flink's
     * Kafka source gives its consumer) moves it to the earliest or the latest offset; with none,
     * the offsets in between are a gap: under {@link OffsetGapPolicy#SKIP} the split starts at its
     * starting offset and the backfill reader skips them (warned and counted), else the job fails
     * here.
     */
    private long startBelowLogStart(TopicPartition tp, long from, long beginning, long end) {
        if (from >= beginning) {
            return from;
        }
        OffsetResetStrategy reset = startingOffsets.getAutoOffsetResetStrategy();
        if (reset == OffsetResetStrategy.EARLIEST || reset == OffsetResetStrategy.LATEST) {
            long to = reset == OffsetResetStrategy.EARLIEST ? beginning : end;
            LOG.info(
                    "Kafka partition {}: starting offset {} is below the log's start {} now; the starting offsets' reset strategy {} starts it at {}",
                    tp,
                    from,
                    beginning,
                    reset,
                    to);
            return to;
        }
        if (gapPolicy == OffsetGapPolicy.SKIP) {
            return from;
        }
        throw new KafkaSourceException(
                String.format(
                        "Partition %s: the backfill would start at offset %d, but the log starts at %d now (deleted by retention?); records %d..%d are lost. Starting offsets with a reset strategy (e.g. OffsetsInitializer.committedOffsets(OffsetResetStrategy.EARLIEST), or properties.auto.offset.reset in SQL) start at the earliest offset instead, OffsetGapPolicy.SKIP skips the gap",
                        tp, from, beginning, from, beginning - 1));
    }

    /**
     * An unbounded source may always find more partitions; a bounded one only until its first
     * discovery, initial or not (a restored enumerator's first discovery returns nothing and ends
     * discovery too, so that its readers are told that no more splits come).
     */
    @Override
    public boolean mayDiscoverMoreSplits() {
        return stoppingOffsets == null || !discoveredOnce;
    }

    @Override
    public void close() {
        if (admin != null) {
            admin.close();
            admin = null;
        }
    }
}
