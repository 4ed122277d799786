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
package dev.sourcebackfill.examples;

import dev.sourcebackfill.source.BackfillSource;
import dev.sourcebackfill.source.iceberg.IcebergBackfill;
import dev.sourcebackfill.source.iceberg.IcebergLayout;
import dev.sourcebackfill.source.kafka.KafkaBackfill;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.flink.connector.kafka.source.reader.deserializer.KafkaRecordDeserializationSchema;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;

import org.apache.kafka.clients.consumer.ConsumerRecord;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

/**
 * The end-to-end check of the Iceberg adapter: a bounded job that reads each partition's history
 * from an Iceberg table in Redpanda's layout through a REST (or JDBC) catalog (rows whose value is
 * {@code table|<partition>|<offset>}), then the live topic (to its end at start; values {@code
 * v<offset>}, as {@code InProcessKafka} writes them), and checks per partition, in keyed
 * checkpointed state, that every offset arrives exactly once. It writes {@code COMPLETE <p> <count>
 * expected <count> table <n>} per partition ({@code n} of them from the table) and {@code VIOLATION
 * ...} lines to an exactly-once file sink.
 *
 * <p>Unlike {@link ArchiveCheckJob}'s checker, this one does not want each partition's offsets in
 * order: the table's history is read in chunks, in parallel, while each partition is already live
 * (docs/iceberg.md, "Reading the table"). It checks what the source does promise: each offset once;
 * the topic's records of a partition in offset order, the first of them right after the table's
 * highest offset of it (the handover); every value the row or record of its own partition and
 * offset.
 *
 * <p>Options: {@code --catalog-uri URI} (and {@code --catalog-type rest}, or {@code jdbc} with a
 * {@code jdbc:} URI, whose driver this jar holds: SQLite's; {@code --catalog-name lake}, the name a
 * JDBC catalog keeps its tables under; {@code --catalog-warehouse DIR}) {@code --table NS.T
 * --bootstrap-servers HOST:PORT --topic T --records N} (offsets per partition) {@code --output DIR
 * --backfill-rate-per-subtask 0} (table rows per second per reader, the source's own backfill rate
 * limit; the topic is not throttled) {@code --chunk-size 1000000 --max-records-per-poll 10000}
 * (table rows one fetch reads: the rate limit is asked once per fetch, so smaller fetches make the
 * read steadier) {@code --checkpoint-interval-ms 1000}; {@code --snapshot-tag NAME} keeps the
 * pinned snapshot with an Iceberg tag of that name until forward mode (max age a day); {@code
 * --ordered} reads in ordered mode (no chunks: {@code --chunk-size} is ignored) and the checker
 * then also wants each partition's offsets in order, table rows first: every offset the previous
 * plus one, from 0.
 */
public final class IcebergCheckJob {

    private IcebergCheckJob() {}

    public static void main(String[] args) throws Exception {
        JobArgs params = JobArgs.of(args);
        long records = params.getLong("records");
        StreamExecutionEnvironment env = CheckJobs.environment(params);

        double rate = params.getDouble("backfill-rate-per-subtask", 0);
        boolean ordered = params.has("ordered");
        var builder =
                IcebergBackfill.<String>sourceBuilder()
                        .setCatalog(params.get("catalog-name", "lake"), catalog(params))
                        .setTable(params.getRequired("table"))
                        .setLayout(IcebergLayout.redpanda())
                        .setMaxRecordsPerPoll(params.getInt("max-records-per-poll", 10_000))
                        .setLive(
                                KafkaBackfill.<String>sourceBuilder()
                                        .setBootstrapServers(
                                                params.getRequired("bootstrap-servers"))
                                        .setTopics(params.getRequired("topic"))
                                        .setDeserializer(new WithOrigin())
                                        .setBounded(OffsetsInitializer.latest())
                                        .setListener(
                                                new ConsoleProgress(System.currentTimeMillis())));
        if (rate > 0) {
            builder.setBackfillRecordsPerSecond(rate);
        }
        if (ordered) {
            builder.setOrdered(true);
        } else {
            builder.setBackfillChunkSize(params.getLong("chunk-size", 1_000_000));
        }
        if (params.has("snapshot-tag")) {
            builder.setSnapshotTag(params.get("snapshot-tag"), Duration.ofDays(1));
        }
        BackfillSource<String> source = builder.build();
        DataStream<String> stream =
                env.fromSource(source, WatermarkStrategy.noWatermarks(), "iceberg-and-topic")
                        .uid("iceberg-and-topic");
        CheckJobs.writeAndRun(
                env,
                params,
                stream.keyBy(value -> value.split("\\|")[1])
                        .process(new Checker(records, ordered))
                        .uid("checker"),
                "flink-source-backfill iceberg check");
    }

    /**
     * Iceberg's catalog properties: {@code type} from {@code --catalog-type} ({@code rest} by
     * default, or {@code jdbc}: the driver must be in this jar), {@code uri} from {@code
     * --catalog-uri}, {@code warehouse} from {@code --catalog-warehouse} if given.
     */
    static Map<String, String> catalog(JobArgs params) {
        Map<String, String> properties = new HashMap<>();
        properties.put("type", params.get("catalog-type", "rest"));
        properties.put("uri", params.getRequired("catalog-uri"));
        if (params.has("catalog-warehouse")) {
            properties.put("warehouse", params.get("catalog-warehouse"));
        }
        return properties;
    }

    /**
     * {@code <origin>|<partition>|<offset>}: origin {@code table} for a table row's value {@code
     * table|p|o}, {@code topic} for the topic's {@code v<o>}, else {@code bad} (a value that is not
     * its own partition's and offset's). The same deserializer makes the values of both: the
     * table's rows come to it as Kafka records made of the row's columns.
     */
    static final class WithOrigin implements KafkaRecordDeserializationSchema<String> {
        private static final long serialVersionUID = 1L;

        @Override
        public void deserialize(ConsumerRecord<byte[], byte[]> record, Collector<String> out) {
            String value =
                    record.value() == null
                            ? ""
                            : new String(record.value(), StandardCharsets.UTF_8);
            String position = record.partition() + "|" + record.offset();
            String origin;
            if (value.equals("table|" + position)) {
                origin = "table";
            } else if (value.equals("v" + record.offset())) {
                origin = "topic";
            } else {
                origin = "bad";
            }
            out.collect(origin + "|" + position);
        }

        @Override
        public TypeInformation<String> getProducedType() {
            return Types.STRING;
        }
    }

    /**
     * Keyed by partition: every offset in [0, records) exactly once (a bitmap in blocks of 1,024
     * offsets), the topic's records in offset order from the first offset after the table's highest
     * of the partition; in order, each offset the previous plus one from 0 ({@code inOrder}).
     */
    static final class Checker extends KeyedProcessFunction<String, String, String> {
        private static final int BLOCK_BITS = 1024;

        private final long records;
        private final boolean inOrder;
        private transient ValueState<Long> last;
        private transient MapState<Long, long[]> seen;
        private transient ValueState<Long> count;
        private transient ValueState<Long> fromTable;
        private transient ValueState<Long> highestFromTable;
        private transient ValueState<Long> firstFromTopic;
        private transient ValueState<Long> lastFromTopic;

        Checker(long records, boolean inOrder) {
            this.records = records;
            this.inOrder = inOrder;
        }

        @Override
        public void open(OpenContext openContext) {
            seen =
                    getRuntimeContext()
                            .getMapState(
                                    new MapStateDescriptor<>(
                                            "seen",
                                            Types.LONG,
                                            PrimitiveArrayTypeInfo.LONG_PRIMITIVE_ARRAY_TYPE_INFO));
            count = getRuntimeContext().getState(new ValueStateDescriptor<>("count", Types.LONG));
            last = getRuntimeContext().getState(new ValueStateDescriptor<>("last", Types.LONG));
            fromTable =
                    getRuntimeContext()
                            .getState(new ValueStateDescriptor<>("fromTable", Types.LONG));
            highestFromTable =
                    getRuntimeContext()
                            .getState(new ValueStateDescriptor<>("highestFromTable", Types.LONG));
            firstFromTopic =
                    getRuntimeContext()
                            .getState(new ValueStateDescriptor<>("firstFromTopic", Types.LONG));
            lastFromTopic =
                    getRuntimeContext()
                            .getState(new ValueStateDescriptor<>("lastFromTopic", Types.LONG));
        }

        @Override
        public void processElement(String value, Context ctx, Collector<String> out)
                throws Exception {
            String[] parts = value.split("\\|");
            String origin = parts[0];
            String partition = parts[1];
            long offset = Long.parseLong(parts[2]);
            if (origin.equals("bad")) {
                out.collect(
                        "VIOLATION partition "
                                + partition
                                + " offset "
                                + offset
                                + ": a value neither the table's nor the topic's for it");
                return;
            }
            if (offset < 0 || offset >= records) {
                out.collect(
                        "VIOLATION partition "
                                + partition
                                + " offset "
                                + offset
                                + " from the "
                                + origin
                                + ": outside [0, "
                                + records
                                + ")");
                return;
            }
            long block = offset / BLOCK_BITS;
            int bit = (int) (offset % BLOCK_BITS);
            long[] bits = seen.get(block);
            bits = bits == null ? new long[BLOCK_BITS / 64] : bits.clone();
            if ((bits[bit / 64] & (1L << (bit % 64))) != 0) {
                out.collect(
                        "VIOLATION partition "
                                + partition
                                + " offset "
                                + offset
                                + " from the "
                                + origin
                                + ": a duplicate");
                return;
            }
            bits[bit / 64] |= 1L << (bit % 64);
            seen.put(block, bits);
            long expectedNext = last.value() == null ? 0 : last.value() + 1;
            if (inOrder && offset != expectedNext) {
                out.collect(
                        "VIOLATION partition "
                                + partition
                                + " offset "
                                + offset
                                + " from the "
                                + origin
                                + ": out of order, expected "
                                + expectedNext);
            }
            last.update(offset);
            long n = (count.value() == null ? 0 : count.value()) + 1;
            long t = (fromTable.value() == null ? 0 : fromTable.value());
            count.update(n);
            if (origin.equals("table")) {
                fromTable.update(++t);
                Long highest = highestFromTable.value();
                highestFromTable.update(highest == null ? offset : Math.max(highest, offset));
            } else {
                Long last = lastFromTopic.value();
                if (last == null) {
                    firstFromTopic.update(offset);
                } else if (offset != last + 1) {
                    out.collect(
                            "VIOLATION partition "
                                    + partition
                                    + " topic offset "
                                    + offset
                                    + " after "
                                    + last);
                }
                lastFromTopic.update(offset);
            }
            if (n == records) {
                // the handover rule: the topic from the table's highest offset of the partition
                // plus one, from 0 (the starting offsets) for a partition the table has no rows of
                Long first = firstFromTopic.value();
                Long highest = highestFromTable.value();
                long handover = highest == null ? 0 : highest + 1;
                if (first != null && first != handover) {
                    out.collect(
                            "VIOLATION partition "
                                    + partition
                                    + ": the topic's first offset "
                                    + first
                                    + ", expected "
                                    + handover);
                }
                out.collect(
                        "COMPLETE " + partition + " " + n + " expected " + records + " table " + t);
            }
        }
    }
}
