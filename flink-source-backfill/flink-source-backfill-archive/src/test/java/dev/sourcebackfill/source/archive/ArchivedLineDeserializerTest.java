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
package dev.sourcebackfill.source.archive;

import org.apache.flink.api.common.serialization.SimpleStringSchema;
import org.apache.flink.core.fs.Path;
import org.apache.flink.metrics.SimpleCounter;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.apache.flink.util.Collector;
import org.apache.flink.util.SimpleUserCodeClassLoader;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The values of archived lines, made in the task thread. */
class ArchivedLineDeserializerTest {

    private static final ArchivedFile FILE = new ArchivedFile("t", 0, 10);
    private static final Path PATH = new Path("/archive/t/partition=0/t+0+0000000010.json");

    private final SimpleCounter skipped = new SimpleCounter();
    private final List<String> out = new ArrayList<>();

    private final Collector<String> collector =
            new Collector<>() {
                @Override
                public void collect(String record) {
                    out.add(record);
                }

                @Override
                public void close() {}
            };

    private ArchivedLineDeserializer<String> values(
            org.apache.flink.api.common.serialization.DeserializationSchema<String> schema,
            boolean skipUnreadable)
            throws Exception {
        ArchiveFormat<String> format = ArchiveFormat.lines(schema);
        format.open(
                ArchiveFormat.context(
                        new UnregisteredMetricsGroup(),
                        SimpleUserCodeClassLoader.create(getClass().getClassLoader())));
        return new ArchivedLineDeserializer<>(
                format,
                (v, file, offset) -> v + "@" + file + "#" + offset,
                skipUnreadable,
                skipped);
    }

    private static ArchivedLine line(String text) {
        return new ArchivedLine(text.getBytes(StandardCharsets.UTF_8), FILE, PATH);
    }

    @Test
    void eachLineIsMadeByTheFormatAndCompletedWithItsPlace() throws Exception {
        ArchivedLineDeserializer<String> values = values(new SimpleStringSchema(), false);
        values.deserialize("t-0", 11, line("a"), collector);
        assertThat(out).containsExactly("a@t-0@10#11");
    }

    @Test
    void aLineMayMakeSeveralValuesOrNone() throws Exception {
        ArchivedLineDeserializer<String> values = values(new CommaSeparated(), false);
        values.deserialize("t-0", 10, line("a,b"), collector);
        values.deserialize("t-0", 11, line(""), collector);
        values.deserialize("t-0", 12, line("c"), collector);
        assertThat(out).containsExactly("a@t-0@10#10", "b@t-0@10#10", "c@t-0@10#12");
    }

    @Test
    void anUnreadableLineFailsNamingFileSplitAndOffset() throws Exception {
        ArchivedLineDeserializer<String> values = values(new PoisonRejecting(), false);
        assertThatThrownBy(() -> values.deserialize("t-0", 12, line("poison"), collector))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("/archive/t/partition=0/t+0+0000000010.json")
                .hasMessageContaining("split t-0")
                .hasMessageContaining("offset 12")
                .hasMessageContaining("not a record: poison");
        assertThat(out).isEmpty();
    }

    @Test
    void anUnreadableLineIsSkippedAndCountedWhenTheSourceIsToldTo() throws Exception {
        ArchivedLineDeserializer<String> values = values(new PoisonRejecting(), true);
        values.deserialize("t-0", 10, line("a"), collector);
        values.deserialize("t-0", 11, line("poison"), collector);
        values.deserialize("t-0", 12, line("b"), collector);
        assertThat(out).containsExactly("a@t-0@10#10", "b@t-0@10#12");
        assertThat(skipped.getCount()).isEqualTo(1);
    }

    @Test
    void aLineRejectedAfterSomeOfItsValuesEmitsNoneOfThem() throws Exception {
        ArchivedLineDeserializer<String> values = values(new CommaSeparated(), true);
        values.deserialize("t-0", 10, line("a,poison"), collector);
        assertThat(out).isEmpty();
        assertThat(skipped.getCount()).isEqualTo(1);
    }

    /** One value per comma-separated part; rejects the part "poison" (after the parts before). */
    private static final class CommaSeparated extends SimpleStringSchema {
        @Override
        public void deserialize(byte[] message, Collector<String> values) {
            String s = new String(message, StandardCharsets.UTF_8);
            if (s.isEmpty()) {
                return;
            }
            for (String part : s.split(",")) {
                if (part.equals("poison")) {
                    throw new IllegalArgumentException("not a record: " + part);
                }
                values.collect(part);
            }
        }
    }
}
