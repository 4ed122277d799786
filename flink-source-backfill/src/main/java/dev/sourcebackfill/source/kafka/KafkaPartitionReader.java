package dev.sourcebackfill.source.kafka;

import org.apache.flink.annotation.Internal;
import org.apache.flink.connector.kafka.source.reader.deserializer.KafkaRecordDeserializationSchema;
import org.apache.flink.util.Collector;

import dev.sourcebackfill.source.spi.LogReader;
import dev.sourcebackfill.source.spi.LogRecordCollector;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetOutOfRangeException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * One Kafka consumer, assigned the partitions it is given and sought to their offsets; used once
 * as the backfill consumer and once as the job's upstream consumer. A partition it was not given
 * is not read at all, which is how the upstream is paused while a partition backfills.
 *
 * <p>Records are deserialized here, in the fetcher thread. A deserializer may drop a record
 * (its offset becomes a hole) but must not make several of one: an offset is the unit of
 * exactly-once, and two records at one offset could be split by a checkpoint.
 */
@Internal
final class KafkaPartitionReader<T> implements LogReader<T> {

    private final String role;
    private final KafkaConsumer<byte[], byte[]> consumer;
    private final KafkaRecordDeserializationSchema<T> deserializer;
    private final Map<String, TopicPartition> assigned = new HashMap<>();
    private final List<T> values = new ArrayList<>(2);
    private final Collector<T> valueCollector =
            new Collector<>() {
                @Override
                public void collect(T record) {
                    values.add(record);
                }

                @Override
                public void close() {}
            };

    KafkaPartitionReader(
            String role, Properties consumerProperties, KafkaRecordDeserializationSchema<T> deserializer) {
        this.role = role;
        this.deserializer = deserializer;
        this.consumer = new KafkaConsumer<>(consumerProperties);
    }

    @Override
    public void addSplit(String splitId, long startOffset) {
        TopicPartition tp = KafkaSplitIds.parse(splitId);
        assigned.put(splitId, tp);
        consumer.assign(assigned.values());
        consumer.seek(tp, startOffset);
    }

    @Override
    public void removeSplit(String splitId) {
        if (assigned.remove(splitId) != null) {
            consumer.assign(assigned.values());
        }
    }

    @Override
    public void poll(Duration maxWait, LogRecordCollector<T> collector) throws IOException {
        if (assigned.isEmpty()) {
            return;
        }
        ConsumerRecords<byte[], byte[]> records;
        try {
            records = consumer.poll(maxWait);
        } catch (WakeupException e) {
            return;
        } catch (OffsetOutOfRangeException e) {
            throw outOfRange(e);
        }
        for (ConsumerRecord<byte[], byte[]> record : records) {
            values.clear();
            try {
                deserializer.deserialize(record, valueCollector);
            } catch (Exception e) {
                throw new IOException(
                        String.format(
                                "Failed to deserialize the record at offset %d of topic %s partition %d",
                                record.offset(), record.topic(), record.partition()),
                        e);
            }
            if (values.size() > 1) {
                throw new IOException(
                        String.format(
                                "The deserializer made %d records of the Kafka record at offset %d of topic %s partition %d; at most one per offset is supported",
                                values.size(), record.offset(), record.topic(), record.partition()));
            }
            if (!values.isEmpty()) {
                collector.collect(
                        KafkaSplitIds.of(new TopicPartition(record.topic(), record.partition())),
                        record.offset(),
                        record.timestamp(),
                        values.get(0));
            }
        }
    }

    private IOException outOfRange(OffsetOutOfRangeException e) {
        StringBuilder message = new StringBuilder();
        Map<TopicPartition, Long> earliest;
        try {
            earliest = consumer.beginningOffsets(e.offsetOutOfRangePartitions().keySet());
        } catch (RuntimeException lookup) {
            earliest = Map.of();
        }
        for (Map.Entry<TopicPartition, Long> missing : e.offsetOutOfRangePartitions().entrySet()) {
            message.append(
                    String.format(
                            "Partition %s: the %s consumer must read from offset %d, which is no longer in the log (it starts at %s now: deleted by retention?); the source does not skip records. ",
                            missing.getKey(),
                            role,
                            missing.getValue(),
                            earliest.getOrDefault(missing.getKey(), -1L)));
        }
        return new IOException(message.toString().trim(), e);
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

    @Override
    public void wakeUp() {
        consumer.wakeup();
    }

    @Override
    public void close() {
        consumer.close();
    }
}
