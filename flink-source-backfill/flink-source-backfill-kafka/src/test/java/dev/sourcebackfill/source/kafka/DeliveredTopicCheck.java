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

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The e2e script's tool for a topic a SQL job writes to (examples/e2e/run.sh, the coexistence
 * phases), run with the broker's class path.
 *
 * <ul>
 *   <li>{@code create <bootstrap servers> <topic>}: creates the topic with one partition (the
 *       in-process broker creates no topic by itself).
 *   <li>{@code check <bootstrap servers> <topic> <partitions> <records per partition>}: reads the
 *       topic's committed records to its end; each value is a JSON row {@code
 *       {"partition":p,"offset":o,"value":"v<o>"}} of an input record. Passes (exit 0) when every
 *       (partition, offset) of the input, partitions {@code 0..partitions-1} and offsets {@code
 *       0..records-1}, is there exactly once with value {@code v<offset>}; else prints what is
 *       wrong and exits 1.
 * </ul>
 */
public final class DeliveredTopicCheck {

    private static final Pattern ROW =
            Pattern.compile(
                    "\\{\"partition\":(\\d+),\"offset\":(\\d+),\"value\":(null|\"[^\"]*\")}");

    private DeliveredTopicCheck() {}

    public static void main(String[] args) throws Exception {
        if (args.length == 3 && args[0].equals("create")) {
            create(args[1], args[2]);
        } else if (args.length == 5 && args[0].equals("check")) {
            int failures =
                    check(args[1], args[2], Integer.parseInt(args[3]), Integer.parseInt(args[4]));
            System.exit(failures == 0 ? 0 : 1);
        } else {
            System.err.println(
                    "usage: create <bootstrap> <topic> | check <bootstrap> <topic> <partitions> <records>");
            System.exit(2);
        }
    }

    private static void create(String bootstrap, String topic) throws Exception {
        Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        try (Admin admin = Admin.create(props)) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1)))
                    .all()
                    .get(30, TimeUnit.SECONDS);
        }
        System.out.println("CREATED " + topic);
    }

    private static int check(String bootstrap, String topic, int partitions, int records) {
        // seen[p][o]: how often input (p, o) arrived
        int[][] seen = new int[partitions][records];
        List<String> problems = new ArrayList<>();
        long read = 0;
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        props.put(
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        // only what the sink's transactions committed
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props)) {
            List<TopicPartition> assigned = new ArrayList<>();
            for (PartitionInfo info : consumer.partitionsFor(topic, Duration.ofSeconds(30))) {
                assigned.add(new TopicPartition(topic, info.partition()));
            }
            consumer.assign(assigned);
            consumer.seekToBeginning(assigned);
            Map<TopicPartition, Long> end = new HashMap<>(consumer.endOffsets(assigned));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            while (assigned.stream().anyMatch(tp -> consumer.position(tp) < end.get(tp))) {
                if (System.nanoTime() > deadline) {
                    problems.add("timed out reading " + topic + " to its end " + end);
                    break;
                }
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(500))) {
                    read++;
                    Matcher m = ROW.matcher(r.value() == null ? "null" : r.value());
                    if (!m.matches()) {
                        note(problems, "not a delivered row: " + r.value());
                        continue;
                    }
                    int p = Integer.parseInt(m.group(1));
                    long o = Long.parseLong(m.group(2));
                    if (p >= partitions || o >= records) {
                        note(problems, "not an input record: " + r.value());
                        continue;
                    }
                    seen[p][(int) o]++;
                    if (!m.group(3).equals("\"v" + o + "\"")) {
                        note(problems, "wrong value: " + r.value());
                    }
                }
            }
        }
        for (int p = 0; p < partitions; p++) {
            int missing = 0;
            int duplicated = 0;
            for (int o = 0; o < records; o++) {
                if (seen[p][o] == 0) {
                    missing++;
                } else if (seen[p][o] > 1) {
                    duplicated++;
                }
            }
            System.out.println(
                    "partition "
                            + p
                            + ": "
                            + (records - missing)
                            + " of "
                            + records
                            + " offsets, "
                            + missing
                            + " missing, "
                            + duplicated
                            + " more than once");
            if (missing > 0 || duplicated > 0) {
                problems.add(
                        "partition "
                                + p
                                + ": "
                                + missing
                                + " missing, "
                                + duplicated
                                + " repeated");
            }
        }
        System.out.println(read + " records read from " + topic);
        problems.forEach(p -> System.out.println("PROBLEM " + p));
        System.out.println(problems.isEmpty() ? "CHECK PASSED" : "CHECK FAILED");
        return problems.size();
    }

    private static void note(List<String> problems, String problem) {
        // the first few are enough to see what went wrong
        if (problems.size() < 20) {
            problems.add(problem);
        }
    }
}
