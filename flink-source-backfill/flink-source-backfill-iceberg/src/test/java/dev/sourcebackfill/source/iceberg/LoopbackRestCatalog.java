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

import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.iceberg.rest.RESTCatalogAdapter;
import org.apache.iceberg.rest.RESTCatalogServlet;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * Iceberg's REST catalog, served in this JVM on 127.0.0.1 (a port the system picks) for the tests:
 * Iceberg's own {@code RESTCatalogServlet} and {@code RESTCatalogAdapter} (iceberg-core's tests
 * jar) over a JDBC catalog on an in-memory SQLite database, its warehouse on the local file system.
 * The source reaches it as any REST catalog, by {@code type=rest} and {@code uri}.
 */
final class LoopbackRestCatalog implements BeforeAllCallback, AfterAllCallback {

    private Catalog backend;
    private Server http;
    private int port;
    private Path warehouse;

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        warehouse = Files.createTempDirectory("iceberg-rest-warehouse");
        Map<String, String> backendProperties = new HashMap<>();
        backendProperties.put(CatalogProperties.CATALOG_IMPL, JdbcCatalog.class.getName());
        // one named in-memory database for the pool's connections
        backendProperties.put(
                CatalogProperties.URI,
                "jdbc:sqlite:file:rest" + System.nanoTime() + "?mode=memory&cache=shared");
        backendProperties.put("jdbc.schema-version", "V1");
        backendProperties.put(CatalogProperties.WAREHOUSE_LOCATION, warehouse.toUri().toString());
        backend =
                CatalogUtil.buildIcebergCatalog(
                        "rest_backend",
                        backendProperties,
                        new org.apache.hadoop.conf.Configuration());
        ServletContextHandler handler =
                new ServletContextHandler(ServletContextHandler.NO_SESSIONS);
        handler.addServlet(
                new ServletHolder(new RESTCatalogServlet(new RESTCatalogAdapter(backend))), "/*");
        http = new Server();
        ServerConnector connector = new ServerConnector(http);
        connector.setHost("127.0.0.1");
        connector.setPort(0);
        http.addConnector(connector);
        http.setHandler(handler);
        http.start();
        port = connector.getLocalPort();
    }

    /** The properties a client loads the catalog with. */
    Map<String, String> properties() {
        return Map.of(
                CatalogUtil.ICEBERG_CATALOG_TYPE,
                CatalogUtil.ICEBERG_CATALOG_TYPE_REST,
                CatalogProperties.URI,
                "http://127.0.0.1:" + port + "/");
    }

    @Override
    public void afterAll(ExtensionContext context) throws Exception {
        http.stop();
        if (backend instanceof AutoCloseable) {
            ((AutoCloseable) backend).close();
        }
        org.apache.flink.util.FileUtils.deleteDirectoryQuietly(warehouse.toFile());
    }
}
