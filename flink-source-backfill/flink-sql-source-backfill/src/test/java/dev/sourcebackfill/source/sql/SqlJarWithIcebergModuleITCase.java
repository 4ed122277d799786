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
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The SQL jar carries the Iceberg module's classes (the {@code backfill.iceberg.*} options), with
 * the Kafka client's names in them relocated like the rest of the library's (a separate module jar
 * beside this one would name the client by its own name, which this jar does not have: found by the
 * review of the SQL options), and none of Iceberg's own classes (the user adds Iceberg's and
 * Hadoop's jars).
 */
class SqlJarWithIcebergModuleITCase {

    private static final String RELOCATED = "dev/sourcebackfill/shaded/";
    private static final Pattern KAFKA_CLASS =
            Pattern.compile("(" + RELOCATED + ")?org/apache/kafka/[\\w/$]+");

    @Test
    void theIcebergModulesClassesAreInTheJarLinkedToTheRelocatedKafkaClient() throws IOException {
        try (JarFile sql = new JarFile(SqlJarContentsITCase.sqlJar().toFile())) {
            List<JarEntry> icebergModule =
                    sql.stream()
                            .filter(
                                    e ->
                                            e.getName()
                                                            .startsWith(
                                                                    "dev/sourcebackfill/source/iceberg/")
                                                    && e.getName().endsWith(".class"))
                            .collect(Collectors.toList());
            assertThat(icebergModule.stream().map(JarEntry::getName))
                    .as("the Iceberg module's classes")
                    .contains(
                            "dev/sourcebackfill/source/iceberg/IcebergBackfillSourceBuilder.class",
                            "dev/sourcebackfill/source/iceberg/IcebergRowDeserializer.class",
                            "dev/sourcebackfill/source/iceberg/TableHistory.class");
            Set<String> named = new TreeSet<>();
            Set<String> unrelocated = new TreeSet<>();
            for (JarEntry entry : icebergModule) {
                Matcher m = KAFKA_CLASS.matcher(read(sql, entry));
                while (m.find()) {
                    if (m.group(1) == null) {
                        unrelocated.add(entry.getName() + " names " + m.group());
                    } else {
                        named.add(m.group());
                    }
                }
            }
            assertThat(unrelocated).as("Kafka names not relocated").isEmpty();
            assertThat(named).as("the module uses the Kafka client").isNotEmpty();
            assertThat(named.stream().filter(n -> sql.getJarEntry(n + ".class") == null))
                    .as("relocated Kafka classes the module names that the jar lacks")
                    .isEmpty();
            assertThat(
                            read(
                                    sql,
                                    sql.getJarEntry(
                                            "dev/sourcebackfill/source/kafka/KafkaSplitIds.class")))
                    .as("KafkaSplitIds.of as the Iceberg module calls it")
                    .contains("(L" + RELOCATED + "org/apache/kafka/common/TopicPartition;)");
            assertThat(sql.stream().map(JarEntry::getName))
                    .as("Iceberg itself is not bundled")
                    .noneMatch(n -> n.startsWith("org/apache/iceberg/"));
        }
    }

    private static String read(JarFile jar, JarEntry entry) throws IOException {
        try (InputStream in = jar.getInputStream(entry)) {
            return new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);
        }
    }
}
