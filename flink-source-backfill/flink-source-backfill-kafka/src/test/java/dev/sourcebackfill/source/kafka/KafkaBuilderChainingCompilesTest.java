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
package dev.sourcebackfill.source.kafka;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * User code that compiled against the parent of issue 27.4 still compiles: Flink's {@code
 * RateLimiterStrategy.perSecond} returns a raw type, so the chain goes raw after it; the builder's
 * setters then returned the (raw) Kafka builder, now the erasure of {@code B},
 * BackfillSourceBuilderBase, which has no {@code build()}.
 */
class KafkaBuilderChainingCompilesTest {

    private static final String SNIPPET =
            "import dev.sourcebackfill.source.BackfillListener;\n"
                    + "import dev.sourcebackfill.source.kafka.KafkaBackfill;\n"
                    + "import org.apache.flink.api.common.serialization.SimpleStringSchema;\n"
                    + "import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;\n"
                    + "class UserJob {\n"
                    + "  Object source() {\n"
                    + "    return KafkaBackfill.<String>sourceBuilder()\n"
                    + "        .setBootstrapServers(\"broker:9092\")\n"
                    + "        .setTopics(\"orders\")\n"
                    + "        .setValueOnlyDeserializer(new SimpleStringSchema())\n"
                    + "        .setBackfillRateLimit(RateLimiterStrategy.perSecond(1000))\n"
                    + "        .setListener(BackfillListener.NO_OP)\n"
                    + "        .build();\n"
                    + "  }\n"
                    + "}\n";

    @Test
    void aChainWithFlinksRawRateLimiterStrategyThenASharedSetterStillCompiles(@TempDir Path dir)
            throws Exception {
        Path source = dir.resolve("UserJob.java");
        Files.writeString(source, SNIPPET);
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        try (StandardJavaFileManager files = javac.getStandardFileManager(null, null, null)) {
            boolean compiled =
                    javac.getTask(
                                    null,
                                    files,
                                    diagnostics,
                                    List.of(
                                            "-classpath",
                                            System.getProperty("java.class.path"),
                                            "-d",
                                            dir.toString(),
                                            "-proc:none"),
                                    null,
                                    files.getJavaFileObjects(source))
                            .call();
            assertThat(compiled).as(diagnostics.getDiagnostics().toString()).isTrue();
        }
    }
}
