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
package dev.sourcebackfill.source.control;

import org.apache.flink.annotation.PublicEvolving;

import javax.annotation.Nullable;

import java.io.Serializable;
import java.util.Locale;
import java.util.Objects;
import java.util.OptionalDouble;

/**
 * How a running source's backfill is steered: its rate limit (records per second per reader) and
 * whether it is paused. Paused, no reader reads a history record; live records of FINISHED splits
 * keep flowing. Without a rate of its own, each reader keeps the rate limit the source was built
 * with.
 *
 * <p>Written as text to the source's control file ({@code setBackfillControlFile}), one {@code
 * key=value} per line, {@code #} starting a comment:
 *
 * <pre>
 * rate=500       # records per second per reader; "builder": the rate the source was built with
 * paused=false
 * </pre>
 *
 * A key left out keeps its default (the builder's rate; not paused).
 */
@PublicEvolving
public final class BackfillControl implements Serializable {

    private static final long serialVersionUID = 1L;

    /** The key of the rate limit. */
    public static final String RATE = "rate";

    /** The key of the pause. */
    public static final String PAUSED = "paused";

    /** The value of {@link #RATE} that keeps the rate the source was built with. */
    public static final String BUILDER_RATE = "builder";

    private static final BackfillControl AS_BUILT = new BackfillControl(null, false);

    /**
     * {@code null}: the rate limit the source was built with (OptionalDouble is no Serializable).
     */
    @Nullable private final Double recordsPerSecond;

    private final boolean paused;

    private BackfillControl(@Nullable Double recordsPerSecond, boolean paused) {
        if (recordsPerSecond != null
                && (!(recordsPerSecond > 0) || Double.isInfinite(recordsPerSecond))) {
            throw new IllegalArgumentException(
                    "The backfill rate must be positive and finite (records per second per reader;"
                            + " to stop the backfill, pause it), was "
                            + recordsPerSecond);
        }
        this.recordsPerSecond = recordsPerSecond;
        this.paused = paused;
    }

    /** The source as it was built: its own rate limit, not paused. */
    public static BackfillControl asBuilt() {
        return AS_BUILT;
    }

    /** The same control with a rate of {@code recordsPerSecond} per reader. */
    public BackfillControl withRate(double recordsPerSecond) {
        return new BackfillControl(recordsPerSecond, paused);
    }

    /** The same control with the rate limit the source was built with. */
    public BackfillControl withBuilderRate() {
        return new BackfillControl(null, paused);
    }

    public BackfillControl withPaused(boolean paused) {
        return new BackfillControl(recordsPerSecond, paused);
    }

    /** Records per second per reader, if set here; else the source's own rate limit holds. */
    public OptionalDouble recordsPerSecond() {
        return recordsPerSecond == null
                ? OptionalDouble.empty()
                : OptionalDouble.of(recordsPerSecond);
    }

    public boolean paused() {
        return paused;
    }

    /**
     * Reads a control from its text.
     *
     * @param where what the text is (a file's path), for the error
     * @throws IllegalArgumentException naming {@code where}, the line and what is wrong with it
     */
    public static BackfillControl parse(String text, String where) {
        BackfillControl control = AS_BUILT;
        String[] lines = text.split("\\R", -1);
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i];
            int comment = line.indexOf('#');
            String content = (comment < 0 ? line : line.substring(0, comment)).trim();
            if (content.isEmpty()) {
                continue;
            }
            int eq = content.indexOf('=');
            if (eq < 0) {
                throw malformed(where, i, line, "not key=value");
            }
            String key = content.substring(0, eq).trim();
            String value = content.substring(eq + 1).trim();
            switch (key) {
                case RATE:
                    control =
                            value.equals(BUILDER_RATE)
                                    ? control.withBuilderRate()
                                    : control.withRate(rate(value, where, i, line));
                    break;
                case PAUSED:
                    String flag = value.toLowerCase(Locale.ROOT);
                    if (!flag.equals("true") && !flag.equals("false")) {
                        throw malformed(where, i, line, "paused must be true or false");
                    }
                    control = control.withPaused(flag.equals("true"));
                    break;
                default:
                    throw malformed(
                            where, i, line, "unknown key '" + key + "' (keys: rate, paused)");
            }
        }
        return control;
    }

    private static double rate(String value, String where, int index, String line) {
        double rate;
        try {
            rate = Double.parseDouble(value);
        } catch (NumberFormatException e) {
            throw malformed(where, index, line, "rate must be a number or '" + BUILDER_RATE + "'");
        }
        if (!(rate > 0) || Double.isInfinite(rate)) {
            throw malformed(
                    where,
                    index,
                    line,
                    "rate must be positive and finite (to stop the backfill: paused=true)");
        }
        return rate;
    }

    private static IllegalArgumentException malformed(
            String where, int index, String line, String problem) {
        return new IllegalArgumentException(
                String.format(
                        "Backfill control %s, line %d ('%s'): %s",
                        where, index + 1, line.trim(), problem));
    }

    /** The control as the text {@link #parse} reads. */
    public String toText() {
        return RATE
                + '='
                + (recordsPerSecond == null ? BUILDER_RATE : formatRate(recordsPerSecond))
                + '\n'
                + PAUSED
                + '='
                + paused
                + '\n';
    }

    private static String formatRate(double rate) {
        return rate == Math.rint(rate) ? Long.toString((long) rate) : Double.toString(rate);
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof BackfillControl)) {
            return false;
        }
        BackfillControl that = (BackfillControl) o;
        return paused == that.paused && Objects.equals(recordsPerSecond, that.recordsPerSecond);
    }

    @Override
    public int hashCode() {
        return Objects.hash(recordsPerSecond, paused);
    }

    @Override
    public String toString() {
        return (paused ? "paused" : "running")
                + ", "
                + (recordsPerSecond == null
                        ? "the source's own rate limit"
                        : formatRate(recordsPerSecond) + " records per second per reader");
    }
}
