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
import java.util.jar.JarFile;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The e2e Iceberg job's shaded jar as {@code package} built it: its own NOTICE, naming Iceberg and
 * the Hadoop client beside what the examples' jar bundles, and the check job as its main class.
 */
class IcebergJobJarContentsITCase {

    @Test
    void theJarsNoticeIsItsOwnAndNamesWhatItBundles() throws IOException {
        String version = System.getProperty("backfill.version");
        Path jar = Path.of("target", "flink-source-backfill-e2e-iceberg-job-" + version + ".jar");
        assertThat(jar).as("the jar package built").exists();
        try (JarFile file = new JarFile(jar.toFile())) {
            String notice;
            try (InputStream in = file.getInputStream(file.getJarEntry("META-INF/NOTICE"))) {
                notice = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            }
            assertThat(notice)
                    .startsWith("flink-source-backfill: flink-source-backfill-e2e-iceberg-job")
                    .contains(
                            "org.apache.kafka:kafka-clients",
                            "org.apache.iceberg:iceberg-api",
                            "org.apache.hadoop:hadoop-client-api",
                            "org.xerial:sqlite-jdbc")
                    .doesNotContain("${");
            assertThat(file.getManifest().getMainAttributes().getValue("Main-Class"))
                    .isEqualTo(IcebergCheckJob.class.getName());
            assertThat(file.getJarEntry(CheckJobs.class.getName().replace('.', '/') + ".class"))
                    .as("the examples' classes the job uses")
                    .isNotNull();
            assertThat(file.getJarEntry("org/sqlite/JDBC.class")).as("the JDBC driver").isNotNull();
        }
    }
}
