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
package dev.sourcebackfill.source.testutils;

import java.io.IOException;
import java.io.Reader;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The two halves of a test that moves a job to another Flink line (README "Flink lines"): the first
 * half, run with {@value #WRITE}{@code =DIR} in the build of the line left, stops the job with a
 * savepoint and writes a manifest into {@code DIR}; the second half, run with {@value #READ}{@code
 * =DIR} in the build of the line moved to, reads it. The manifest carries the line that wrote it,
 * which must not be the reader's.
 */
public final class LineUpgrades {

    /** The system property that enables a first half, naming its directory. */
    public static final String WRITE = "backfill.upgrade.write";

    /** The system property that enables a second half, naming the first half's directory. */
    public static final String READ = "backfill.upgrade.read";

    private LineUpgrades() {}

    /** The Flink line of this build (failsafe's {@code backfill.flink.line}). */
    public static String flinkLine() {
        String line = System.getProperty("backfill.flink.line");
        assertThat(line).as("the build's Flink line (failsafe's backfill.flink.line)").isNotBlank();
        return line;
    }

    /** Writes a first half's manifest, with this build's line. */
    public static void write(Path file, Properties manifest, String comment) throws IOException {
        manifest.setProperty("line", flinkLine());
        try (Writer out = Files.newBufferedWriter(file)) {
            manifest.store(out, comment);
        }
    }

    /** Reads the first half's manifest, written on another line than this build's. */
    public static Properties read(Path file) throws IOException {
        assertThat(file)
                .as("the first half's manifest (run it with -D%s on the line left)", WRITE)
                .exists();
        Properties manifest = new Properties();
        try (Reader in = Files.newBufferedReader(file)) {
            manifest.load(in);
        }
        assertThat(manifest.getProperty("line"))
                .as("the savepoint was written on another Flink line than this build's")
                .isNotEqualTo(flinkLine());
        return manifest;
    }
}
