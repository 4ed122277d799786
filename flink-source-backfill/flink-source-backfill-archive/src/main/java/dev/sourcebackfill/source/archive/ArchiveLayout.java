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

import org.apache.flink.annotation.PublicEvolving;

import java.io.Serializable;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Maps a file of the archive, by its path relative to the archive's root ({@code /} separated), to
 * the topic partition and start offset it holds; empty for a file that is not part of the archive
 * (a marker file, a temporary file of a sink).
 */
@PublicEvolving
@FunctionalInterface
public interface ArchiveLayout extends Serializable {

    Optional<ArchivedFile> parse(String relativePath);

    /**
     * The layout the Kafka Connect storage sinks (S3, GCS, HDFS) write with their default
     * partitioner: {@code <topic>/partition=<p>/<topic>+<p>+<startOffset>.<ext>} under the root
     * (their {@code topics.dir}), the start offset zero-padded, or {@code
     * <topic>+<p>+<startOffset>+<endOffset>.<ext>} as the HDFS sink names its committed files;
     * files whose name does not follow it are not part of the archive.
     */
    static ArchiveLayout kafkaConnect() {
        return new KafkaConnectLayout();
    }

    /** See {@link #kafkaConnect()}; a named class, so it serializes without an outer object. */
    final class KafkaConnectLayout implements ArchiveLayout {
        private static final long serialVersionUID = 1L;

        // Kafka topic names hold only [a-zA-Z0-9._-], so '+' and '/' separate
        private static final Pattern PATH =
                Pattern.compile(
                        "([a-zA-Z0-9._-]+)/partition=(\\d+)/([a-zA-Z0-9._-]+)\\+(\\d+)\\+(\\d+)(?:\\+\\d+)?\\.[^/]+");

        @Override
        public Optional<ArchivedFile> parse(String relativePath) {
            Matcher m = PATH.matcher(relativePath);
            if (!m.matches()
                    || !m.group(1).equals(m.group(3))
                    || Integer.parseInt(m.group(2)) != Integer.parseInt(m.group(4))) {
                return Optional.empty();
            }
            return Optional.of(
                    new ArchivedFile(
                            m.group(1), Integer.parseInt(m.group(2)), Long.parseLong(m.group(5))));
        }

        @Override
        public String toString() {
            return "kafkaConnect(<topic>/partition=<p>/<topic>+<p>+<startOffset>[+<endOffset>].<ext>)";
        }
    }
}
