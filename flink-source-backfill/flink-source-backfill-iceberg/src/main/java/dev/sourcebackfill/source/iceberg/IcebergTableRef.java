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
import org.apache.flink.configuration.GlobalConfiguration;

import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;

import java.io.Closeable;
import java.io.IOException;
import java.io.Serializable;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * A table of an Iceberg catalog, loaded through Iceberg's catalog API by properties ({@code
 * CatalogUtil.buildIcebergCatalog}: {@code type} rest, hadoop, jdbc, hive, glue, ..., or {@code
 * catalog-impl}), as far as the job's class path has the catalog's classes.
 */
@Internal
final class IcebergTableRef implements Serializable {

    private static final long serialVersionUID = 1L;

    private final String catalogName;
    private final Map<String, String> catalogProperties;
    private final String table;

    IcebergTableRef(String catalogName, Map<String, String> catalogProperties, String table) {
        this.catalogName = catalogName;
        this.catalogProperties = new TreeMap<>(catalogProperties);
        this.table = table;
    }

    String name() {
        return table;
    }

    /**
     * The catalog, opened; the caller closes it (with {@link #close}). A JDBC catalog's driver is
     * made known to {@code DriverManager} from the job's own class loader first ({@link
     * JdbcDrivers}), or this fails naming the catalog and its URI.
     */
    Catalog openCatalog() {
        if (JdbcDrivers.isJdbcCatalog(catalogProperties)) {
            JdbcDrivers.ensureDriverFor(catalogName, catalogProperties.get(CatalogProperties.URI));
        }
        return CatalogUtil.buildIcebergCatalog(catalogName, catalogProperties, new Configuration());
    }

    /** Loads the table, naming it and the catalog if that fails. */
    Table load(Catalog catalog) {
        try {
            return catalog.loadTable(TableIdentifier.parse(table));
        } catch (RuntimeException e) {
            throw new IllegalStateException(
                    String.format(
                            "Loading Iceberg table %s from catalog %s failed: %s",
                            table, catalogName, e.getMessage()),
                    e);
        }
    }

    static void close(Catalog catalog) throws IOException {
        if (catalog instanceof Closeable) {
            ((Closeable) catalog).close();
        }
    }

    @Override
    public String toString() {
        Map<String, String> shown = new TreeMap<>();
        catalogProperties.forEach(
                (key, value) -> shown.put(key, isSecret(key) ? "[hidden]" : value));
        return "Iceberg table " + table + " of catalog " + catalogName + " " + shown;
    }

    /**
     * What Flink counts as sensitive ({@link GlobalConfiguration#isSensitive}: passwords, secrets,
     * tokens, keys), and a REST catalog's headers ({@code header.Authorization}).
     */
    private static boolean isSecret(String key) {
        return GlobalConfiguration.isSensitive(key)
                || key.toLowerCase(Locale.ROOT).startsWith("header.")
                || key.toLowerCase(Locale.ROOT).contains("credential");
    }
}
