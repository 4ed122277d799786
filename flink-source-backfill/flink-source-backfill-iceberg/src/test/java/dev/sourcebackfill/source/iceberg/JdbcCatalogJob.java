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

import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.types.Types;

import java.sql.Driver;
import java.sql.DriverManager;
import java.util.Map;

/**
 * What one job does with a JDBC catalog, for {@link JdbcCatalogDriversTest}, which runs it in a
 * class loader of its own per job (as a session cluster gives each job's jar one): opens the
 * catalog through {@link IcebergTableRef}, creates table {@code ns.t} if it is missing, loads it.
 * Only strings cross the class loaders.
 */
public final class JdbcCatalogJob {

    private JdbcCatalogJob() {}

    /**
     * The table's name and whose JDBC driver served the catalog's URI ({@code own driver} when the
     * driver's class is this class loader's).
     */
    public static String openAndLoad(String catalogUri, String warehouse) throws Exception {
        IcebergTableRef ref =
                new IcebergTableRef(
                        "lake",
                        Map.of(
                                "type",
                                "jdbc",
                                "uri",
                                catalogUri,
                                "warehouse",
                                warehouse,
                                "jdbc.schema-version",
                                "V1"),
                        "ns.t");
        Catalog catalog = ref.openCatalog();
        try {
            TableIdentifier id = TableIdentifier.of("ns", "t");
            if (!catalog.tableExists(id)) {
                ((SupportsNamespaces) catalog).createNamespace(Namespace.of("ns"));
                catalog.createTable(
                        id, new Schema(Types.NestedField.required(1, "id", Types.LongType.get())));
            }
            Table table = ref.load(catalog);
            Driver driver = DriverManager.getDriver(catalogUri);
            ClassLoader own = JdbcCatalogJob.class.getClassLoader();
            return table.name()
                    + (driver.getClass().getClassLoader() == own
                            ? " own driver"
                            : " driver of " + driver.getClass().getClassLoader());
        } finally {
            IcebergTableRef.close(catalog);
        }
    }
}
