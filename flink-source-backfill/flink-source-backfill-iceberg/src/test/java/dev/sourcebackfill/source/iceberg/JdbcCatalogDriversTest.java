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
package dev.sourcebackfill.source.iceberg;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.InvocationTargetException;
import java.nio.file.Path;
import java.util.Map;
import java.util.function.Predicate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Two jobs with a JDBC catalog (Iceberg's {@code JdbcCatalog} on SQLite) and its driver in each
 * job's jar, on one session cluster (issue 34, defect 8): {@code DriverManager} loads drivers by
 * {@code ServiceLoader} once per JVM, from the class loader of the job that used it first, and
 * gives a caller only drivers its own class loader sees as the same class. The second job's catalog
 * then found "No suitable driver" and the job restarted.
 *
 * <p>Each "job" is a class loader of its own that defines this module's classes, Iceberg's and
 * SQLite's driver itself (as a child-first user-code class loader does with the job jar), the rest
 * from the test's class path; it is the thread's context class loader while the job runs, as in a
 * Flink task.
 */
class JdbcCatalogDriversTest {

    @TempDir Path dir;

    @Test
    void twoJobsWithTheDriverInTheirOwnJarBothOpenTheCatalog() throws Exception {
        String uri = "jdbc:sqlite:" + dir.resolve("catalog.db");
        String warehouse = dir.resolve("warehouse").toUri().toString();

        String first = runJob(job(), uri, warehouse);
        String second = runJob(job(), uri, warehouse);

        assertThat(first).as("the first job").isEqualTo("lake.ns.t own driver");
        assertThat(second).as("the second job").isEqualTo("lake.ns.t own driver");
    }

    @Test
    void aUriNoDriverAcceptsFailsNamingTheCatalogTheUriAndWhereTheDriverGoes() {
        IcebergTableRef ref =
                new IcebergTableRef(
                        "lake",
                        Map.of(
                                "type",
                                "jdbc",
                                "uri",
                                "jdbc:nosuchdb://admin:s3cret@db:5432/cat?password=s3cret&ssl=true"),
                        "ns.t");
        assertThatThrownBy(ref::openCatalog)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("Iceberg catalog lake is a JDBC catalog")
                .hasMessageContaining(
                        "no JDBC driver accepts its uri"
                                + " jdbc:nosuchdb://[hidden]@db:5432/cat?password=[hidden]&ssl=true")
                .hasMessageContaining("org.sqlite.JDBC")
                .hasMessageContaining("into the job jar")
                .hasMessageContaining("lib/")
                .hasMessageNotContaining("s3cret");
    }

    @Test
    void jdbcCatalogsAreKnownByTypeImplOrUri() {
        assertThat(JdbcDrivers.isJdbcCatalog(Map.of("type", "jdbc", "uri", "x"))).isTrue();
        assertThat(JdbcDrivers.isJdbcCatalog(Map.of("type", "JDBC"))).isTrue();
        assertThat(
                        JdbcDrivers.isJdbcCatalog(
                                Map.of("catalog-impl", "org.apache.iceberg.jdbc.JdbcCatalog")))
                .isTrue();
        assertThat(
                        JdbcDrivers.isJdbcCatalog(
                                Map.of("catalog-impl", "com.example.Cat", "uri", "jdbc:pg:x")))
                .isTrue();
        assertThat(JdbcDrivers.isJdbcCatalog(Map.of("type", "rest", "uri", "http://c:8181")))
                .isFalse();
        assertThat(JdbcDrivers.isJdbcCatalog(Map.of("type", "hadoop", "warehouse", "/w")))
                .isFalse();
    }

    @Test
    void credentialsInTheUriAreHidden() {
        assertThat(
                        JdbcDrivers.withoutCredentials(
                                "jdbc:mysql://u:p@h/db;user=u;password=p;sslKey=k;x=1"))
                .isEqualTo(
                        "jdbc:mysql://[hidden]@h/db;user=u;password=[hidden];sslKey=[hidden];x=1");
        assertThat(JdbcDrivers.withoutCredentials("jdbc:sqlite:/w/catalog.db"))
                .isEqualTo("jdbc:sqlite:/w/catalog.db");
    }

    private static ClassLoader job() {
        return new Isolating(
                JdbcCatalogDriversTest.class.getClassLoader(),
                n ->
                        n.startsWith("dev.sourcebackfill.source.iceberg.")
                                || n.startsWith("org.apache.iceberg.")
                                || n.startsWith("org.sqlite."));
    }

    /** {@link JdbcCatalogJob#openAndLoad} in {@code loader}: its answer, or what it threw. */
    private static String runJob(ClassLoader loader, String uri, String warehouse)
            throws Exception {
        Thread thread = Thread.currentThread();
        ClassLoader context = thread.getContextClassLoader();
        thread.setContextClassLoader(loader);
        try {
            return (String)
                    Class.forName(JdbcCatalogJob.class.getName(), true, loader)
                            .getMethod("openAndLoad", String.class, String.class)
                            .invoke(null, uri, warehouse);
        } catch (InvocationTargetException e) {
            StringBuilder causes = new StringBuilder("failed:");
            for (Throwable t = e.getCause(); t != null; t = t.getCause()) {
                causes.append(" / ").append(t);
            }
            return causes.toString();
        } finally {
            thread.setContextClassLoader(context);
        }
    }

    /**
     * Defines the classes {@code own} accepts itself, from the bytes {@code source} has (so that
     * they resolve their references through it), the rest from the parent; resources from the
     * parent.
     */
    private static final class Isolating extends ClassLoader {
        static {
            registerAsParallelCapable();
        }

        private final ClassLoader source;
        private final Predicate<String> own;

        Isolating(ClassLoader source, Predicate<String> own) {
            super("job", source);
            this.source = source;
            this.own = own;
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            if (!own.test(name)) {
                return super.loadClass(name, resolve);
            }
            synchronized (getClassLoadingLock(name)) {
                Class<?> loaded = findLoadedClass(name);
                if (loaded == null) {
                    try (InputStream in =
                            source.getResourceAsStream(name.replace('.', '/') + ".class")) {
                        if (in == null) {
                            throw new ClassNotFoundException(name);
                        }
                        byte[] bytes = in.readAllBytes();
                        loaded = defineClass(name, bytes, 0, bytes.length);
                    } catch (IOException e) {
                        throw new ClassNotFoundException(name, e);
                    }
                }
                if (resolve) {
                    resolveClass(loaded);
                }
                return loaded;
            }
        }
    }
}
