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

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** The repeated measurements of one figure. */
final class Samples {

    private final List<Double> values = new ArrayList<>();

    static Samples of(double... values) {
        Samples s = new Samples();
        for (double v : values) {
            s.add(v);
        }
        return s;
    }

    void add(double value) {
        if (Double.isNaN(value) || Double.isInfinite(value)) {
            throw new IllegalArgumentException("A measurement is not a number: " + value);
        }
        values.add(value);
    }

    List<Double> values() {
        return Collections.unmodifiableList(values);
    }

    int size() {
        return values.size();
    }

    double get(int i) {
        return values.get(i);
    }

    double median() {
        List<Double> sorted = sorted();
        int n = sorted.size();
        return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }

    double min() {
        return sorted().get(0);
    }

    double max() {
        List<Double> sorted = sorted();
        return sorted.get(sorted.size() - 1);
    }

    /** The i-th ratio of this to {@code baseline}, pair by pair (same round). */
    Samples ratioTo(Samples baseline) {
        if (baseline.size() != size()) {
            throw new IllegalArgumentException(
                    "Unpaired samples: "
                            + size()
                            + " contender runs, "
                            + baseline.size()
                            + " baseline runs");
        }
        Samples ratio = new Samples();
        for (int i = 0; i < size(); i++) {
            ratio.add(get(i) / baseline.get(i));
        }
        return ratio;
    }

    private List<Double> sorted() {
        if (values.isEmpty()) {
            throw new IllegalStateException("No measurement");
        }
        List<Double> sorted = new ArrayList<>(values);
        Collections.sort(sorted);
        return sorted;
    }
}
