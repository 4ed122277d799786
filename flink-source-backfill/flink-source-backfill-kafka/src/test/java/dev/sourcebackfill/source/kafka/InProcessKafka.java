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

import org.apache.flink.annotation.VisibleForTesting;
import org.apache.flink.util.FileUtils;

import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.common.utils.Exit;
import org.apache.kafka.common.utils.Time;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

/**
 * A real single-node Kafka (KRaft, broker and controller in one) inside the test JVM, listening on
 * 127.0.0.1 only; started and stopped by the tests.
 */
public final class InProcessKafka implements AutoCloseable {

    private final Path dir;

    /** The one SASL/PLAIN user of the SASL listener; tests check this never shows in logs. */
    public static final String SASL_USER = "alice";

    public static final String SASL_PASSWORD = "pw-7f3c9e1d-never-log-me";

    private final int brokerPort;
    private final int saslPort;
    private final KafkaRaftServer server;
    private final Admin admin;

    private InProcessKafka(Path dir, int brokerPort, int saslPort, KafkaRaftServer server) {
        this.dir = dir;
        this.brokerPort = brokerPort;
        this.saslPort = saslPort;
        this.server = server;
        Properties adminProps = new Properties();
        adminProps.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
        this.admin = Admin.create(adminProps);
    }

    /** Attempts at starting on free ports: another process may take a port before the broker. */
    private static final int START_ATTEMPTS = 5;

    /** Where the broker's ports come from: ports that were free a moment ago, or a test's. */
    @VisibleForTesting
    @FunctionalInterface
    interface PortSource {
        int next() throws IOException;
    }

    /**
     * Starts a broker on three ports that were free a moment ago. Another process (a Flink
     * TaskManager starting beside it, a parallel test) may bind one of them first: the broker then
     * fails to start, is shut down and started again on other free ports.
     */
    public static InProcessKafka start() throws Exception {
        return start(InProcessKafka::freePort);
    }

    @VisibleForTesting
    static InProcessKafka start(PortSource ports) throws Exception {
        for (int attempt = 1; ; attempt++) {
            try {
                return startOn(ports.next(), ports.next(), ports.next());
            } catch (Exception e) {
                if (attempt == START_ATTEMPTS) {
                    throw e;
                }
                System.err.println(
                        "In-process Kafka did not start (attempt "
                                + attempt
                                + " of "
                                + START_ATTEMPTS
                                + "; a port taken before the broker bound it), starting again on"
                                + " other ports: "
                                + e);
            }
        }
    }

    private static InProcessKafka startOn(int brokerPort, int controllerPort, int saslPort)
            throws Exception {
        Path dir = Files.createTempDirectory("kafka-it");
        Properties props = new Properties();
        props.put("process.roles", "broker,controller");
        props.put("node.id", "1");
        props.put("controller.quorum.voters", "1@127.0.0.1:" + controllerPort);
        props.put(
                "listeners",
                "PLAINTEXT://127.0.0.1:"
                        + brokerPort
                        + ",SASL_PLAINTEXT://127.0.0.1:"
                        + saslPort
                        + ",CONTROLLER://127.0.0.1:"
                        + controllerPort);
        props.put(
                "advertised.listeners",
                "PLAINTEXT://127.0.0.1:" + brokerPort + ",SASL_PLAINTEXT://127.0.0.1:" + saslPort);
        props.put("controller.listener.names", "CONTROLLER");
        props.put(
                "listener.security.protocol.map",
                "PLAINTEXT:PLAINTEXT,SASL_PLAINTEXT:SASL_PLAINTEXT,CONTROLLER:PLAINTEXT");
        props.put("sasl.enabled.mechanisms", "PLAIN");
        props.put(
                "listener.name.sasl_plaintext.plain.sasl.jaas.config",
                "org.apache.kafka.common.security.plain.PlainLoginModule required user_"
                        + SASL_USER
                        + "=\""
                        + SASL_PASSWORD
                        + "\";");
        props.put("inter.broker.listener.name", "PLAINTEXT");
        props.put("log.dirs", dir.resolve("data").toString());
        props.put("offsets.topic.replication.factor", "1");
        props.put("offsets.topic.num.partitions", "1");
        props.put("transaction.state.log.replication.factor", "1");
        props.put("transaction.state.log.min.isr", "1");
        props.put("transaction.state.log.num.partitions", "1");
        props.put("group.initial.rebalance.delay.ms", "0");
        props.put("num.partitions", "1");
        props.put("auto.create.topics.enable", "false");
        // compaction in seconds, not hours, for the compacted-topic test
        props.put("log.cleaner.backoff.ms", "200");
        props.put("log.retention.check.interval.ms", "1000");
        Path config = dir.resolve("server.properties");
        try (var out = Files.newBufferedWriter(config)) {
            props.store(out, "in-process test broker");
        }
        ByteArrayOutputStream formatOutput = new ByteArrayOutputStream();
        int rc =
                kafka.tools.StorageTool.execute(
                        new String[] {
                            "format",
                            "-t",
                            Uuid.randomUuid().toString(),
                            "-c",
                            config.toString(),
                            "--ignore-formatted"
                        },
                        new PrintStream(formatOutput, true));
        if (rc != 0) {
            throw new IllegalStateException("Formatting the Kafka storage failed: " + formatOutput);
        }
        KafkaRaftServer server = new KafkaRaftServer(new KafkaConfig(props), Time.SYSTEM);
        // a controller that cannot bind asks its fatal-fault handler to halt the JVM (a test's
        // fork, the e2e's broker process): during the start that becomes an exception here
        Exit.setHaltProcedure(InProcessKafka::refuseToEnd);
        Exit.setExitProcedure(InProcessKafka::refuseToEnd);
        try {
            server.startup();
        } catch (Exception e) {
            // what did start (the controller, the raft manager) stops, and its ports are free
            server.shutdown();
            server.awaitShutdown();
            FileUtils.deleteDirectoryQuietly(dir.toFile());
            throw e;
        } finally {
            Exit.resetHaltProcedure();
            Exit.resetExitProcedure();
        }
        return new InProcessKafka(dir, brokerPort, saslPort, server);
    }

    /**
     * For trying the Kafka example by hand: starts a broker, writes {@code args[1]} records into
     * each of 4 partitions of topic {@code args[0]}, prints the address and runs until killed.
     */
    /**
     * A broker as a local process: {@code [topic [history [live trigger]]]} creates the topic with
     * 4 partitions and {@code history} records per partition (values {@code v<i>}), prints {@code
     * BROKER READY <bootstrap servers>}; given {@code live} and a trigger file, it writes {@code
     * live} more records per partition once that file exists, then prints {@code LIVE WRITTEN}.
     */
    public static void main(String[] args) throws Exception {
        try {
            serve(args);
        } catch (Exception e) {
            // a broker that did not start or could not write its records must end its process
            // (Kafka's threads would keep it alive), so that whoever waits for its READY line
            // sees it go
            e.printStackTrace();
            System.exit(1);
        }
    }

    private static void serve(String[] args) throws Exception {
        String topic = args.length > 0 ? args[0] : "orders";
        int perPartition = args.length > 1 ? Integer.parseInt(args[1]) : 100_000;
        int live = args.length > 3 ? Integer.parseInt(args[2]) : 0;
        InProcessKafka kafka = start();
        kafka.createTopic(topic, 4, Map.of());
        try (KafkaProducer<String, String> producer = kafka.producer(null)) {
            for (int i = 0; i < perPartition; i++) {
                for (int p = 0; p < 4; p++) {
                    producer.send(new ProducerRecord<>(topic, p, "k" + i, "v" + i));
                }
            }
        }
        System.out.println("BROKER READY " + kafka.bootstrapServers() + " topic " + topic);
        if (live > 0) {
            Path trigger = Path.of(args[3]);
            while (!Files.exists(trigger)) {
                Thread.sleep(100);
            }
            try (KafkaProducer<String, String> producer = kafka.producer(null)) {
                for (int i = perPartition; i < perPartition + live; i++) {
                    for (int p = 0; p < 4; p++) {
                        producer.send(new ProducerRecord<>(topic, p, "k" + i, "v" + i));
                    }
                }
            }
            System.out.println("LIVE WRITTEN " + live + " records per partition");
        }
        Thread.currentThread().join();
    }

    public String bootstrapServers() {
        return "127.0.0.1:" + brokerPort;
    }

    /** The listener that takes SASL/PLAIN ({@link #SASL_USER}) only. */
    public String saslBootstrapServers() {
        return "127.0.0.1:" + saslPort;
    }

    public Admin admin() {
        return admin;
    }

    /** Creates a topic and waits until every partition has a leader (producing fails before). */
    public void createTopic(String topic, int partitions, Map<String, String> configs)
            throws Exception {
        admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1).configs(configs)))
                .all()
                .get(30, TimeUnit.SECONDS);
        awaitLeaders(topic, partitions);
    }

    public void addPartitions(String topic, int totalPartitions) throws Exception {
        admin.createPartitions(Map.of(topic, NewPartitions.increaseTo(totalPartitions)))
                .all()
                .get(30, TimeUnit.SECONDS);
        awaitLeaders(topic, totalPartitions);
    }

    private void awaitLeaders(String topic, int partitions) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            try {
                TopicDescription d =
                        admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic);
                if (d.partitions().size() == partitions
                        && d.partitions().stream()
                                .map(TopicPartitionInfo::leader)
                                .allMatch(l -> l != null && !l.isEmpty())) {
                    return;
                }
            } catch (Exception retry) {
                // metadata not there yet
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("Partitions of " + topic + " got no leader");
            }
            Thread.sleep(50);
        }
    }

    public KafkaProducer<String, String> producer(String transactionalId) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        if (transactionalId != null) {
            p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
        } else {
            // the idempotent producer got stuck in OUT_OF_ORDER_SEQUENCE_NUMBER retries against
            // this broker under load; one request in flight keeps the order without it
            p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "false");
            p.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, "1");
        }
        return new KafkaProducer<>(p);
    }

    /**
     * A producer for bulk loads that need no order guarantee beyond one partition's: leader
     * acknowledgement, large batches.
     */
    public KafkaProducer<String, String> bulkProducer() {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.ACKS_CONFIG, "1");
        p.put(ProducerConfig.LINGER_MS_CONFIG, "20");
        p.put(ProducerConfig.BATCH_SIZE_CONFIG, String.valueOf(256 * 1024));
        return new KafkaProducer<>(p);
    }

    /** Deletes each partition's records below its offset, as retention would. */
    public void deleteRecordsBelow(String topic, Map<Integer, Long> belowByPartition)
            throws Exception {
        Map<TopicPartition, RecordsToDelete> delete = new HashMap<>();
        belowByPartition.forEach(
                (p, offset) ->
                        delete.put(
                                new TopicPartition(topic, p),
                                RecordsToDelete.beforeOffset(offset)));
        admin.deleteRecords(delete).all().get(60, TimeUnit.SECONDS);
    }

    public void deleteRecordsBelow(String topic, int partition, long offset) throws Exception {
        deleteRecordsBelow(topic, Map.of(partition, offset));
    }

    /**
     * Every record the topic holds now, in offset order per partition, as a plain consumer with the
     * given isolation level reads it from the earliest offsets to the end offsets.
     */
    public List<ConsumerRecord<String, String>> readAll(String topic, boolean readCommitted) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        p.put(
                ConsumerConfig.ISOLATION_LEVEL_CONFIG,
                readCommitted ? "read_committed" : "read_uncommitted");
        List<ConsumerRecord<String, String>> records = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(p)) {
            List<TopicPartition> partitions = new ArrayList<>();
            consumer.partitionsFor(topic)
                    .forEach(i -> partitions.add(new TopicPartition(topic, i.partition())));
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
            while (partitions.stream().anyMatch(tp -> consumer.position(tp) < end.get(tp))) {
                consumer.poll(Duration.ofMillis(200)).forEach(records::add);
            }
        }
        return records;
    }

    private static void refuseToEnd(int statusCode, String message) {
        throw new IllegalStateException(
                "The in-process Kafka broker failed to start (it asked to end the JVM with status "
                        + statusCode
                        + (message == null ? "" : ": " + message)
                        + "; the cause is in the log above)");
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            return socket.getLocalPort();
        }
    }

    @Override
    public void close() throws Exception {
        admin.close(Duration.ofSeconds(5));
        server.shutdown();
        server.awaitShutdown();
        FileUtils.deleteDirectory(dir.toFile());
    }
}
