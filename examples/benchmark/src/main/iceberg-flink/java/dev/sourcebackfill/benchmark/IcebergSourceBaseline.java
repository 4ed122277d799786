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
package dev.sourcebackfill.benchmark;

import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.table.data.RowData;

import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.flink.CatalogLoader;
import org.apache.iceberg.flink.TableLoader;
import org.apache.iceberg.flink.source.IcebergSource;
import org.apache.iceberg.flink.source.reader.RowDataConverter;

import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * Iceberg's own {@link IcebergSource} (iceberg-flink, published for Flink 1.20, 2.0 and 2.1) as
 * the first source of section 11's third baseline. This folder is compiled on the lines the
 * benchmark pom gives it to (-Pflink-1.20); the others compile {@code no-iceberg-flink}, whose
 * class of this name says the baseline is absent.
 */
final class IcebergSourceBaseline {

    /** Whether this line has Iceberg's Flink source. */
    static final boolean AVAILABLE = true;

    private IcebergSourceBaseline() {}

    /**
     * A bounded {@link IcebergSource} over the pinned snapshot, reading the value column alone (as
     * the {@code FileSource} baseline does), each row's value bytes made a string.
     *
     * @param catalogName the catalog's name
     * @param catalog the catalog's properties (Iceberg's, as {@code CatalogUtil} takes them)
     * @param table the table's identifier in the catalog
     * @param snapshot the pinned snapshot
     * @param value the table's schema with the value column alone
     */
    static Source<String, ?, ?> values(
            String catalogName,
            Map<String, String> catalog,
            String table,
            long snapshot,
            Schema value) {
        return IcebergSource.forOutputType(new ValueString())
                .tableLoader(
                        TableLoader.fromCatalog(
                                CatalogLoader.hadoop(
                                        catalogName,
                                        new org.apache.hadoop.conf.Configuration(),
                                        catalog),
                                TableIdentifier.parse(table)))
                .useSnapshotId(snapshot)
                .project(value)
                .build();
    }

    /** The value column's bytes as a string, as {@code SimpleStringSchema} makes it. */
    private static final class ValueString implements RowDataConverter<String> {
        private static final long serialVersionUID = 1L;

        @Override
        public String apply(RowData row) {
            return new String(row.getBinary(0), StandardCharsets.UTF_8);
        }

        @Override
        public TypeInformation<String> getProducedType() {
            return Types.STRING;
        }
    }
}
