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

import dev.sourcebackfill.source.metrics.MetricGroups;
import dev.sourcebackfill.source.spi.LogReader;
import dev.sourcebackfill.source.spi.LogRecordCollector;

import org.apache.flink.annotation.Internal;
import org.apache.flink.metrics.MetricGroup;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetOutOfRangeException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.annotation.Nullable;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * One Kafka consumer, assigned the partitions it is given and sought to their offsets; used once as
 * the backfill consumer and once as the job's live consumer. A partition it was not given is not
 * read at all, which is how the live reader is paused while a partition backfills.
 *
 * <p>Records are handed on as the consumer returned them, bytes and all: the source deserializes
 * them in its task thread, as it emits them ({@link KafkaRecordDeserializer}), as Flink's Kafka
 * source does in its record emitter.
 *
 * <p>A partition whose offset to read is beyond its end (a start offset given ahead of the log, a
 * committed group offset ahead of it) has nothing to read yet: it is paused at that offset, and
 * resumed once the partition's end reached it, so that no record below it is ever read. An offset
 * below the partition's earliest offset (retention deleted records the source must read) is
 * reported to the collector as deleted offsets, which applies the source's gap policy.
 */
@Internal
final class KafkaPartitionReader implements LogReader<ConsumerRecord<byte[], byte[]>> {

    private static final Logger LOG = LoggerFactory.getLogger(KafkaPartitionReader.class);

    /** The reader's group for the consumers' metrics, as Flink's Kafka source names it. */
    static final String READER_METRIC_GROUP = "KafkaSourceReader";

    /** The live consumer's metrics: the group Flink's Kafka source registers its consumer's in. */
    static final String LIVE_CONSUMER_METRIC_GROUP = "KafkaConsumer";

    /** The backfill consumer's metrics; closed with the consumer (in forward mode). */
    static final String BACKFILL_CONSUMER_METRIC_GROUP = "KafkaBackfillConsumer";

    /** How often the end offsets of waiting partitions are looked up, at most. */
    private static final long END_CHECK_INTERVAL_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

    private final String role;
    private final KafkaConsumer<byte[], byte[]> consumer;
    private final Map<String, TopicPartition> assigned = new HashMap<>();

    /**
     * The split id of each assigned partition: a record's split id is looked up once per partition
     * of a poll, not built per record.
     */
    private final Map<TopicPartition, String> splitIds = new HashMap<>();

    /** Assigned partitions paused at an offset beyond their end -> that offset. */
    private final Map<TopicPartition, Long> waiting = new HashMap<>();

    /** Assigned partitions paused for watermark alignment; independent of {@link #waiting}. */
    private final Set<TopicPartition> alignmentPaused = new HashSet<>();

    /** The offset each partition was last said to wait for: one log line per wait. */
    private final Map<TopicPartition, Long> announced = new HashMap<>();

    private long nextEndCheckNanos;

    /** Where the consumer's metrics are registered; {@code null} if they are not. */
    @Nullable private final MetricGroup consumerMetrics;

    /**
     * @param consumerMetrics the group to register the consumer's own metrics in, one gauge per
     *     metric name as Flink's Kafka source does; {@code null} to register none
     */
    KafkaPartitionReader(
            String role, Properties consumerProperties, @Nullable MetricGroup consumerMetrics) {
        this.role = role;
        this.consumer = new KafkaConsumer<>(consumerProperties);
        this.consumerMetrics = consumerMetrics;
        if (consumerMetrics != null) {
            Set<String> names = new HashSet<>();
            consumer.metrics()
                    .forEach(
                            (name, metric) -> {
                                // one gauge per name: the first of the client-level metrics
                                if (names.add(name.name())) {
                                    consumerMetrics.gauge(name.name(), metric::metricValue);
                                }
                            });
        }
    }

    @Override
    public void addSplit(String splitId, long startOffset) {
        TopicPartition tp = KafkaSplitIds.parse(splitId);
        assigned.put(splitId, tp);
        splitIds.put(tp, splitId);
        assign();
        if (waiting.remove(tp) != null && !alignmentPaused.contains(tp)) {
            consumer.resume(List.of(tp));
        }
        consumer.seek(tp, startOffset);
    }

    @Override
    public void removeSplit(String splitId) {
        TopicPartition tp = assigned.remove(splitId);
        if (tp != null) {
            splitIds.remove(tp);
            waiting.remove(tp);
            alignmentPaused.remove(tp);
            assign();
        }
    }

    /**
     * Pauses partitions with the consumer's own pause, which keeps their positions (and the records
     * fetched ahead). A partition also waiting beyond its end is resumed only once both reasons are
     * gone.
     */
    @Override
    public void pauseOrResumeSplits(Collection<String> toPause, Collection<String> toResume) {
        List<TopicPartition> pause = new ArrayList<>(toPause.size());
        for (String splitId : toPause) {
            TopicPartition tp = assigned.get(splitId);
            if (tp != null && alignmentPaused.add(tp)) {
                pause.add(tp);
            }
        }
        List<TopicPartition> resume = new ArrayList<>(toResume.size());
        for (String splitId : toResume) {
            TopicPartition tp = assigned.get(splitId);
            if (tp != null && alignmentPaused.remove(tp) && !waiting.containsKey(tp)) {
                resume.add(tp);
            }
        }
        if (!pause.isEmpty()) {
            consumer.pause(pause);
        }
        if (!resume.isEmpty()) {
            consumer.resume(resume);
        }
    }

    /** Assigns the split's partitions; waiting and alignment-paused ones stay paused. */
    private void assign() {
        consumer.assign(assigned.values());
        if (!waiting.isEmpty()) {
            consumer.pause(waiting.keySet());
        }
        if (!alignmentPaused.isEmpty()) {
            consumer.pause(alignmentPaused);
        }
    }

    @Override
    public void poll(Duration maxWait, LogRecordCollector<ConsumerRecord<byte[], byte[]>> collector)
            throws IOException {
        if (assigned.isEmpty()) {
            return;
        }
        if (!waiting.isEmpty() && !resumeReachedPartitions()) {
            return; // woken up
        }
        ConsumerRecords<byte[], byte[]> records;
        try {
            records = consumer.poll(maxWait);
        } catch (WakeupException e) {
            return;
        } catch (OffsetOutOfRangeException e) {
            outOfRange(e, collector);
            return;
        }
        for (TopicPartition partition : records.partitions()) {
            String splitId = splitIds.get(partition);
            if (splitId == null) {
                continue; // no longer assigned: nobody reads the split from this reader
            }
            // by index: the list is the consumer's, wrapped unmodifiable; no iterator per partition
            List<ConsumerRecord<byte[], byte[]>> polled = records.records(partition);
            for (int i = 0, n = polled.size(); i < n; i++) {
                ConsumerRecord<byte[], byte[]> record = polled.get(i);
                collector.collect(splitId, record.offset(), record.timestamp(), record);
            }
        }
    }

    /**
     * The broker answered that offsets are out of range: beyond the partition's end, the partition
     * waits for them; below its earliest offset, records were deleted (retention passed the
     * reader): the collector is told, which applies the source's gap policy (it fails the job, or
     * the reader goes on at the earliest offset); in range again (the log grew since the fetch),
     * the consumer fetches again.
     */
    private void outOfRange(
            OffsetOutOfRangeException e,
            LogRecordCollector<ConsumerRecord<byte[], byte[]>> collector)
            throws IOException {
        Map<TopicPartition, Long> offsets = new HashMap<>(e.offsetOutOfRangePartitions());
        offsets.keySet().retainAll(assigned.values());
        if (offsets.isEmpty()) {
            return;
        }
        Map<TopicPartition, Long> earliest;
        Map<TopicPartition, Long> end;
        try {
            earliest = consumer.beginningOffsets(offsets.keySet());
            end = consumer.endOffsets(offsets.keySet());
        } catch (WakeupException wakeUp) {
            // the position is unchanged: the next poll fails the same way and decides then
            return;
        } catch (RuntimeException lookup) {
            throw new IOException(
                    String.format(
                            "Partition(s) %s: the %s consumer's offsets %s are out of range, and looking up the partitions' earliest and end offsets failed: %s",
                            offsets.keySet(), role, offsets, lookup.getMessage()),
                    e);
        }
        for (Map.Entry<TopicPartition, Long> entry : offsets.entrySet()) {
            TopicPartition tp = entry.getKey();
            long offset = entry.getValue();
            long first = earliest.getOrDefault(tp, -1L);
            long last = end.getOrDefault(tp, -1L);
            if (offset < first) {
                LOG.warn(
                        "Partition {}: the {} consumer must read from offset {}, which is no longer in the log (it starts at {} now: deleted by retention?)",
                        tp,
                        role,
                        offset,
                        first);
                collector.offsetsDeleted(splitIds.get(tp), offset, first);
                if (splitIds.containsKey(tp)) {
                    consumer.seek(tp, first);
                }
            } else if (last >= 0 && offset > last) {
                await(tp, offset, last);
            } else {
                LOG.debug(
                        "Partition {}: offset {} was out of range for the {} consumer but is in [{}, {}] now; fetching again",
                        tp,
                        offset,
                        role,
                        first,
                        last);
                consumer.seek(tp, offset);
            }
        }
    }

    /** Pauses a partition at an offset beyond its end until the end reaches it. */
    private void await(TopicPartition tp, long offset, long end) {
        consumer.seek(tp, offset);
        consumer.pause(List.of(tp));
        waiting.put(tp, offset);
        Long before = announced.put(tp, offset);
        if (before == null || before != offset) {
            LOG.info(
                    "Partition {}: the {} consumer waits until the partition reaches offset {} (its end offset is {} now); it reads nothing below that offset",
                    tp,
                    role,
                    offset,
                    end);
        }
    }

    /**
     * Resumes the waiting partitions whose end reached their offset; looks at most every 100 ms.
     *
     * @return {@code false} if a wake-up interrupted the look-up (meant for the poll)
     */
    private boolean resumeReachedPartitions() {
        long now = System.nanoTime();
        if (now - nextEndCheckNanos < 0) {
            return true;
        }
        nextEndCheckNanos = now + END_CHECK_INTERVAL_NANOS;
        Map<TopicPartition, Long> end;
        try {
            end = consumer.endOffsets(waiting.keySet());
        } catch (WakeupException e) {
            return false;
        } catch (TimeoutException e) {
            LOG.warn(
                    "Partitions {}: looking up their end offsets for the {} consumer timed out; trying again",
                    waiting.keySet(),
                    role);
            return true;
        }
        List<TopicPartition> reached = new ArrayList<>();
        for (Map.Entry<TopicPartition, Long> entry : waiting.entrySet()) {
            Long last = end.get(entry.getKey());
            if (last != null && last >= entry.getValue()) {
                reached.add(entry.getKey());
                LOG.info(
                        "Partition {} reached offset {} (its end offset is {} now): the {} consumer reads from there",
                        entry.getKey(),
                        entry.getValue(),
                        last,
                        role);
            }
        }
        for (TopicPartition tp : reached) {
            consumer.seek(tp, waiting.remove(tp));
        }
        reached.removeAll(alignmentPaused);
        if (!reached.isEmpty()) {
            consumer.resume(reached);
        }
        return true;
    }

    @Override
    public long position(String splitId) {
        TopicPartition tp = assigned.get(splitId);
        try {
            return consumer.position(tp);
        } catch (WakeupException e) {
            // a wake-up meant for poll; the position is local after a seek or a fetch
            return consumer.position(tp);
        }
    }

    @Override
    public long earliestOffset(String splitId) {
        TopicPartition tp = KafkaSplitIds.parse(splitId);
        try {
            return consumer.beginningOffsets(List.of(tp)).get(tp);
        } catch (WakeupException e) {
            return consumer.beginningOffsets(List.of(tp)).get(tp);
        }
    }

    /** The consumer's lag behind each assigned partition's end offset, from its last fetch. */
    @Override
    public OptionalLong pendingRecords() {
        long lag = 0;
        for (TopicPartition tp : assigned.values()) {
            if (!waiting.containsKey(tp)) {
                OptionalLong partitionLag = consumer.currentLag(tp);
                if (partitionLag.isPresent()) {
                    lag += Math.max(0, partitionLag.getAsLong());
                }
            }
        }
        return OptionalLong.of(lag);
    }

    @Override
    public void wakeUp() {
        consumer.wakeup();
    }

    @Override
    public void close() {
        try {
            consumer.close();
        } finally {
            MetricGroups.close(consumerMetrics);
        }
    }
}
