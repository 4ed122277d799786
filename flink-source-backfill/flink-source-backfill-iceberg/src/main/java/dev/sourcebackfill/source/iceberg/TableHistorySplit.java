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

/**
 * The split of a table's history: {@code iceberg:<table>@<snapshot id>}. Its offsets are the
 * positions of {@link TableHistory}; its chunks are runs of whole files. The snapshot it is pinned
 * to is in its id, and so in the enumerator's state with it.
 */
@Internal
final class TableHistorySplit {

    static final String PREFIX = "iceberg:";

    private TableHistorySplit() {}

    static String id(String table, long snapshotId) {
        return PREFIX + table + '@' + snapshotId;
    }

    static boolean isTableHistory(String splitId) {
        return splitId.startsWith(PREFIX);
    }

    static long snapshotOf(String splitId) {
        int at = splitId.lastIndexOf('@');
        if (!isTableHistory(splitId) || at < 0) {
            throw new IllegalArgumentException(
                    "Not a split of an Iceberg table's history: " + splitId);
        }
        try {
            return Long.parseLong(splitId.substring(at + 1));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(
                    "Not a split of an Iceberg table's history (no snapshot id): " + splitId, e);
        }
    }
}
