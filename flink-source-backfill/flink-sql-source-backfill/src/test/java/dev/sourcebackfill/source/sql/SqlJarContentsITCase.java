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

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The SQL jar as {@code package} built it: it discovers the kafka-backfill factory only, holds the
 * library, Flink's Kafka connector and the Kafka client relocated, and nothing of Flink itself.
 */
class SqlJarContentsITCase {

    private static final String SERVICES =
            "META-INF/services/org.apache.flink.table.factories.Factory";

    @Test
    void theJarDiscoversOnlyItsOwnFactoryAndRelocatesTheKafkaClient() throws IOException {
        try (JarFile jar = new JarFile(sqlJar().toFile())) {
            List<String> entries = jar.stream().map(JarEntry::getName).collect(Collectors.toList());
            JarEntry services = jar.getJarEntry(SERVICES);
            assertThat(services).as(SERVICES).isNotNull();
            try (InputStream in = jar.getInputStream(services)) {
                String factories = new String(in.readAllBytes(), StandardCharsets.UTF_8);
                assertThat(
                                factories
                                        .lines()
                                        .map(String::trim)
                                        .filter(l -> !l.isEmpty() && !l.startsWith("#")))
                        .containsExactly(
                                "dev.sourcebackfill.source.table.KafkaBackfillDynamicTableFactory");
            }
            assertThat(entries)
                    .contains(
                            "dev/sourcebackfill/source/table/KafkaBackfillDynamicTableFactory.class",
                            "dev/sourcebackfill/source/BackfillSource.class",
                            "dev/sourcebackfill/source/kafka/KafkaBackfill.class",
                            "dev/sourcebackfill/shaded/org/apache/kafka/clients/consumer/KafkaConsumer.class",
                            "org/apache/flink/streaming/connectors/kafka/table/KafkaConnectorOptions.class");
            assertThat(entries)
                    .as("the Kafka client only relocated")
                    .noneMatch(e -> e.startsWith("org/apache/kafka/"));
            assertThat(entries)
                    .as(
                            "nothing of Flink's runtime, table or connector-base jars (the cluster has them)")
                    .noneMatch(
                            e ->
                                    e.startsWith("org/apache/flink/api/")
                                            || e.startsWith("org/apache/flink/table/")
                                            || e.startsWith("org/apache/flink/runtime/")
                                            || e.startsWith("org/apache/flink/connector/base/")
                                            || e.startsWith("org/apache/flink/core/"));
        }
    }

    private static Path sqlJar() throws IOException {
        try (Stream<Path> files = Files.list(Path.of("target"))) {
            List<Path> jars =
                    files.filter(
                                    f -> {
                                        String name = f.getFileName().toString();
                                        return name.startsWith("flink-sql-source-backfill-")
                                                && name.endsWith(".jar")
                                                && !name.endsWith("-tests.jar");
                                    })
                            .collect(Collectors.toList());
            assertThat(jars).as("the jar package built in target/").hasSize(1);
            return jars.get(0);
        }
    }
}
