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
package dev.sourcebackfill.source.sql;

import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Review finding: docs/iceberg.md and docs/sql.md tell SQL users to put {@code
 * flink-source-backfill-iceberg} (and Iceberg's jars) beside this SQL jar. But this jar relocates
 * the Kafka client ({@code dev.sourcebackfill.shaded.org.apache.kafka}) in the library's own
 * classes, while the Iceberg module's jar is not relocated: its classes name {@code
 * org.apache.kafka.*} (ConsumerRecord, TopicPartition, RecordHeaders, TimestampType) and call
 * {@code KafkaSplitIds.of(org.apache.kafka.common.TopicPartition)}, which in this jar takes the
 * relocated TopicPartition. The documented class path cannot run an Iceberg table (NoClassDefFound
 * or NoSuchMethodError in the enumerator and the readers).
 */
class SqlJarWithIcebergModuleITCase {

    private static final Pattern KAFKA_CLASS = Pattern.compile("org/apache/kafka/[\\w/$]+");

    @Test
    void theIcebergModuleLinksAgainstTheSqlJar() throws IOException {
        Set<String> named = new TreeSet<>();
        try (JarFile iceberg = new JarFile(icebergModuleJar().toFile())) {
            for (JarEntry entry : iceberg.stream().collect(Collectors.toList())) {
                if (!entry.getName().endsWith(".class")) {
                    continue;
                }
                String bytes = read(iceberg, entry);
                Matcher m = KAFKA_CLASS.matcher(bytes);
                while (m.find()) {
                    named.add(m.group());
                }
            }
        }
        assertThat(named).as("the Iceberg module uses the Kafka client").isNotEmpty();
        SoftAssertions soft = new SoftAssertions();
        try (JarFile sql = new JarFile(sqlJar().toFile())) {
            Set<String> missing = new TreeSet<>();
            for (String name : named) {
                if (sql.getJarEntry(name + ".class") == null) {
                    missing.add(name);
                }
            }
            soft.assertThat(missing)
                    .as("Kafka classes the Iceberg module names that the SQL jar lacks")
                    .isEmpty();
            String splitIds =
                    read(
                            sql,
                            sql.getJarEntry("dev/sourcebackfill/source/kafka/KafkaSplitIds.class"));
            soft.assertThat(splitIds)
                    .as(
                            "KafkaSplitIds.of as the Iceberg module calls it (IcebergDiscoverer,"
                                    + " TableHistory)")
                    .contains("(Lorg/apache/kafka/common/TopicPartition;)Ljava/lang/String;");
        }
        soft.assertAll();
    }

    private static String read(JarFile jar, JarEntry entry) throws IOException {
        try (InputStream in = jar.getInputStream(entry)) {
            return new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);
        }
    }

    private static Path icebergModuleJar() throws IOException {
        return onlyJar(
                Path.of("../flink-source-backfill-iceberg/target"),
                "flink-source-backfill-iceberg-");
    }

    private static Path sqlJar() throws IOException {
        return onlyJar(Path.of("target"), "flink-sql-source-backfill-");
    }

    private static Path onlyJar(Path dir, String prefix) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            List<Path> jars =
                    files.filter(
                                    f -> {
                                        String name = f.getFileName().toString();
                                        return name.startsWith(prefix)
                                                && name.endsWith(".jar")
                                                && !name.endsWith("-tests.jar")
                                                && !name.endsWith("-sources.jar")
                                                && !name.endsWith("-javadoc.jar");
                                    })
                            .collect(Collectors.toList());
            assertThat(jars).as("the jar package built in %s", dir).hasSize(1);
            return jars.get(0);
        }
    }
}
