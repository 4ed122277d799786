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

import dev.sourcebackfill.cli.BackfillCli.Arguments;
import dev.sourcebackfill.cli.StatusSnapshot.Source;
import dev.sourcebackfill.cli.StatusSnapshot.Split;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code status}: each backfill source of a running job with a line per split it holds (state,
 * records backfilled, offsets left, a progress bar), the source's forward mode and control, its
 * backfill rate and an estimate of when every split is live; as a table, or as JSON with {@code
 * --json}. The rate is the readers' {@code backfilledRecordsPerSecond} summed: records backfilled
 * per second over the last 10 s, as each reader measures it.
 */
final class StatusCommand {

    private static final int BAR = 24;
    private static final ObjectMapper JSON =
            new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private StatusCommand() {}

    static int run(Arguments arguments, PrintStream out) throws Exception {
        FlinkRest rest = new FlinkRest(arguments.required("--rest"));
        String job = arguments.required("--job");
        String source = arguments.options().get("--source");
        boolean json = arguments.flag("--json");
        double watch = arguments.seconds("--watch", 0);
        if (!arguments.words().isEmpty()) {
            throw new BackfillCli.UsageException(
                    "status takes no argument besides its options, not " + arguments.words());
        }
        while (true) {
            Map<String, Object> status = status(StatusSnapshot.take(rest, job, source));
            if (json) {
                out.println(JSON.writeValueAsString(status));
            } else {
                if (watch > 0) {
                    out.print("\033[H\033[2J");
                }
                out.print(table(status));
            }
            out.flush();
            if (watch <= 0) {
                return BackfillCli.OK;
            }
            Thread.sleep((long) (watch * 1000));
        }
    }

    /** The figures of a snapshot, as the table and the JSON show them. */
    static Map<String, Object> status(StatusSnapshot later) {
        Map<String, Object> status = new LinkedHashMap<>();
        status.put("job", later.jobId());
        status.put("name", later.jobName());
        List<Object> sources = new ArrayList<>();
        for (Source source : later.sources()) {
            double rate = source.recordsPerSecond();
            boolean forward = source.enumerator("forwardMode") > 0;
            boolean paused = source.enumerator("controlPaused") > 0;
            double controlRate = source.enumerator("controlRecordsPerSecond");
            long left = 0;
            long chunksLeft = 0;
            List<Object> splits = new ArrayList<>();
            for (Split split : source.splits().values()) {
                left += split.left();
                chunksLeft += split.isChunk() ? 1 : 0;
                Map<String, Object> s = new LinkedHashMap<>();
                s.put("id", split.id());
                s.put("subtask", split.subtask());
                s.put("state", split.state());
                s.put("nextOffset", split.next());
                s.put("backfilled", split.backfilled());
                s.put("left", split.left());
                s.put("progress", progress(split));
                splits.add(s);
            }
            Map<String, Object> s = new LinkedHashMap<>();
            s.put("name", source.name());
            s.put("vertex", source.vertexId());
            s.put("parallelism", source.parallelism());
            s.put("forwardMode", forward);
            s.put("paused", paused);
            s.put("controlRecordsPerSecond", controlRate > 0 ? controlRate : null);
            s.put("splitsBackfilling", (long) source.enumerator("splitsBackfilling"));
            s.put("splitsCachingUp", (long) source.enumerator("splitsCachingUp"));
            s.put("splitsFinished", (long) source.enumerator("splitsFinished"));
            s.put("splitsEnded", (long) source.enumerator("splitsEnded"));
            s.put("chunksLeft", chunksLeft);
            s.put("recordsLeft", left);
            s.put("recordsPerSecond", Math.round(rate * 10) / 10.0);
            s.put(
                    "secondsUntilLive",
                    forward || left == 0
                            ? (Object) 0L
                            : paused || rate <= 0 ? null : (Object) Math.round(left / rate));
            s.put("splits", splits);
            sources.add(s);
        }
        status.put("sources", sources);
        return status;
    }

    private static double progress(Split split) {
        long whole = split.backfilled() + split.left();
        if (whole == 0) {
            return split.stateCode() == 0 ? 0.0 : 1.0;
        }
        return Math.round(1000.0 * split.backfilled() / whole) / 1000.0;
    }

    @SuppressWarnings("unchecked")
    static String table(Map<String, Object> status) {
        StringBuilder out = new StringBuilder();
        out.append(String.format("Job %s (%s)%n", status.get("job"), status.get("name")));
        for (Object o : (List<Object>) status.get("sources")) {
            Map<String, Object> source = (Map<String, Object>) o;
            Object controlRate = source.get("controlRecordsPerSecond");
            out.append(
                    String.format(
                            "Source '%s' (parallelism %s): %s, %s; rate limit: %s%n",
                            source.get("name"),
                            source.get("parallelism"),
                            Boolean.TRUE.equals(source.get("forwardMode"))
                                    ? "forward mode (every split live)"
                                    : "backfilling",
                            Boolean.TRUE.equals(source.get("paused")) ? "PAUSED" : "running",
                            controlRate == null
                                    ? "as built"
                                    : controlRate + " records/s per reader (control file)"));
            out.append(
                    String.format(
                            "  %-32s %-12s %12s %12s  %s%n",
                            "SPLIT", "STATE", "BACKFILLED", "LEFT", "PROGRESS"));
            for (Object s : (List<Object>) source.get("splits")) {
                Map<String, Object> split = (Map<String, Object>) s;
                double progress = (Double) split.get("progress");
                int filled = (int) Math.round(progress * BAR);
                out.append(
                        String.format(
                                Locale.ROOT,
                                "  %-32s %-12s %12d %12d  [%s%s] %5.1f%%%n",
                                split.get("id"),
                                split.get("state"),
                                (Long) split.get("backfilled"),
                                (Long) split.get("left"),
                                "#".repeat(filled),
                                "-".repeat(BAR - filled),
                                progress * 100));
            }
            Object until = source.get("secondsUntilLive");
            out.append(
                    String.format(
                            Locale.ROOT,
                            "  splits: %d backfilling, %d caching up, %d finished, %d ended; chunks"
                                    + " left: %d; backfill: %.1f records/s; %s%n",
                            (Long) source.get("splitsBackfilling"),
                            (Long) source.get("splitsCachingUp"),
                            (Long) source.get("splitsFinished"),
                            (Long) source.get("splitsEnded"),
                            (Long) source.get("chunksLeft"),
                            (Double) source.get("recordsPerSecond"),
                            Boolean.TRUE.equals(source.get("forwardMode"))
                                    ? "live"
                                    : until != null
                                            ? "live in about " + until + " s"
                                            : Boolean.TRUE.equals(source.get("paused"))
                                                    ? "live: not while paused"
                                                    : "live: unknown while nothing is backfilled"));
        }
        return out.toString();
    }
}
