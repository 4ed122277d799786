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
package dev.sourcebackfill.examples.archive;

import dev.sourcebackfill.examples.JobArgs;
import dev.sourcebackfill.source.BackfillListener;
import dev.sourcebackfill.source.BackfillSource;
import dev.sourcebackfill.source.SplitTransition;
import dev.sourcebackfill.source.archive.ArchiveBackfill;
import dev.sourcebackfill.source.archive.ArchiveFormat;
import dev.sourcebackfill.source.kafka.InProcessKafka;
import dev.sourcebackfill.source.kafka.KafkaBackfill;
import dev.sourcebackfill.source.split.HandoverState;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.api.common.serialization.SimpleStringSchema;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;

import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;

import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * The archive quick start: writes an archive in the Kafka Connect layout and a topic itself (a
 * Kafka broker in this JVM, on 127.0.0.1), then reads each partition's history from the archive and
 * hands it over to the topic at the first offset after the archive, on an embedded MiniCluster.
 * Partition 0's archive is ten times larger than the others: the others are live long before it.
 * The topic's retention has deleted what the archive holds of every other partition, so their
 * history exists only in the archive. The last partition has no archive.
 *
 * <p>Options: {@code --partitions 4 --archived 20000 --live 2000 --parallelism 2}.
 */
public final class ArchiveQuickStart {

    private ArchiveQuickStart() {}

    public static void main(String[] args) throws Exception {
        JobArgs params = JobArgs.of(args);
        int partitions = params.getInt("partitions", 4);
        int archived = params.getInt("archived", 20_000);
        int live = params.getInt("live", 2_000);
        int parallelism = params.getInt("parallelism", 2);
        Path archive = Files.createTempDirectory("archive-quickstart");
        String topic = "orders";

        try (InProcessKafka kafka = InProcessKafka.start()) {
            kafka.createTopic(topic, partitions, Map.of());
            Map<Integer, Integer> archivedOf = new TreeMap<>();
            for (int p = 0; p < partitions; p++) {
                // the last partition has no archive; partition 0 has ten times the history
                archivedOf.put(p, p == partitions - 1 ? 0 : (p == 0 ? 10 * archived : archived));
            }
            try (KafkaProducer<String, String> producer = kafka.producer(null)) {
                for (int p = 0; p < partitions; p++) {
                    int total = archivedOf.get(p) + live;
                    for (int o = 0; o < total; o++) {
                        producer.send(new ProducerRecord<>(topic, p, "k", "topic|" + p + "|" + o));
                    }
                }
            }
            for (int p = 0; p < partitions; p++) {
                writeArchive(archive, topic, p, archivedOf.get(p), 5_000);
                if (p % 2 == 1 && archivedOf.get(p) > 0) {
                    // retention: the topic no longer has what the archive holds
                    kafka.admin()
                            .deleteRecords(
                                    Map.of(
                                            new TopicPartition(topic, p),
                                            RecordsToDelete.beforeOffset(archivedOf.get(p))))
                            .all()
                            .get(30, TimeUnit.SECONDS);
                }
            }
            System.out.printf(
                    "ArchiveQuickStart: archive %s (records per partition %s), topic %s with %d live records per partition after it%n",
                    archive, archivedOf, topic, live);

            long start = System.currentTimeMillis();
            BackfillSource<String> source =
                    ArchiveBackfill.<String>sourceBuilder()
                            .setArchive(archive.toUri().toString())
                            .setFormat(ArchiveFormat.lines(new SimpleStringSchema()))
                            .setLive(
                                    KafkaBackfill.<String>sourceBuilder()
                                            .setBootstrapServers(kafka.bootstrapServers())
                                            .setTopics(topic)
                                            .setValueOnlyDeserializer(new SimpleStringSchema())
                                            .setBounded(OffsetsInitializer.latest())
                                            .setListener(new Handovers(start)))
                            .build();

            StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
            env.setParallelism(parallelism);
            env.enableCheckpointing(500);
            env.fromSource(source, WatermarkStrategy.noWatermarks(), "archive-then-topic")
                    .uid("archive-then-topic")
                    .map(new Progress())
                    .sinkTo(new DiscardingSink<>());
            env.execute("archive quick start");
            System.out.printf(
                    "ArchiveQuickStart: done after %.1f s, every partition read to the topic's end%n",
                    (System.currentTimeMillis() - start) / 1000.0);
        }
    }

    /** Files of {@code perFile} lines "archive|p|offset" for offsets [0, records). */
    private static void writeArchive(Path root, String topic, int p, int records, int perFile)
            throws IOException {
        Path dir = root.resolve(topic).resolve("partition=" + p);
        Files.createDirectories(dir);
        for (int from = 0; from < records; from += perFile) {
            Path file = dir.resolve(String.format("%s+%d+%010d.json", topic, p, from));
            try (BufferedWriter out = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
                for (int o = from; o < Math.min(records, from + perFile); o++) {
                    out.write("archive|" + p + "|" + o + "\n");
                }
            }
        }
    }

    /** Prints each partition's handover from the archive to the topic. */
    static final class Handovers implements BackfillListener {
        private static final long serialVersionUID = 1L;
        private final long start;

        Handovers(long start) {
            this.start = start;
        }

        @Override
        public void onTransition(SplitTransition t) {
            if (t.to() == HandoverState.FINISHED) {
                System.out.printf(
                        "[reader %d] +%.1f s %s: archive read (%d records), live from the topic at offset %d%n",
                        t.subtask(),
                        (System.currentTimeMillis() - start) / 1000.0,
                        t.splitId(),
                        t.backfilledRecords(),
                        t.nextOffset());
            }
        }
    }

    /**
     * Prints, once a second per reader, each partition's records from the archive and the topic.
     */
    static final class Progress extends RichMapFunction<String, String> {
        private transient Map<String, Counts> counts;
        private transient long lastPrint;

        /** Records of one partition so far, by where they came from. */
        private static final class Counts {
            long archive;
            long topic;
        }

        @Override
        public void open(OpenContext openContext) {
            counts = new TreeMap<>();
            lastPrint = System.currentTimeMillis();
        }

        @Override
        public String map(String value) {
            String[] parts = value.split("\\|");
            Counts c = counts.computeIfAbsent("p" + parts[1], k -> new Counts());
            if (parts[0].equals("archive")) {
                c.archive++;
            } else {
                c.topic++;
            }
            long now = System.currentTimeMillis();
            if (now - lastPrint >= 1_000) {
                lastPrint = now;
                StringBuilder line = new StringBuilder();
                counts.forEach(
                        (p, n) ->
                                line.append(' ')
                                        .append(p)
                                        .append(" archive ")
                                        .append(n.archive)
                                        .append(" topic ")
                                        .append(n.topic));
                System.out.printf(
                        "[subtask %d]%s%n",
                        getRuntimeContext().getTaskInfo().getIndexOfThisSubtask(), line);
            }
            return value;
        }
    }
}
