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

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Collection;
import java.util.HexFormat;
import java.util.List;
import java.util.TreeSet;

/**
 * The split of a table's history: {@code iceberg:<table>@<snapshot id>/<topic>,<topic>...}. Its
 * offsets are the positions of {@link TableHistory}; its chunks are runs of whole files. The
 * snapshot it is pinned to and the topics whose rows it holds are in its id, and so in the
 * enumerator's state with it: a job restored with another topic list reads the history the split
 * was planned with.
 *
 * <p>A split id is written with {@code writeUTF} and named in metrics and logs, so its length is
 * bounded: topics that do not fit in {@value #MAX_TOPICS_IN_ID} characters are named by their count
 * and the SHA-256 digest of their sorted list ({@code #<count>-<digest>}; Kafka topic names hold no
 * {@code #}), and the reader takes the list from the source's topics, which must then be those the
 * history was planned with.
 */
@Internal
final class TableHistorySplit {

    static final String PREFIX = "iceberg:";

    /** The longest list of topics (joined with ',') that an id names one by one. */
    static final int MAX_TOPICS_IN_ID = 1_000;

    private static final char DIGEST_MARK = '#';

    private TableHistorySplit() {}

    static String id(String table, long snapshotId, Collection<String> topics) {
        String named = String.join(",", new TreeSet<>(topics));
        return PREFIX
                + table
                + '@'
                + snapshotId
                + '/'
                + (named.length() <= MAX_TOPICS_IN_ID ? named : digestOf(topics));
    }

    /** {@code #<count>-<SHA-256 of the sorted topics joined with ','>}. */
    static String digestOf(Collection<String> topics) {
        TreeSet<String> sorted = new TreeSet<>(topics);
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            byte[] hash = sha.digest(String.join(",", sorted).getBytes(StandardCharsets.UTF_8));
            return DIGEST_MARK
                    + Integer.toString(sorted.size())
                    + '-'
                    + HexFormat.of().formatHex(hash);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("This JVM has no SHA-256", e);
        }
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

    /**
     * The topics whose rows the split holds (Kafka topic names hold no ',' or '/'): those its id
     * names, or, for an id with their digest, {@code sourceTopics} if they are the same.
     *
     * @throws IllegalStateException naming the split and both counts if the id holds the digest of
     *     other topics than {@code sourceTopics} (a restore with another topic list)
     */
    static List<String> topicsOf(String splitId, Collection<String> sourceTopics) {
        snapshotOf(splitId); // checks the form
        String topics = splitId.substring(splitId.indexOf('/', splitId.lastIndexOf('@')) + 1);
        if (topics.isEmpty()) {
            return List.of();
        }
        if (topics.charAt(0) != DIGEST_MARK) {
            return List.of(topics.split(","));
        }
        String digest = digestOf(sourceTopics);
        if (!digest.equals(topics)) {
            throw new IllegalStateException(
                    String.format(
                            "Split %s holds the rows of the %s topics the job read at its first start (named by their digest), but the source reads %d other topics now: a job restored with another topic list cannot read the history it planned; restore it with the topics it started with, or start it without its state",
                            splitId,
                            topics.substring(1, topics.indexOf('-')),
                            new TreeSet<>(sourceTopics).size()));
        }
        return List.copyOf(new TreeSet<>(sourceTopics));
    }
}
