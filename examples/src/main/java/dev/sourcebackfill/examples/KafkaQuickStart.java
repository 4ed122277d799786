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
import dev.sourcebackfill.source.kafka.KafkaBackfill;
import dev.sourcebackfill.source.kafka.KafkaBackfillSourceBuilder;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.flink.connector.kafka.source.reader.deserializer.KafkaRecordDeserializationSchema;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.util.Collector;

import org.apache.kafka.clients.consumer.ConsumerRecord;

import java.nio.charset.StandardCharsets;

/**
 * Reads a Kafka topic: backfills each partition's history up to its end offset at the start, hands
 * it over to the job's consumer, and prints progress, every handover and the forward-mode
 * confirmation, like {@link QuickStart}.
 *
 * <p>{@code --bootstrap-servers host:9092 --topic orders [--group-id g] [--read-committed]
 * [--bounded] [--parallelism 2] [--checkpoint-interval-ms 1000]}
 */
public final class KafkaQuickStart {

    private KafkaQuickStart() {}

    public static void main(String[] args) throws Exception {
        JobArgs params = JobArgs.of(args);
        String servers = params.getRequired("bootstrap-servers");
        String topic = params.getRequired("topic");
        int parallelism = params.getInt("parallelism", 2);
        long checkpointInterval = params.getLong("checkpoint-interval-ms", 1_000);

        KafkaBackfillSourceBuilder<String> builder =
                KafkaBackfill.<String>sourceBuilder()
                        .setBootstrapServers(servers)
                        .setTopics(topic)
                        .setDeserializer(new Described())
                        .setStartingOffsets(OffsetsInitializer.earliest())
                        .setListener(new ConsoleProgress(System.currentTimeMillis()));
        if (params.has("group-id")) {
            builder.setGroupId(params.get("group-id")).setCommitOffsetsOnCheckpoint(true);
        }
        if (params.has("read-committed")) {
            builder.setProperty("isolation.level", "read_committed");
        }
        if (params.has("bounded")) {
            builder.setBounded(OffsetsInitializer.latest());
        }
        BackfillSource<String> source = builder.build();

        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(parallelism);
        env.enableCheckpointing(checkpointInterval);
        System.out.printf(
                "KafkaQuickStart: topic %s at %s, parallelism %d, checkpoints every %d ms%n",
                topic, servers, parallelism, checkpointInterval);
        env.fromSource(source, WatermarkStrategy.noWatermarks(), "kafka-backfill")
                .uid("kafka-backfill")
                .map(new RatePrinter())
                .name("progress")
                .sinkTo(new DiscardingSink<>())
                .name("discard");
        env.execute("flink-source-backfill Kafka quick start");
    }

    /** "topic-partition@offset value" for every record. */
    static final class Described implements KafkaRecordDeserializationSchema<String> {
        private static final long serialVersionUID = 1L;

        @Override
        public void deserialize(ConsumerRecord<byte[], byte[]> record, Collector<String> out) {
            String value =
                    record.value() == null
                            ? "null"
                            : new String(record.value(), StandardCharsets.UTF_8);
            out.collect(
                    record.topic()
                            + '-'
                            + record.partition()
                            + '@'
                            + record.offset()
                            + ' '
                            + value);
        }

        @Override
        public TypeInformation<String> getProducedType() {
            return Types.STRING;
        }
    }

    /** Prints each subtask's record count and rate once a second, and its latest record. */
    static final class RatePrinter extends RichMapFunction<String, String> {
        private static final long serialVersionUID = 1L;
        private transient long count;
        private transient long lastCount;
        private transient long lastPrint;

        @Override
        public void open(OpenContext openContext) {
            lastPrint = System.currentTimeMillis();
        }

        @Override
        public String map(String record) {
            count++;
            long now = System.currentTimeMillis();
            if (now - lastPrint >= 1_000) {
                System.out.printf(
                        "[subtask %d] %d records, %.0f records/s; latest %s%n",
                        getRuntimeContext().getTaskInfo().getIndexOfThisSubtask(),
                        count,
                        (count - lastCount) * 1000.0 / (now - lastPrint),
                        record.length() > 80 ? record.substring(0, 80) : record);
                lastPrint = now;
                lastCount = count;
            }
            return record;
        }
    }
}
