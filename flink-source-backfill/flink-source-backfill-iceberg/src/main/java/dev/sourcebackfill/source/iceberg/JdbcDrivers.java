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

import org.apache.flink.annotation.Internal;

import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.jdbc.JdbcCatalog;

import java.sql.Driver;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.stream.Collectors;

/**
 * Makes the JDBC drivers of the job's own class loader known to {@link DriverManager} before a JDBC
 * catalog opens (issue 34, defect 8).
 *
 * <p>{@code DriverManager} loads the drivers' services once per JVM, from the context class loader
 * of its first caller: on a session cluster, the user-code class loader of the first job that used
 * JDBC. It then gives a caller only drivers whose class the caller's own class loader resolves to
 * the same class, so a later job with the driver in its own jar (and Iceberg's {@code JdbcCatalog}
 * calling {@code DriverManager.getConnection} from that jar) got "No suitable driver found", and
 * its copy of the driver was never registered. Here the {@code java.sql.Driver} services of the
 * class loader that has Iceberg's {@code JdbcCatalog} (the job jar's, where the driver goes) are
 * loaded once per class loader; a JDBC 4 driver registers itself when its class is initialized, and
 * one that does not is registered here.
 *
 * <p>Nothing is deregistered when a catalog closes: the enumerator and every reader of a job in one
 * JVM (and any other code of the job) share the registration, and a reader opens its catalog again
 * at each split; deregistering on one close would take the driver from the others while they
 * connect. The registration keeps the job's class loader reachable for the JVM's life, as it does
 * without this class once the driver's class is initialized (its own static initializer registers
 * it); a driver in the cluster's {@code lib/} does not (docs/iceberg.md).
 */
@Internal
final class JdbcDrivers {

    private static final String JDBC_CATALOG = JdbcCatalog.class.getName();

    /** The drivers loaded from {@link #loader()}'s services; null until loaded once. */
    private static List<Driver> loaded;

    /** Services that failed to load, named in the error for a URI no driver accepts. */
    private static List<String> failedToLoad;

    private JdbcDrivers() {}

    /**
     * Whether Iceberg opens this catalog through JDBC: {@code type} jdbc, {@code catalog-impl}
     * Iceberg's {@code JdbcCatalog}, or a {@code uri} of the {@code jdbc:} scheme.
     */
    static boolean isJdbcCatalog(Map<String, String> properties) {
        String type = properties.get(CatalogUtil.ICEBERG_CATALOG_TYPE);
        String impl = properties.get(CatalogProperties.CATALOG_IMPL);
        String uri = properties.get(CatalogProperties.URI);
        return (impl == null
                        && type != null
                        && type.trim().equalsIgnoreCase(CatalogUtil.ICEBERG_CATALOG_TYPE_JDBC))
                || JDBC_CATALOG.equals(impl == null ? null : impl.trim())
                || (uri != null && uri.trim().toLowerCase(Locale.ROOT).startsWith("jdbc:"));
    }

    /**
     * Makes sure a driver of the job's class loader accepts {@code uri}, loading that loader's
     * drivers the first time; fails naming the catalog, the URI (without credentials) and where the
     * driver's jar goes if none does. A missing URI is left to Iceberg, which names it.
     */
    static void ensureDriverFor(String catalogName, String uri) {
        if (uri == null) {
            return;
        }
        List<Driver> drivers = drivers();
        if (driverManagerAccepts(uri)) {
            return;
        }
        // a driver that did not register itself when its class was initialized (before JDBC 4,
        // drivers were registered by Class.forName): registered here, once
        for (Driver driver : drivers) {
            if (accepts(driver, uri)) {
                try {
                    DriverManager.registerDriver(driver);
                } catch (SQLException e) {
                    throw new IllegalStateException(
                            String.format(
                                    "Iceberg catalog %s: registering JDBC driver %s for uri %s failed: %s",
                                    catalogName,
                                    driver.getClass().getName(),
                                    withoutCredentials(uri),
                                    e.getMessage()),
                            e);
                }
                if (driverManagerAccepts(uri)) {
                    return;
                }
            }
        }
        throw new IllegalStateException(noDriver(catalogName, uri, drivers));
    }

    private static String noDriver(String catalogName, String uri, List<Driver> drivers) {
        String seen =
                drivers.isEmpty()
                        ? "none"
                        : drivers.stream()
                                .map(d -> d.getClass().getName())
                                .distinct()
                                .collect(Collectors.joining(", "));
        String failed;
        synchronized (JdbcDrivers.class) {
            failed =
                    failedToLoad.isEmpty()
                            ? ""
                            : "; drivers that failed to load: " + String.join("; ", failedToLoad);
        }
        return String.format(
                "Iceberg catalog %s is a JDBC catalog, and no JDBC driver accepts its uri %s"
                        + " (the drivers the job's class loader has: %s%s). Put the driver's jar"
                        + " where Iceberg's classes see it: into the job jar beside Iceberg's (as a"
                        + " dependency of the job), or into the cluster's lib/.",
                catalogName, withoutCredentials(uri), seen, failed);
    }

    /** The class loader that has Iceberg's JdbcCatalog as this module sees it: the job jar's. */
    private static ClassLoader loader() {
        ClassLoader loader = JdbcCatalog.class.getClassLoader();
        return loader != null ? loader : ClassLoader.getSystemClassLoader();
    }

    /**
     * The drivers of {@link #loader()}'s {@code java.sql.Driver} services, loaded once: loading one
     * initializes its class, which registers a JDBC 4 driver with {@code DriverManager} (from this
     * class loader, so that Iceberg's classes beside it may use it).
     */
    private static synchronized List<Driver> drivers() {
        if (loaded == null) {
            List<Driver> drivers = new ArrayList<>();
            List<String> failed = new ArrayList<>();
            Iterator<Driver> services = ServiceLoader.load(Driver.class, loader()).iterator();
            while (true) {
                try {
                    if (!services.hasNext()) {
                        break;
                    }
                    drivers.add(services.next());
                } catch (ServiceConfigurationError | LinkageError e) {
                    // as DriverManager does: a broken service does not hide the others
                    failed.add(String.valueOf(e.getMessage()));
                }
            }
            failedToLoad = List.copyOf(failed);
            loaded = List.copyOf(drivers);
        }
        return loaded;
    }

    /**
     * Whether {@code DriverManager} gives a driver for {@code uri} to this class, whose class
     * loader is Iceberg's (both in the job jar), so as it gives one to Iceberg's {@code
     * JdbcCatalog}.
     */
    private static boolean driverManagerAccepts(String uri) {
        try {
            return DriverManager.getDriver(uri) != null;
        } catch (SQLException e) {
            return false;
        }
    }

    private static boolean accepts(Driver driver, String uri) {
        try {
            return driver.acceptsURL(uri);
        } catch (SQLException | RuntimeException e) {
            return false;
        }
    }

    /**
     * The URI without what may be credentials: the user information of {@code //user:password@} and
     * the values of parameters named like passwords, secrets, tokens or keys.
     */
    static String withoutCredentials(String uri) {
        return uri.replaceAll("//[^/@?;]*@", "//[hidden]@")
                .replaceAll(
                        "(?i)((?:password|passwd|pwd|secret|token|key|credential)[a-z_.-]*=)[^&;]*",
                        "$1[hidden]");
    }
}
