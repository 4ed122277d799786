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
import dev.sourcebackfill.source.archive.ArchiveBackfill;
import dev.sourcebackfill.source.archive.ArchiveBackfillSourceBuilder;
import dev.sourcebackfill.source.archive.ArchiveFormat;
import dev.sourcebackfill.source.kafka.KafkaBackfill;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.serialization.SimpleStringSchema;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.flink.connector.kafka.source.reader.deserializer.KafkaRecordDeserializationSchema;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;

import org.apache.kafka.clients.consumer.ConsumerRecord;

import java.time.Duration;

/**
 * The end-to-end check of the archive adapter: a bounded job that reads each partition's history
 * from an archive of lines {@code archive|<partition>|<offset>} (the Kafka Connect layout) and then
 * the live topic (to its end at start), and checks per partition, in keyed checkpointed state, that
 * every offset arrives exactly once and in order, the archived ones from the archive. It writes
 * {@code COMPLETE <p> <count> expected <count> archive <n>} per partition and {@code VIOLATION ...}
 * lines to an exactly-once file sink.
 *
 * <p>Options: {@code --archive URI --bootstrap-servers HOST:PORT --topic T --records N} (offsets
 * per partition) {@code --output DIR --max-rate-per-subtask 0 --checkpoint-interval-ms 1000}, and
 * {@code --control PATH}: the source's control file (the backfill client pauses and resumes the
 * archive read through it; read every second).
 */
public final class ArchiveCheckJob {

    private ArchiveCheckJob() {}

    public static void main(String[] args) throws Exception {
        JobArgs params = JobArgs.of(args);
        long records = params.getLong("records");
        StreamExecutionEnvironment env = CheckJobs.environment(params);

        ArchiveBackfillSourceBuilder<String> builder =
                ArchiveBackfill.<String>sourceBuilder()
                        .setArchive(params.getRequired("archive"))
                        .setFormat(ArchiveFormat.lines(new SimpleStringSchema()))
                        .setLive(
                                KafkaBackfill.<String>sourceBuilder()
                                        .setBootstrapServers(
                                                params.getRequired("bootstrap-servers"))
                                        .setTopics(params.getRequired("topic"))
                                        .setDeserializer(new WithPosition())
                                        .setBounded(OffsetsInitializer.latest())
                                        .setListener(
                                                new ConsoleProgress(System.currentTimeMillis())));
        if (params.has("control")) {
            builder.setBackfillControlFile(params.getRequired("control"))
                    .setBackfillControlInterval(Duration.ofSeconds(1));
        }
        BackfillSource<String> source = builder.build();
        DataStream<String> stream =
                env.fromSource(source, WatermarkStrategy.noWatermarks(), "archive-and-topic")
                        .uid("archive-and-topic");
        CheckJobs.writeAndRun(
                env,
                params,
                CheckJobs.throttled(params, stream)
                        .keyBy(value -> value.split("\\|")[1])
                        .process(new Checker(records))
                        .uid("checker"),
                "flink-source-backfill archive check");
    }

    /** A topic record as {@code topic|<partition>|<offset>}, the archive's line format. */
    static final class WithPosition implements KafkaRecordDeserializationSchema<String> {
        private static final long serialVersionUID = 1L;

        @Override
        public void deserialize(ConsumerRecord<byte[], byte[]> record, Collector<String> out) {
            out.collect("topic|" + record.partition() + "|" + record.offset());
        }

        @Override
        public TypeInformation<String> getProducedType() {
            return Types.STRING;
        }
    }

    /** Keyed by partition: every record must be the offset after the last one. */
    static final class Checker extends KeyedProcessFunction<String, String, String> {
        private final long records;
        private transient ValueState<Long> last;
        private transient ValueState<Long> count;
        private transient ValueState<Long> fromArchive;

        Checker(long records) {
            this.records = records;
        }

        @Override
        public void open(OpenContext openContext) {
            last = getRuntimeContext().getState(new ValueStateDescriptor<>("last", Types.LONG));
            count = getRuntimeContext().getState(new ValueStateDescriptor<>("count", Types.LONG));
            fromArchive =
                    getRuntimeContext()
                            .getState(new ValueStateDescriptor<>("fromArchive", Types.LONG));
        }

        @Override
        public void processElement(String value, Context ctx, Collector<String> out)
                throws Exception {
            String[] parts = value.split("\\|");
            long offset = Long.parseLong(parts[2]);
            long expected = last.value() == null ? 0 : last.value() + 1;
            if (offset != expected) {
                out.collect(
                        "VIOLATION partition "
                                + parts[1]
                                + " expected "
                                + expected
                                + " got "
                                + offset);
            }
            long n = (count.value() == null ? 0 : count.value()) + 1;
            long a =
                    (fromArchive.value() == null ? 0 : fromArchive.value())
                            + (parts[0].equals("archive") ? 1 : 0);
            last.update(offset);
            count.update(n);
            fromArchive.update(a);
            if (offset + 1 == records) {
                out.collect(
                        "COMPLETE "
                                + parts[1]
                                + " "
                                + n
                                + " expected "
                                + records
                                + " archive "
                                + a);
            }
        }
    }
}
