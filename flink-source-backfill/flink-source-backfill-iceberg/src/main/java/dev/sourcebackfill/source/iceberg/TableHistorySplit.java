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
package dev.sourcebackfill.source.iceberg;

import org.apache.flink.annotation.Internal;

import java.util.Collection;
import java.util.List;
import java.util.TreeSet;

/**
 * The split of a table's history: {@code iceberg:<table>@<snapshot id>/<topic>,<topic>...}. Its
 * offsets are the positions of {@link TableHistory}; its chunks are runs of whole files. The
 * snapshot it is pinned to and the topics whose rows it holds are in its id, and so in the
 * enumerator's state with it: a job restored with another topic list reads the history the split
 * was planned with.
 */
@Internal
final class TableHistorySplit {

    static final String PREFIX = "iceberg:";

    private TableHistorySplit() {}

    static String id(String table, long snapshotId, Collection<String> topics) {
        return PREFIX + table + '@' + snapshotId + '/' + String.join(",", new TreeSet<>(topics));
    }

    static boolean isTableHistory(String splitId) {
        return splitId.startsWith(PREFIX);
    }

    static long snapshotOf(String splitId) {
        int at = splitId.lastIndexOf('@');
        int slash = at < 0 ? -1 : splitId.indexOf('/', at);
        if (!isTableHistory(splitId) || at < 0 || slash < 0) {
            throw new IllegalArgumentException(
                    "Not a split of an Iceberg table's history: " + splitId);
        }
        try {
            return Long.parseLong(splitId.substring(at + 1, slash));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(
                    "Not a split of an Iceberg table's history (no snapshot id): " + splitId, e);
        }
    }

    /** The topics whose rows the split holds (Kafka topic names hold no ',' or '/'). */
    static List<String> topicsOf(String splitId) {
        snapshotOf(splitId); // checks the form
        String topics = splitId.substring(splitId.indexOf('/', splitId.lastIndexOf('@')) + 1);
        return topics.isEmpty() ? List.of() : List.of(topics.split(","));
    }
}
