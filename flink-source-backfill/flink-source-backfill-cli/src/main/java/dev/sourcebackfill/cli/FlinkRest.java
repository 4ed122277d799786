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

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The few routes of Flink's REST API the client reads (the same on Flink 1.20 and 2.x). */
final class FlinkRest {

    /** A request Flink answered with an error status. */
    static final class RestError extends IOException {
        final int status;

        RestError(int status, String message) {
            super(message);
            this.status = status;
        }
    }

    private static final ObjectMapper JSON = new ObjectMapper();

    /** Metric ids in one {@code get=} query: a URL stays well under the usual limits. */
    private static final int IDS_PER_QUERY = 40;

    private final String base;
    private final HttpClient http;

    FlinkRest(String base) {
        this.base = base.endsWith("/") ? base.substring(0, base.length() - 1) : base;
        this.http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
    }

    String base() {
        return base;
    }

    /** {@code GET /jobs/:jobid}: the job's name, state and vertices. */
    JsonNode job(String jobId) throws IOException, InterruptedException {
        return get("/jobs/" + jobId);
    }

    /** The ids of the JobManager metrics of a vertex's operators (its source's enumerator). */
    List<String> coordinatorMetricIds(String jobId, String vertexId)
            throws IOException, InterruptedException {
        return ids(get(jmOperatorMetrics(jobId, vertexId)));
    }

    Map<String, String> coordinatorMetrics(String jobId, String vertexId, Collection<String> ids)
            throws IOException, InterruptedException {
        return values(jmOperatorMetrics(jobId, vertexId), ids);
    }

    List<String> subtaskMetricIds(String jobId, String vertexId, int subtask)
            throws IOException, InterruptedException {
        return ids(get(subtaskMetrics(jobId, vertexId, subtask)));
    }

    Map<String, String> subtaskMetrics(
            String jobId, String vertexId, int subtask, Collection<String> ids)
            throws IOException, InterruptedException {
        return values(subtaskMetrics(jobId, vertexId, subtask), ids);
    }

    private static String jmOperatorMetrics(String jobId, String vertexId) {
        return "/jobs/" + jobId + "/vertices/" + vertexId + "/jm-operator-metrics";
    }

    private static String subtaskMetrics(String jobId, String vertexId, int subtask) {
        return "/jobs/" + jobId + "/vertices/" + vertexId + "/subtasks/" + subtask + "/metrics";
    }

    private static List<String> ids(JsonNode list) {
        List<String> ids = new ArrayList<>();
        for (JsonNode metric : list) {
            ids.add(metric.path("id").asText());
        }
        return ids;
    }

    private Map<String, String> values(String route, Collection<String> ids)
            throws IOException, InterruptedException {
        Map<String, String> values = new LinkedHashMap<>();
        List<String> all = new ArrayList<>(ids);
        for (int from = 0; from < all.size(); from += IDS_PER_QUERY) {
            List<String> some = all.subList(from, Math.min(all.size(), from + IDS_PER_QUERY));
            String query =
                    String.join(
                            ",",
                            some.stream()
                                    .map(
                                            id ->
                                                    java.net.URLEncoder.encode(
                                                            id, StandardCharsets.UTF_8))
                                    .toList());
            for (JsonNode metric : get(route + "?get=" + query)) {
                values.put(metric.path("id").asText(), metric.path("value").asText());
            }
        }
        return values;
    }

    private JsonNode get(String path) throws IOException, InterruptedException {
        HttpRequest request =
                HttpRequest.newBuilder(URI.create(base + path))
                        .timeout(Duration.ofSeconds(30))
                        .GET()
                        .build();
        HttpResponse<String> response;
        try {
            response = http.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (java.net.ConnectException e) {
            throw new IOException("Flink's REST API at " + base + " does not answer: " + e, e);
        }
        if (response.statusCode() != 200) {
            throw new RestError(
                    response.statusCode(),
                    "GET "
                            + base
                            + path
                            + " answered "
                            + response.statusCode()
                            + ": "
                            + response.body());
        }
        return JSON.readTree(response.body());
    }
}
