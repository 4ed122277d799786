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
package dev.sourcebackfill.source.spi;

import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.util.Collector;

/**
 * Hands values on to another collector, noting while a value is downstream: for a deserializer (or
 * the source's emitter) that tells its own failures from those of the operators after the source,
 * which must be passed on as they are and not reported as a record that could not be read.
 *
 * <pre>{@code
 * passing.to(out);
 * try {
 *     schema.deserialize(record, passing);
 * } catch (IOException | RuntimeException e) {
 *     if (passing.failedDownstream()) {
 *         throw e; // the job's failure, not the schema's
 *     }
 *     throw new IOException("The schema failed on the record at offset " + offset, e);
 * }
 * }</pre>
 *
 * <p>One per deserializer, reused for every record; not for use by two threads.
 */
@PublicEvolving
public final class PassingCollector<T> implements Collector<T> {

    private Collector<T> out;
    private boolean downstream;

    /** Hands the values of the next record to {@code out}; none is downstream yet. */
    public PassingCollector<T> to(Collector<T> out) {
        this.out = out;
        this.downstream = false;
        return this;
    }

    @Override
    public void collect(T value) {
        downstream = true;
        out.collect(value);
        downstream = false;
    }

    /** Whether a failure thrown while values were collected came from downstream. */
    public boolean failedDownstream() {
        return downstream;
    }

    @Override
    public void close() {}
}
