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
package dev.sourcebackfill.benchmark;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import javax.annotation.Nullable;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** The figures of a benchmark run: a Markdown table for people, a JSON file for machines. */
final class Report {

    /** One figure: ours, and where there is one, the baseline measured in the same rounds. */
    static final class Row {
        final String id;
        final String figure;
        final String unit;
        final Samples contender;
        @Nullable final String baselineName;
        @Nullable final Samples baseline;
        final String target;

        Row(
                String id,
                String figure,
                String unit,
                Samples contender,
                @Nullable String baselineName,
                @Nullable Samples baseline,
                String target) {
            this.id = id;
            this.figure = figure;
            this.unit = unit;
            this.contender = contender;
            this.baselineName = baselineName;
            this.baseline = baseline;
            this.target = target;
        }

        @Nullable
        Samples ratio() {
            return baseline == null ? null : contender.ratioTo(baseline);
        }
    }

    private final List<Row> rows = new ArrayList<>();
    private final Map<String, Object> environment = new LinkedHashMap<>();

    void environment(String key, Object value) {
        environment.put(key, value);
    }

    void add(Row row) {
        rows.add(row);
        System.out.println("  " + line(row));
    }

    void add(String id, String figure, String unit, Samples ours, String target) {
        add(new Row(id, figure, unit, ours, null, null, target));
    }

    List<Row> rows() {
        return rows;
    }

    void printTable(PrintStream out) {
        out.println();
        out.println(
                "| figure | ours: median (min-max) | baseline: median (min-max) | ratio ours/baseline: median (min-max) | target |");
        out.println("| --- | --- | --- | --- | --- |");
        for (Row row : rows) {
            out.printf(
                    "| %s | %s | %s | %s | %s |%n",
                    row.figure,
                    range(row.contender, row.unit),
                    row.baseline == null
                            ? ""
                            : row.baselineName + ": " + range(row.baseline, row.unit),
                    row.ratio() == null ? "" : range(row.ratio(), ""),
                    row.target);
        }
        out.println();
    }

    void writeJson(Path file) throws IOException {
        ObjectMapper mapper = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
        ObjectNode root = mapper.createObjectNode();
        root.set("environment", mapper.valueToTree(environment));
        ArrayNode figures = root.putArray("figures");
        for (Row row : rows) {
            ObjectNode node = figures.addObject();
            node.put("id", row.id);
            node.put("figure", row.figure);
            node.put("unit", row.unit);
            node.set("ours", stats(mapper, row.contender));
            if (row.baseline != null) {
                node.put("baselineName", row.baselineName);
                node.set("baseline", stats(mapper, row.baseline));
                node.set("ratio", stats(mapper, row.ratio()));
            }
            node.put("target", row.target);
        }
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        mapper.writeValue(file.toFile(), root);
    }

    private static ObjectNode stats(ObjectMapper mapper, Samples s) {
        ObjectNode node = mapper.createObjectNode();
        node.put("median", s.median());
        node.put("min", s.min());
        node.put("max", s.max());
        ArrayNode all = node.putArray("samples");
        s.values().forEach(all::add);
        return node;
    }

    private static String line(Row row) {
        String s = row.figure + ": " + range(row.contender, row.unit);
        if (row.baseline != null) {
            s +=
                    "; "
                            + row.baselineName
                            + " "
                            + range(row.baseline, row.unit)
                            + "; ratio "
                            + range(row.ratio(), "");
        }
        return s;
    }

    private static String range(Samples s, String unit) {
        String u = unit.isEmpty() ? "" : " " + unit;
        if (s.size() == 1) {
            return format(s.median()) + u;
        }
        return format(s.median()) + " (" + format(s.min()) + "-" + format(s.max()) + ")" + u;
    }

    static String format(double v) {
        double a = Math.abs(v);
        if (a >= 1e6) {
            return String.format(Locale.ROOT, "%.2fM", v / 1e6);
        }
        if (a >= 1e4) {
            return String.format(Locale.ROOT, "%.0fk", v / 1e3);
        }
        if (a >= 100) {
            return String.format(Locale.ROOT, "%.0f", v);
        }
        if (a >= 1) {
            return String.format(Locale.ROOT, "%.2f", v);
        }
        return String.format(Locale.ROOT, "%.3f", v);
    }
}
