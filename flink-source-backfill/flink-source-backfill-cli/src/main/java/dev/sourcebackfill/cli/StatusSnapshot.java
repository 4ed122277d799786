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
package dev.sourcebackfill.cli;

import dev.sourcebackfill.cli.BackfillCli.CommandException;

import com.fasterxml.jackson.databind.JsonNode;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the client reads of a running job at one moment: for each backfill source (a vertex whose
 * enumerator reports the {@code backfill} metrics), its enumerator's figures and each reader's
 * splits. Flink's REST API writes ' ', '.', ',' and ':' of metric names as '_', so split ids come
 * back that way (a topic "orders.v1" as "orders_v1").
 */
record StatusSnapshot(String jobId, String jobName, long nanoTime, List<Source> sources) {

    /** The enumerator metrics ({@code BackfillEnumeratorMetrics}) the status reads. */
    static final List<String> ENUMERATOR_METRICS =
            List.of(
                    "splitsBackfilling",
                    "splitsCachingUp",
                    "splitsFinished",
                    "splitsEnded",
                    "forwardMode",
                    "controlPaused",
                    "controlRecordsPerSecond");

    private static final Pattern ENUMERATOR_METRIC =
            Pattern.compile("(?:^|\\.)backfill\\.(" + String.join("|", ENUMERATOR_METRICS) + ")$");

    private static final String SPLIT_MARK = ".backfill.split.";

    /** Each reader's backfill rate over the last 10 s ({@code BackfillReaderMetrics}). */
    private static final Pattern READER_RATE =
            Pattern.compile("\\.backfill\\.backfilledRecordsPerSecond$");

    /** One backfill source: a vertex of the job. */
    record Source(
            String vertexId,
            String name,
            int parallelism,
            Map<String, Double> enumerator,
            Map<String, Split> splits,
            double recordsPerSecond) {

        double enumerator(String metric) {
            return enumerator.getOrDefault(metric, 0.0);
        }
    }

    /** A split a reader holds (an ended split is not reported). */
    record Split(String id, int subtask, int stateCode, long next, long target, long backfilled) {
        String state() {
            switch (stateCode) {
                case 0:
                    return "BACKFILLING";
                case 1:
                    return "CACHING_UP";
                case 2:
                    return "FINISHED";
                default:
                    return "STATE_" + stateCode;
            }
        }

        /** Offsets still to backfill: its target is where the backfill ends. */
        long left() {
            return stateCode == 0 ? Math.max(0, target - next) : 0;
        }

        boolean isChunk() {
            return id.contains("#chunk-");
        }
    }

    /**
     * Reads the job's backfill sources now.
     *
     * @param sourceName a part of the source vertex's name to look at; {@code null}: every backfill
     *     source of the job
     * @throws CommandException naming the job or the source if the job is unknown or not running,
     *     or has no such backfill source
     */
    static StatusSnapshot take(FlinkRest rest, String jobId, String sourceName)
            throws IOException, InterruptedException, CommandException {
        JsonNode job;
        try {
            job = rest.job(jobId);
        } catch (FlinkRest.RestError e) {
            if (e.status == 404 || e.status == 400) {
                throw new CommandException(
                        "Flink at "
                                + rest.base()
                                + " knows no job "
                                + jobId
                                + " ("
                                + e.status
                                + ")");
            }
            throw e;
        }
        String name = job.path("name").asText();
        String state = job.path("state").asText();
        if (!state.equals("RUNNING")) {
            throw new CommandException(
                    "Job " + jobId + " (" + name + ") is " + state + ", not running");
        }
        long now = System.nanoTime();
        List<Source> sources = new ArrayList<>();
        List<String> vertexNames = new ArrayList<>();
        for (JsonNode vertex : job.path("vertices")) {
            String vertexName = vertex.path("name").asText();
            vertexNames.add(vertexName);
            if (sourceName != null && !vertexName.contains(sourceName)) {
                continue;
            }
            String vertexId = vertex.path("id").asText();
            Map<String, String> enumeratorIds = new TreeMap<>();
            for (String id : rest.coordinatorMetricIds(jobId, vertexId)) {
                Matcher matcher = ENUMERATOR_METRIC.matcher(id);
                if (matcher.find()) {
                    enumeratorIds.put(id, matcher.group(1));
                }
            }
            if (enumeratorIds.isEmpty()) {
                if (sourceName != null) {
                    throw new CommandException(
                            "'"
                                    + vertexName
                                    + "' of job "
                                    + jobId
                                    + " is not a backfill source (its enumerator reports no"
                                    + " backfill metrics)");
                }
                continue;
            }
            Map<String, Double> enumerator = new TreeMap<>();
            rest.coordinatorMetrics(jobId, vertexId, enumeratorIds.keySet())
                    .forEach((id, value) -> enumerator.put(enumeratorIds.get(id), number(value)));
            int parallelism = vertex.path("parallelism").asInt();
            Map<String, Split> splits = new TreeMap<>();
            double rate = 0;
            for (int subtask = 0; subtask < parallelism; subtask++) {
                List<String> ids = new ArrayList<>();
                for (String id : rest.subtaskMetricIds(jobId, vertexId, subtask)) {
                    if (id.contains(SPLIT_MARK) || READER_RATE.matcher(id).find()) {
                        ids.add(id);
                    }
                }
                Map<String, Map<String, Long>> bySplit = new TreeMap<>();
                for (Map.Entry<String, String> metric :
                        rest.subtaskMetrics(jobId, vertexId, subtask, ids).entrySet()) {
                    String id = metric.getKey();
                    int mark = id.indexOf(SPLIT_MARK);
                    if (mark < 0) {
                        rate += number(metric.getValue());
                        continue;
                    }
                    long value = (long) number(metric.getValue());
                    String rest2 = id.substring(mark + SPLIT_MARK.length());
                    int dot = rest2.lastIndexOf('.');
                    if (dot > 0) {
                        bySplit.computeIfAbsent(rest2.substring(0, dot), k -> new TreeMap<>())
                                .put(rest2.substring(dot + 1), value);
                    }
                }
                for (Map.Entry<String, Map<String, Long>> split : bySplit.entrySet()) {
                    Map<String, Long> m = split.getValue();
                    splits.put(
                            split.getKey(),
                            new Split(
                                    split.getKey(),
                                    subtask,
                                    m.getOrDefault("state", -1L).intValue(),
                                    m.getOrDefault("nextOffset", 0L),
                                    m.getOrDefault("targetEndOffset", 0L),
                                    m.getOrDefault("backfilledRecords", 0L)));
                }
            }
            sources.add(new Source(vertexId, vertexName, parallelism, enumerator, splits, rate));
        }
        if (sources.isEmpty()) {
            throw new CommandException(
                    sourceName == null
                            ? "Job " + jobId + " (" + name + ") has no backfill source"
                            : "Job "
                                    + jobId
                                    + " ("
                                    + name
                                    + ") has no source named '"
                                    + sourceName
                                    + "' (its vertices: "
                                    + String.join("; ", vertexNames)
                                    + ")");
        }
        return new StatusSnapshot(jobId, name, now, sources);
    }

    private static double number(String value) {
        try {
            return Double.parseDouble(value);
        } catch (NumberFormatException e) {
            return 0;
        }
    }
}
