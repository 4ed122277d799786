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
package dev.sourcebackfill.source.iceberg;

import dev.sourcebackfill.source.iceberg.IcebergTestTables.Kind;
import dev.sourcebackfill.source.kafka.KafkaBackfill;
import dev.sourcebackfill.source.kafka.KafkaBackfillSourceBuilder;
import dev.sourcebackfill.source.kafka.KafkaTestEnvironment;
import dev.sourcebackfill.source.testutils.HistoryBeforeKafkaJob;
import dev.sourcebackfill.source.testutils.RecordPosition;

import org.apache.flink.api.common.serialization.SimpleStringSchema;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;

import org.apache.iceberg.Table;
import org.apache.iceberg.data.Record;
import org.apache.kafka.clients.producer.ProducerRecord;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.LongPredicate;

/**
 * What the Iceberg adapter's ITCases ({@link IcebergBackfillTableReadITCase}, {@link
 * IcebergBackfillOrderITCase}) share: the topic on their test class's broker, the table's rows, the
 * source over both, and the job that checks it. The table's rows carry values {@code
 * T|partition|offset}, the topic's records {@code K|partition|offset}.
 *
 * <p>One per test class, over the class's broker:
 *
 * <pre>{@code
 * @RegisterExtension static final KafkaTestEnvironment KAFKA = new KafkaTestEnvironment();
 * private static final IcebergBackfillJobs JOBS = new IcebergBackfillJobs(KAFKA);
 * }</pre>
 *
 * <p>What the jobs share across test classes ({@code PartitionChecker}'s progress, {@code
 * FailOnce}'s flags) is keyed by each test's random run name, and restarts by job id in the class's
 * own {@code RestartCounter}: two classes in one JVM, one after the other, or in two JVMs side by
 * side, do not meet.
 */
final class IcebergBackfillJobs {

    /** Values "T|partition|offset" from the table, "K|partition|offset" from the topic. */
    static final HistoryBeforeKafkaJob JOB =
            new HistoryBeforeKafkaJob("table-and-topic", RecordPosition.delimited("T"), false);

    private final KafkaTestEnvironment kafka;

    IcebergBackfillJobs(KafkaTestEnvironment kafka) {
        this.kafka = kafka;
    }

    /** The topic: partitions' records {@code K|p|o} for offsets [0, ends[p]). */
    String topic(String name, long... ends) throws Exception {
        return topicNamed(name + "-" + UUID.randomUUID(), ends);
    }

    /** The same, under the given name. */
    String topicNamed(String topic, long... ends) throws Exception {
        kafka.createTopic(topic, ends.length);
        long most = 0;
        for (long end : ends) {
            most = Math.max(most, end);
        }
        kafka.produce(
                ends.length,
                0,
                most,
                (p, o) ->
                        o < ends[p]
                                ? new ProducerRecord<>(topic, p, "k" + o, "K|" + p + "|" + o)
                                : null);
        return topic;
    }

    /** Rows {@code T|p|o} of the partition's offsets [from, to) that {@code keep} keeps. */
    static List<Record> rows(
            Kind kind,
            Table table,
            String topic,
            int partition,
            long from,
            long to,
            LongPredicate keep) {
        List<Record> rows = new ArrayList<>();
        for (long o = from; o < to; o++) {
            if (keep.test(o)) {
                rows.add(
                        IcebergTestTables.row(
                                kind,
                                table.schema(),
                                topic,
                                partition,
                                o,
                                "T|" + partition + "|" + o));
            }
        }
        return rows;
    }

    static List<Record> rows(
            Kind kind, Table table, String topic, int partition, long from, long to) {
        return rows(kind, table, topic, partition, from, to, o -> true);
    }

    IcebergBackfillSourceBuilder<String> builder(
            String topic, Map<String, String> catalog, String table, Kind kind) {
        return builder(topic, catalog, table, kind, true);
    }

    /** The source; bounded at the topic's end at the start, or unbounded. */
    IcebergBackfillSourceBuilder<String> builder(
            String topic, Map<String, String> catalog, String table, Kind kind, boolean bounded) {
        KafkaBackfillSourceBuilder<String> live =
                KafkaBackfill.<String>sourceBuilder()
                        .setBootstrapServers(kafka.bootstrapServers())
                        .setTopics(topic)
                        .setValueOnlyDeserializer(new SimpleStringSchema())
                        .setStartingOffsets(OffsetsInitializer.earliest());
        if (bounded) {
            live.setBounded(OffsetsInitializer.latest());
        }
        return IcebergBackfill.<String>sourceBuilder()
                .setCatalog("test", catalog)
                .setTable(table)
                .setLayout(kind.layout)
                .setMaxRecordsPerPoll(100)
                .setLive(live);
    }
}
