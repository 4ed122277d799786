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
package dev.sourcebackfill.examples;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;

import static org.assertj.core.api.Assertions.assertThat;

/** The examples' shaded jar as {@code package} built it carries a NOTICE of its own. */
class ExamplesJarContentsITCase {

    @Test
    void theJarsNoticeIsItsOwnAndNamesWhatItBundles() throws IOException {
        String version = System.getProperty("backfill.version");
        assertThat(version)
                .as("the artifacts' version names the Flink line they are built for")
                .contains("-" + System.getProperty("backfill.flink.line") + "-");
        Path jar = Path.of("target", "flink-source-backfill-examples-" + version + ".jar");
        assertThat(jar).as("the jar package built").exists();
        try (JarFile file = new JarFile(jar.toFile())) {
            String notice = read(file, "META-INF/NOTICE");
            assertThat(notice)
                    .startsWith("flink-source-backfill: flink-source-backfill-examples")
                    .contains(
                            "org.apache.flink:flink-connector-kafka",
                            "org.apache.kafka:kafka-clients",
                            "com.github.luben:zstd-jni")
                    .doesNotContain(
                            "${",
                            "org.apache.iceberg",
                            "org.apache.hadoop",
                            "Apache Iceberg",
                            "Apache Hadoop",
                            "and -iceberg");
            assertThat(file.getJarEntry("org/apache/iceberg/Table.class"))
                    .as("Iceberg is in the e2e Iceberg job's jar, not in the quick start's")
                    .isNull();
            assertThat(read(file, "META-INF/LICENSE")).contains("Apache License");
            assertThat(file.getJarEntry("META-INF/DEPENDENCIES")).as("DEPENDENCIES").isNull();
        }
    }

    private static String read(JarFile jar, String name) throws IOException {
        JarEntry entry = jar.getJarEntry(name);
        assertThat(entry).as(name).isNotNull();
        try (InputStream in = jar.getInputStream(entry)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
