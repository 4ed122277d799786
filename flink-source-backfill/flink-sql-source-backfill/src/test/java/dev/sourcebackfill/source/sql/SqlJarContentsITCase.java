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
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The SQL jar as {@code package} built it: it discovers the kafka-backfill factory only, holds the
 * library, Flink's Kafka connector and the Kafka client relocated, and nothing of Flink itself.
 * Every class is under {@code dev/sourcebackfill/}, so none has the name of a class in Flink's
 * {@code flink-sql-connector-kafka}, and both jars can share one class path in either order.
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
                            "dev/sourcebackfill/shaded/org/apache/flink/streaming/connectors/kafka/table/KafkaConnectorOptions.class",
                            "dev/sourcebackfill/shaded/org/apache/flink/connector/kafka/source/split/KafkaPartitionSplit.class");
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

    /**
     * The package prefixes flink-sql-connector-kafka has classes in, besides its own shaded ones.
     */
    private static final List<String> FLINK_KAFKA_CONNECTOR_PACKAGES =
            List.of(
                    "org/apache/kafka/",
                    "org/apache/flink/connector/kafka/",
                    "org/apache/flink/streaming/connectors/kafka/",
                    "org/apache/flink/streaming/util/serialization/");

    @Test
    void everyClassIsRelocatedAwayFromFlinksKafkaSqlJar() throws IOException {
        try (JarFile jar = new JarFile(sqlJar().toFile())) {
            List<String> classes =
                    jar.stream()
                            .map(JarEntry::getName)
                            .filter(e -> e.endsWith(".class"))
                            .collect(Collectors.toList());
            assertThat(classes)
                    .as("Flink's Kafka connector and the Kafka client only relocated")
                    .noneMatch(
                            e -> FLINK_KAFKA_CONNECTOR_PACKAGES.stream().anyMatch(e::startsWith));
            assertThat(classes)
                    .as(
                            "every class under dev/sourcebackfill/ (no name flink-sql-connector-kafka has)")
                    .allMatch(e -> e.startsWith("dev/sourcebackfill/"));
            List<String> unrelocated = new ArrayList<>();
            for (String name : classes) {
                String bytes;
                try (InputStream in = jar.getInputStream(jar.getJarEntry(name))) {
                    bytes = new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);
                }
                for (String pkg : FLINK_KAFKA_CONNECTOR_PACKAGES) {
                    for (int at = bytes.indexOf(pkg); at >= 0; at = bytes.indexOf(pkg, at + 1)) {
                        if (!bytes.startsWith(RELOCATED_PREFIX, at - RELOCATED_PREFIX.length())) {
                            unrelocated.add(name + " refers to " + pkg);
                            break;
                        }
                    }
                }
            }
            assertThat(unrelocated)
                    .as("no class refers to a class of the connector or the client by its own name")
                    .isEmpty();
        }
    }

    private static final String RELOCATED_PREFIX = "dev/sourcebackfill/shaded/";

    @Test
    void everyServiceNamesAClassOfTheJarOrOfFlink() throws IOException {
        try (JarFile jar = new JarFile(sqlJar().toFile())) {
            Set<String> entries = jar.stream().map(JarEntry::getName).collect(Collectors.toSet());
            List<String> servicesFiles =
                    entries.stream()
                            .filter(e -> e.startsWith("META-INF/services/") && !e.endsWith("/"))
                            .sorted()
                            .collect(Collectors.toList());
            assertThat(servicesFiles)
                    .contains(
                            SERVICES,
                            "META-INF/services/dev.sourcebackfill.shaded.org.apache.kafka.common.config.provider.ConfigProvider");
            for (String file : servicesFiles) {
                String service = file.substring("META-INF/services/".length());
                assertThat(entries.contains(classEntry(service)) || isFlinksOwn(service))
                        .as("the service %s is a class of the jar or of Flink's own jars", service)
                        .isTrue();
                String content;
                try (InputStream in = jar.getInputStream(jar.getJarEntry(file))) {
                    content = new String(in.readAllBytes(), StandardCharsets.UTF_8);
                }
                List<String> implementations =
                        content.lines()
                                .map(l -> l.replaceAll("#.*", "").trim())
                                .filter(l -> !l.isEmpty())
                                .collect(Collectors.toList());
                assertThat(implementations).as(file).isNotEmpty();
                assertThat(implementations)
                        .as("the classes %s names are in the jar", file)
                        .allMatch(c -> entries.contains(classEntry(c)));
            }
        }
    }

    /** In Flink's own packages, and not in one that flink-sql-connector-kafka brings. */
    private static boolean isFlinksOwn(String className) {
        String path = classEntry(className);
        return path.startsWith("org/apache/flink/")
                && FLINK_KAFKA_CONNECTOR_PACKAGES.stream().noneMatch(path::startsWith);
    }

    private static String classEntry(String className) {
        return className.replace('.', '/') + ".class";
    }

    @Test
    void theNoticeAndLicenseAreTheJarsOwn() throws IOException {
        try (JarFile jar = new JarFile(sqlJar().toFile())) {
            String notice = read(jar, "META-INF/NOTICE");
            assertThat(notice)
                    .contains(
                            "flink-source-backfill",
                            "org.apache.flink:flink-connector-kafka ",
                            "org.apache.kafka:kafka-clients ",
                            "Apache License, Version 2.0")
                    .as("versions filled in")
                    .doesNotContain("${");
            assertThat(jar.getJarEntry("META-INF/DEPENDENCIES"))
                    .as("no dependency list inherited from a bundled artifact")
                    .isNull();
            assertThat(read(jar, "META-INF/LICENSE")).contains("Apache License");
        }
    }

    private static String read(JarFile jar, String name) throws IOException {
        JarEntry entry = jar.getJarEntry(name);
        assertThat(entry).as(name).isNotNull();
        try (InputStream in = jar.getInputStream(entry)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    /** The SQL jar this module's build packaged. */
    static Path sqlJar() throws IOException {
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
            assertThat(jars.get(0).getFileName().toString())
                    .as("the jar's name carries the version, which names the Flink line")
                    .isEqualTo(
                            "flink-sql-source-backfill-"
                                    + System.getProperty("backfill.version")
                                    + ".jar")
                    .contains("-" + System.getProperty("backfill.flink.line") + "-");
            return jars.get(0);
        }
    }
}
