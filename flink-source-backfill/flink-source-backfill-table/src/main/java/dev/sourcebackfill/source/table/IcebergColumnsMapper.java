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
package dev.sourcebackfill.source.table;

import dev.sourcebackfill.source.iceberg.IcebergLayout;
import dev.sourcebackfill.source.iceberg.IcebergRecordMapper;

import org.apache.flink.annotation.Internal;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.util.Collector;

import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Types;

import javax.annotation.Nullable;

/**
 * A row read column by column: each physical column from the Iceberg column of its name, the
 * metadata columns from the layout's columns. Checks each row struct's columns once (the first row
 * of each file's schema), naming a column the table does not have.
 */
@Internal
final class IcebergColumnsMapper implements IcebergRecordMapper<RowData> {
    private static final long serialVersionUID = 1L;
    private final String[] columns;
    private final IcebergColumnValue[] converters;
    private final boolean[] notNull;
    private final int[] targets;
    private final int physicalArity;
    private final ReadableMetadata[] metadata;
    @Nullable private final String topic;

    /** The layout's metadata columns as paths of field names, split once. */
    @Nullable private final String[] topicPath;

    private final String[] partitionPath;
    private final String[] offsetPath;
    private final String[] timestampPath;
    @Nullable private transient Types.StructType checked;

    IcebergColumnsMapper(
            String[] columns,
            IcebergColumnValue[] converters,
            boolean[] notNull,
            int[] targets,
            int physicalArity,
            ReadableMetadata[] metadata,
            IcebergLayout layout,
            @Nullable String topic) {
        this.columns = columns;
        this.converters = converters;
        this.notNull = notNull;
        this.targets = targets;
        this.physicalArity = physicalArity;
        this.metadata = metadata;
        this.topic = topic;
        this.topicPath = layout.topicColumn().map(c -> c.split("\\.")).orElse(null);
        this.partitionPath = layout.partitionColumn().split("\\.");
        this.offsetPath = layout.offsetColumn().split("\\.");
        this.timestampPath = layout.timestampColumn().split("\\.");
    }

    @Override
    public void map(Record row, Collector<RowData> out) {
        if (row.struct() != checked) {
            for (String column : columns) {
                if (row.struct().field(column) == null) {
                    throw new IllegalStateException(
                            String.format(
                                    "The Iceberg table has no column '%s' for the SQL"
                                            + " table's column of that name (read with '%s' ="
                                            + " 'COLUMNS'); its columns: %s",
                                    column,
                                    KafkaBackfillConnectorOptions.ICEBERG_VALUES.key(),
                                    row.struct().fields().stream()
                                            .map(Types.NestedField::name)
                                            .toList()));
                }
            }
            checked = row.struct();
        }
        GenericRowData result = new GenericRowData(physicalArity + metadata.length);
        for (int i = 0; i < columns.length; i++) {
            Object value = row.getField(columns[i]);
            if (value == null && notNull[i]) {
                throw new IllegalStateException(
                        String.format(
                                "The Iceberg column '%s' is null, and its SQL column is NOT"
                                        + " NULL",
                                columns[i]));
            }
            if (value != null) {
                try {
                    result.setField(targets[i], converters[i].convert(value));
                } catch (ClassCastException e) {
                    throw new IllegalStateException(
                            String.format(
                                    "The Iceberg column '%s' holds a %s its SQL column cannot"
                                            + " take: %s",
                                    columns[i], value.getClass().getSimpleName(), e.getMessage()),
                            e);
                }
            }
        }
        for (int i = 0; i < metadata.length; i++) {
            result.setField(physicalArity + i, metadataValue(metadata[i], row));
        }
        out.collect(result);
    }

    @Nullable
    private Object metadataValue(ReadableMetadata column, Record row) {
        switch (column) {
            case TOPIC:
                Object rowTopic = topicPath == null ? topic : field(row, topicPath);
                return rowTopic == null ? null : StringData.fromString(rowTopic.toString());
            case PARTITION:
                return ((Number) field(row, partitionPath)).intValue();
            case OFFSET:
                return ((Number) field(row, offsetPath)).longValue();
            case TIMESTAMP:
                Object timestamp = field(row, timestampPath);
                return timestamp == null ? null : IcebergColumnValue.instant(timestamp);
            default:
                // origin: written as the source emits the row
                return null;
        }
    }

    /** A column by its path of field names. */
    @Nullable
    private static Object field(Record row, String[] path) {
        Object value = row;
        for (String name : path) {
            if (value == null) {
                return null;
            }
            value = ((Record) value).getField(name);
        }
        return value;
    }
}
