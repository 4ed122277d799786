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

import org.apache.flink.api.common.functions.util.ListCollector;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.util.CloseableIterator;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The e2e Iceberg phase's checker (run in Flink with its keyed state, one subtask, so that each
 * partition's records come in the order given) and its deserializer: what each must catch.
 */
class IcebergCheckJobTest {

    private static List<String> check(long records, List<String> input) throws Exception {
        return check(records, false, input);
    }

    private static List<String> check(long records, boolean inOrder, List<String> input)
            throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1);
        List<String> out = new ArrayList<>();
        try (CloseableIterator<String> lines =
                env.fromData(input)
                        .keyBy(value -> value.split("\\|")[1])
                        .process(new IcebergCheckJob.Checker(records, inOrder))
                        .executeAndCollect()) {
            lines.forEachRemaining(out::add);
        }
        return out;
    }

    private static List<String> range(String origin, int partition, long from, long to) {
        List<String> values = new ArrayList<>();
        for (long o = from; o < to; o++) {
            values.add(origin + "|" + partition + "|" + o);
        }
        return values;
    }

    @Test
    void historyAndTopicInterleavedAreCompleteWithTheTablesCount() throws Exception {
        List<String> input = new ArrayList<>();
        // table chunks out of order, the topic live meanwhile; partition 1 only in the topic
        input.addAll(range("table", 0, 4, 6));
        input.addAll(range("topic", 0, 6, 8));
        input.addAll(range("topic", 1, 0, 10));
        input.addAll(range("table", 0, 0, 4));
        input.addAll(range("topic", 0, 8, 10));
        assertThat(check(10, input))
                .containsExactly(
                        "COMPLETE 1 10 expected 10 table 0", "COMPLETE 0 10 expected 10 table 6");
    }

    /** Ordered mode (the e2e's second JDBC job): each offset the previous plus one, from 0. */
    @Test
    void inOrderEveryOffsetMustFollowThePreviousOne() throws Exception {
        List<String> ordered = new ArrayList<>(range("table", 0, 0, 6));
        ordered.addAll(range("topic", 0, 6, 10));
        ordered.addAll(range("topic", 1, 0, 10));
        assertThat(check(10, true, ordered))
                .containsExactly(
                        "COMPLETE 0 10 expected 10 table 6", "COMPLETE 1 10 expected 10 table 0");

        // the table's chunks out of order, as the default mode may give them
        List<String> chunked = new ArrayList<>(range("table", 0, 4, 6));
        chunked.addAll(range("table", 0, 0, 4));
        chunked.addAll(range("topic", 0, 6, 10));
        assertThat(check(10, true, chunked))
                .containsExactly(
                        "VIOLATION partition 0 offset 4 from the table: out of order, expected 0",
                        "VIOLATION partition 0 offset 0 from the table: out of order, expected 6",
                        "VIOLATION partition 0 offset 6 from the topic: out of order, expected 4",
                        "COMPLETE 0 10 expected 10 table 6");
        assertThat(check(10, false, chunked)).containsExactly("COMPLETE 0 10 expected 10 table 6");
    }

    @Test
    void aDuplicateIsAViolation() throws Exception {
        List<String> input = new ArrayList<>(range("table", 0, 0, 6));
        input.addAll(range("topic", 0, 5, 10));
        assertThat(check(10, input))
                .containsExactly(
                        "VIOLATION partition 0 offset 5 from the topic: a duplicate",
                        "COMPLETE 0 10 expected 10 table 6");
    }

    @Test
    void theTopicReadIntoAHoleOfTheTableIsAnEarlyHandover() throws Exception {
        List<String> input = new ArrayList<>(range("table", 0, 0, 4));
        input.add("table|0|5");
        input.add("topic|0|4");
        input.addAll(range("topic", 0, 6, 10));
        assertThat(check(10, input))
                .containsExactly(
                        "VIOLATION partition 0 topic offset 6 after 4",
                        "VIOLATION partition 0: the topic's first offset 4, expected 6",
                        "COMPLETE 0 10 expected 10 table 5");
    }

    @Test
    void aMissingOffsetLeavesThePartitionIncomplete() throws Exception {
        List<String> input = new ArrayList<>(range("table", 0, 0, 6));
        input.addAll(range("topic", 0, 7, 10));
        assertThat(check(10, input)).isEmpty();
    }

    @Test
    void aLateHandoverATopicOutOfOrderAndOffsetsOutOfRangeAreViolations() throws Exception {
        List<String> input = new ArrayList<>(range("table", 0, 0, 6));
        input.add("topic|0|7");
        input.add("topic|0|6");
        input.addAll(range("topic", 0, 8, 11));
        input.add("bad|0|3");
        assertThat(check(10, input))
                .containsExactly(
                        "VIOLATION partition 0 topic offset 6 after 7",
                        "VIOLATION partition 0 topic offset 8 after 6",
                        "VIOLATION partition 0: the topic's first offset 7, expected 6",
                        "COMPLETE 0 10 expected 10 table 6",
                        "VIOLATION partition 0 offset 10 from the topic: outside [0, 10)",
                        "VIOLATION partition 0 offset 3: a value neither the table's nor the topic's for it");
    }

    @Test
    void theDeserializerTellsTheTablesRowsFromTheTopicsRecordsAndWrongValues() {
        List<String> out = new ArrayList<>();
        IcebergCheckJob.WithOrigin deserializer = new IcebergCheckJob.WithOrigin();
        ListCollector<String> collector = new ListCollector<>(out);
        deserializer.deserialize(record(2, 7, "table|2|7"), collector);
        deserializer.deserialize(record(2, 8, "v8"), collector);
        deserializer.deserialize(record(2, 9, "table|1|9"), collector);
        deserializer.deserialize(record(2, 10, "v11"), collector);
        assertThat(out).containsExactly("table|2|7", "topic|2|8", "bad|2|9", "bad|2|10");
    }

    private static ConsumerRecord<byte[], byte[]> record(int partition, long offset, String value) {
        return new ConsumerRecord<>(
                "orders",
                partition,
                offset,
                ("k" + offset).getBytes(StandardCharsets.UTF_8),
                value.getBytes(StandardCharsets.UTF_8));
    }
}
