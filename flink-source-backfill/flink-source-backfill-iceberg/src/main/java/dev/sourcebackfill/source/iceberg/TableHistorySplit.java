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
 * The split of a table's history: {@code iceberg:<table>@<snapshot
 * id>/<topic>,<topic>...;plan=<code>}. Its offsets are the positions of {@link TableHistory}; its
 * chunks are runs of files, a file larger than a chunk cut where its row groups start. The snapshot
 * it is pinned to and the topics whose rows it holds are in its id, and so in the enumerator's
 * state with it: a job restored with another topic list reads the history the split was planned
 * with.
 *
 * <p>A split id is written with {@code writeUTF} and named in metrics and logs, so its length is
 * bounded: topics that do not fit in {@value #MAX_TOPICS_IN_ID} characters are named by their count
 * and the SHA-256 digest of their sorted list ({@code #<count>-<digest>}; Kafka topic names hold no
 * {@code #}), and the reader takes the list from the source's topics, which must then be those the
 * history was planned with.
 *
 * <p>The positions of a history depend on which files the plan takes, so the id names its {@link
 * Plan}: a split restored from a checkpoint is planned as it was when the enumerator cut it, and a
 * change of what a plan takes is a new plan code, never a change of an existing one. An id without
 * a plan mark was written before plans had codes: {@link Plan#TOPICS}.
 *
 * <p>A history is read as several splits, one per {@linkplain TableHistory#parts() part}: {@code
 * <history id>;part=<index>}, each a range of the history's positions (given by the split's start
 * and stop, not by its id). The parts of one history share its plan. An id without a part mark
 * (earlier state) is the whole history as one split.
 */
@Internal
final class TableHistorySplit {

    static final String PREFIX = "iceberg:";

    /** The longest list of topics (joined with ',') that an id names one by one. */
    static final int MAX_TOPICS_IN_ID = 1_000;

    private static final char DIGEST_MARK = '#';

    /** Between the topics and the plan's code (Kafka topic names hold no {@code ;}). */
    static final String PLAN_MARK = ";plan=";

    /** Between a history's id and the index of one part of it. */
    static final String PART_MARK = ";part=";

    /**
     * Which data files of the pinned snapshot a history takes (in a layout with a topic column;
     * without one, every file), by a stable code written in the split's id.
     */
    enum Plan {
        /**
         * The files whose topic column may hold one of the topics: a file whose rows have no topic
         * is left out, and its rows are lost silently. Only restored ids, which have no plan mark.
         */
        TOPICS(1),
        /**
         * As {@link #TOPICS}, and the files whose rows may have no topic: reading such a row fails,
         * naming its file and position.
         */
        TOPICS_AND_ROWS_WITHOUT_TOPIC(2);

        /** The plan of every split the enumerator cuts now. */
        static final Plan CURRENT = TOPICS_AND_ROWS_WITHOUT_TOPIC;

        final int code;

        Plan(int code) {
            this.code = code;
        }

        static Plan ofCode(int code, String splitId) {
            for (Plan plan : values()) {
                if (plan.code == code) {
                    return plan;
                }
            }
            throw new IllegalStateException(
                    String.format(
                            "Split %s was planned with plan %d, which this version of flink-source-backfill does not know (plans %s): the state was written by a newer version",
                            splitId, code, java.util.Arrays.toString(values())));
        }
    }

    private TableHistorySplit() {}

    /**
     * The id of a split of the history of {@code snapshotId}, planned with {@link Plan#CURRENT}.
     */
    static String id(String table, long snapshotId, Collection<String> topics) {
        return id(table, snapshotId, topics, Plan.CURRENT);
    }

    static String id(String table, long snapshotId, Collection<String> topics, Plan plan) {
        String named = String.join(",", new TreeSet<>(topics));
        return PREFIX
                + table
                + '@'
                + snapshotId
                + '/'
                + (named.length() <= MAX_TOPICS_IN_ID ? named : digestOf(topics))
                + (plan == Plan.TOPICS ? "" : PLAN_MARK + plan.code);
    }

    /** The id of part {@code index} of the history {@code historyId}. */
    static String partId(String historyId, int index) {
        return historyId + PART_MARK + index;
    }

    /**
     * The id of the history a split reads: its id without a part mark. The splits of one history
     * share its plan (a reader plans it once).
     */
    static String historyOf(String splitId) {
        int mark = splitId.lastIndexOf(PART_MARK);
        return mark < 0 ? splitId : splitId.substring(0, mark);
    }

    /**
     * The plan the split's history was cut with: the code after {@value #PLAN_MARK}, or {@link
     * Plan#TOPICS} for an id without one.
     *
     * @throws IllegalStateException naming the split if its plan code is unknown (newer state)
     */
    static Plan planOf(String splitId) {
        snapshotOf(splitId); // checks the form
        String history = historyOf(splitId);
        int mark = history.lastIndexOf(PLAN_MARK);
        if (mark < 0) {
            return Plan.TOPICS;
        }
        String code = history.substring(mark + PLAN_MARK.length());
        try {
            return Plan.ofCode(Integer.parseInt(code), splitId);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(
                    "Not a split of an Iceberg table's history (plan '" + code + "'): " + splitId,
                    e);
        }
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
        String history = historyOf(splitId);
        String topics = history.substring(history.indexOf('/', history.lastIndexOf('@')) + 1);
        int mark = topics.lastIndexOf(PLAN_MARK);
        if (mark >= 0) {
            topics = topics.substring(0, mark);
        }
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
