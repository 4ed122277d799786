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

import dev.sourcebackfill.source.BackfillSource;
import dev.sourcebackfill.source.datagen.DatagenLog;
import dev.sourcebackfill.source.datagen.DatagenRecord;

import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.client.program.rest.RestClusterClient;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.test.junit5.InjectClusterClient;
import org.apache.flink.test.junit5.MiniClusterExtension;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Predicate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The client against a running job on a MiniCluster, through Flink's REST API and the source's
 * control file: a backfill paused from the start shows every split BACKFILLING with nothing
 * backfilled and all of it left; resumed by the client at a rate, it reaches forward mode, every
 * split FINISHED with nothing left; the errors name the job or the source, with exit code 1.
 */
class BackfillCliITCase {

    private static final int PARTITIONS = 4;
    private static final long HISTORY = 15_000;

    @RegisterExtension
    static final MiniClusterExtension CLUSTER =
            new MiniClusterExtension(
                    new MiniClusterResourceConfiguration.Builder()
                            .setNumberTaskManagers(1)
                            .setNumberSlotsPerTaskManager(2)
                            // the REST API's metrics refreshed every 500 ms (10 s by default)
                            .setConfiguration(
                                    Configuration.fromMap(
                                            Map.of("metrics.fetcher.update-interval", "500")))
                            .build());

    private static final ObjectMapper JSON = new ObjectMapper();

    /** What one run of the client printed and returned. */
    private record Run(int exitCode, String out, String err) {
        JsonNode json() throws Exception {
            return JSON.readTree(out);
        }
    }

    private static Run cli(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code =
                BackfillCli.run(
                        args,
                        new PrintStream(out, true, StandardCharsets.UTF_8),
                        new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Run(
                code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void statusPauseResumeAndSetRateOnARunningJob(
            @InjectClusterClient RestClusterClient<?> client, @TempDir Path dir) throws Exception {
        String control = dir.resolve("backfill.control").toString();
        assertThat(cli("pause", "--control", control).exitCode()).isZero();

        DatagenLog log =
                DatagenLog.builder()
                        .partitions(PARTITIONS)
                        .historyPerPartition(HISTORY)
                        .liveRatePerSecond(20)
                        // small polls: the rate limit grants a poll at a time
                        .maxRecordsPerPoll(100)
                        .build();
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        env.enableCheckpointing(200);
        BackfillSource<DatagenRecord> source =
                BackfillSource.<DatagenRecord>builder()
                        .setLog(log)
                        .setBackfillControlFile(control)
                        .setBackfillControlInterval(Duration.ofMillis(100))
                        .build();
        env.fromSource(
                        source,
                        WatermarkStrategy.noWatermarks(),
                        "datagen-backfill",
                        TypeInformation.of(DatagenRecord.class))
                .rebalance()
                .sinkTo(new DiscardingSink<>())
                .name("discard");
        JobClient job = env.executeAsync("cli status");
        String rest = client.getWebInterfaceURL();
        String id = job.getJobID().toHexString();
        try {
            // paused from its first poll: every split BACKFILLING, nothing backfilled, all left
            JsonNode paused =
                    awaitStatus(
                            rest,
                            id,
                            s ->
                                    s.path("splits").size() == PARTITIONS
                                            && s.path("paused").asBoolean());
            assertThat(paused.path("name").asText()).contains("datagen-backfill");
            assertThat(paused.path("forwardMode").asBoolean()).isFalse();
            assertThat(paused.path("splitsBackfilling").asLong()).isEqualTo(PARTITIONS);
            assertThat(paused.path("secondsUntilLive").isNull()).isTrue();
            long left = 0;
            Map<String, Long> leftWhilePaused = new HashMap<>();
            for (JsonNode split : paused.path("splits")) {
                assertThat(split.path("state").asText()).isEqualTo("BACKFILLING");
                assertThat(split.path("backfilled").asLong()).isZero();
                assertThat(split.path("left").asLong()).isGreaterThanOrEqualTo(HISTORY);
                left += split.path("left").asLong();
                leftWhilePaused.put(split.path("id").asText(), split.path("left").asLong());
            }
            assertThat(paused.path("recordsLeft").asLong()).isEqualTo(left);
            Run table = cli("status", "--rest", rest, "--job", id);
            assertThat(table.exitCode()).as(table.err()).isZero();
            // the README shows this output (surefire keeps it in the test's output file)
            System.out.println("STATUS WHILE PAUSED\n" + table.out());
            assertThat(table.out())
                    .contains("PAUSED")
                    .contains("BACKFILLING")
                    .contains("[------------------------]   0.0%");

            // resumed at 1000 records/s per reader: the client shows that rate on 2 readers (the
            // rate over the readers' last 10 to 15 s: once they have run longer than that)
            assertThat(cli("set-rate", "1000", "--control", control).exitCode()).isZero();
            assertThat(cli("resume", "--control", control).exitCode()).isZero();
            JsonNode slow =
                    awaitStatus(
                            rest,
                            id,
                            s -> backfilled(s) > 2_000 * 17 && s.path("recordsLeft").asLong() > 0);
            assertThat(slow.path("recordsPerSecond").asDouble())
                    .as("the backfill rate at 1000 records/s per reader on 2 readers")
                    .isBetween(1_600.0, 2_400.0);
            double rate = slow.path("recordsPerSecond").asDouble();
            assertThat(slow.path("secondsUntilLive").asLong())
                    .as("the offsets left over the rate")
                    .isEqualTo(Math.round(slow.path("recordsLeft").asLong() / rate));

            // then faster: every split reaches its handover, then forward mode
            assertThat(cli("set-rate", "50000", "--control", control).exitCode()).isZero();
            JsonNode live = awaitStatus(rest, id, s -> s.path("forwardMode").asBoolean());
            assertThat(live.path("paused").asBoolean()).isFalse();
            assertThat(live.path("controlRecordsPerSecond").asDouble()).isEqualTo(50000.0);
            assertThat(live.path("splitsFinished").asLong()).isEqualTo(PARTITIONS);
            assertThat(live.path("recordsLeft").asLong()).isZero();
            assertThat(live.path("secondsUntilLive").asLong()).isZero();
            for (JsonNode split : live.path("splits")) {
                assertThat(split.path("state").asText()).isEqualTo("FINISHED");
                // the datagen log has every offset: what was left is what was backfilled
                assertThat(split.path("backfilled").asLong())
                        .as("records backfilled for %s", split.path("id").asText())
                        .isEqualTo(leftWhilePaused.get(split.path("id").asText()));
                assertThat(split.path("progress").asDouble()).isEqualTo(1.0);
            }

            System.out.println(
                    "STATUS IN FORWARD MODE\n" + cli("status", "--rest", rest, "--job", id).out());

            // errors name what is wrong, exit code 1
            Run unknownJob = cli("status", "--rest", rest, "--job", new JobID().toHexString());
            assertThat(unknownJob.exitCode()).isEqualTo(1);
            assertThat(unknownJob.err()).contains("knows no job");
            Run unknownSource =
                    cli("status", "--rest", rest, "--job", id, "--source", "no-such-source");
            assertThat(unknownSource.exitCode()).isEqualTo(1);
            assertThat(unknownSource.err()).contains("has no source named 'no-such-source'");
            Run notBackfill = cli("status", "--rest", rest, "--job", id, "--source", "discard");
            assertThat(notBackfill.exitCode()).isEqualTo(1);
            assertThat(notBackfill.err()).contains("is not a backfill source");
            Run usage = cli("status", "--rest", rest);
            assertThat(usage.exitCode()).isEqualTo(2);
            assertThat(usage.err()).contains("option --job is required");
        } finally {
            job.cancel().get();
        }
        awaitNotRunning(job);
        // Flink's REST API may show the job's last state for a moment (web.refresh-interval)
        Run ended = cli("status", "--rest", rest, "--job", id);
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (ended.exitCode() == 0 && System.nanoTime() < deadline) {
            Thread.sleep(200);
            ended = cli("status", "--rest", rest, "--job", id);
        }
        assertThat(ended.exitCode()).isEqualTo(1);
        assertThat(ended.err()).contains("not running");
    }

    /** Records backfilled over the source's splits. */
    private static long backfilled(JsonNode source) {
        long backfilled = 0;
        for (JsonNode split : source.path("splits")) {
            backfilled += split.path("backfilled").asLong();
        }
        return backfilled;
    }

    /** The first source's status once {@code until} holds, polled with the client's JSON. */
    private static JsonNode awaitStatus(String rest, String job, Predicate<JsonNode> until)
            throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
        String last = "";
        while (System.nanoTime() < deadline) {
            Run run = cli("status", "--rest", rest, "--job", job, "--json");
            if (run.exitCode() == 0) {
                JsonNode source = run.json().path("sources").path(0);
                if (until.test(source)) {
                    return source;
                }
                last = run.out();
            } else {
                last = run.err();
            }
            Thread.sleep(200);
        }
        throw new AssertionError("The status never got there; last: " + last);
    }

    private static void awaitNotRunning(JobClient job) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (!job.getJobStatus().get().isGloballyTerminalState()) {
            assertThat(System.nanoTime()).as("the job ends").isLessThan(deadline);
            Thread.sleep(50);
        }
    }
}
