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
package dev.sourcebackfill.source;

import org.junit.jupiter.api.Test;

import java.net.URI;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The core artifact holds the source, its SPI, enumerator, reader, splits, events and metrics, and
 * nothing of an adapter or the datagen log; neither Kafka nor the datagen log is on its class path.
 */
class CoreArtifactContentsTest {

    private static final Set<String> CORE_PACKAGES =
            Set.of(
                    "dev.sourcebackfill.source",
                    "dev.sourcebackfill.source.control",
                    "dev.sourcebackfill.source.enumerator",
                    "dev.sourcebackfill.source.event",
                    "dev.sourcebackfill.source.metrics",
                    "dev.sourcebackfill.source.reader",
                    "dev.sourcebackfill.source.spi",
                    "dev.sourcebackfill.source.split");

    @Test
    void theCoreClassesLieOnlyInTheCorePackages() throws Exception {
        URI location =
                BackfillSource.class.getProtectionDomain().getCodeSource().getLocation().toURI();
        Path root = Path.of(location);
        Set<String> packages = new TreeSet<>();
        if (Files.isDirectory(root)) {
            collectPackages(root, packages);
        } else {
            try (FileSystem jar =
                    FileSystems.newFileSystem(URI.create("jar:" + location), Map.of())) {
                collectPackages(jar.getPath("/"), packages);
            }
        }
        assertThat(packages)
                .as("packages of %s", root)
                .contains("dev.sourcebackfill.source.reader");
        assertThat(packages).as("packages of %s", root).isSubsetOf(CORE_PACKAGES);
    }

    @Test
    void neitherKafkaNorTheDatagenLogIsOnTheCoreClassPath() {
        for (String name :
                new String[] {
                    "org.apache.kafka.clients.consumer.KafkaConsumer",
                    "org.apache.flink.connector.kafka.source.KafkaSource",
                    "dev.sourcebackfill.source.kafka.KafkaBackfill",
                    "dev.sourcebackfill.source.datagen.DatagenLog"
                }) {
            assertThatThrownBy(() -> Class.forName(name))
                    .as(name)
                    .isInstanceOf(ClassNotFoundException.class);
        }
    }

    private static void collectPackages(Path root, Set<String> packages) throws Exception {
        try (Stream<Path> files = Files.walk(root)) {
            files.filter(f -> f.toString().endsWith(".class"))
                    .map(f -> root.relativize(f.getParent()).toString().replace('/', '.'))
                    .forEach(packages::add);
        }
    }
}
