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

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link ArchiveLayout#kafkaConnect()} also maps the names the Kafka Connect HDFS sink gives its
 * committed files, {@code <topic>+<p>+<startOffset>+<endOffset>.<ext>}: otherwise an HDFS archive
 * would be taken for no archive, and every partition would start at the Kafka starting offsets.
 */
class ArchiveLayoutHdfsNamesTest {

    @Test
    void theKafkaConnectLayoutMapsTheHdfsSinksCommittedFileNames() {
        ArchiveLayout layout = ArchiveLayout.kafkaConnect();
        assertThat(layout.parse("orders/partition=3/orders+3+0000001200+0000001299.avro"))
                .as("the HDFS sink's committed file name, which holds start and end offset")
                .contains(new ArchivedFile("orders", 3, 1200));
    }
}
