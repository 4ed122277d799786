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

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

/** The archive quick start runs to its end at a small scale and prints every handover. */
class ArchiveQuickStartITCase {

    @Test
    void everyPartitionIsHandedOverAtTheFirstOffsetAfterItsArchive() throws Exception {
        PrintStream stdout = System.out;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            ArchiveQuickStart.main(
                    new String[] {"--partitions", "4", "--archived", "1000", "--live", "100"});
        } finally {
            System.setOut(stdout);
        }
        String out = captured.toString(StandardCharsets.UTF_8);
        stdout.print(out);
        assertThat(out)
                .contains(
                        "orders-0: archive read (10000 records), live from the topic at offset 10000")
                .contains(
                        "orders-1: archive read (1000 records), live from the topic at offset 1000")
                .contains(
                        "orders-2: archive read (1000 records), live from the topic at offset 1000")
                .contains("orders-3: archive read (0 records), live from the topic at offset 0")
                .contains("ArchiveQuickStart: done");
    }
}
