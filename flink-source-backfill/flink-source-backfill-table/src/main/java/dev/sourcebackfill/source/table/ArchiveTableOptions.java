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

import dev.sourcebackfill.source.BackfillSource;
import dev.sourcebackfill.source.archive.ArchiveBackfill;
import dev.sourcebackfill.source.archive.ArchiveBackfillSourceBuilder;
import dev.sourcebackfill.source.archive.ArchiveFormat;
import dev.sourcebackfill.source.archive.ArchivedFile;
import dev.sourcebackfill.source.archive.ArchivedRecordMapper;

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.serialization.AbstractDeserializationSchema;
import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.streaming.connectors.kafka.table.KafkaConnectorOptions;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.logical.LogicalTypeRoot;

import javax.annotation.Nullable;

import java.io.IOException;
import java.util.List;
import java.util.Optional;

/**
 * The {@code backfill.archive.*} options: each partition's history from an archive of files, each
 * line a value in the table's value format, handed over to the topic after the last archived
 * offset. Archived lines hold values only, so a table over an archive has no key format and, of the
 * metadata columns, only those the archive knows ({@code topic}, {@code partition}, {@code offset},
 * {@code origin}).
 */
@Internal
record ArchiveTableOptions(
        String path, @Nullable Integer offsetFieldIndex, boolean skipUnreadableRecords)
        implements TableHistory {

    /** The metadata columns an archived record has. */
    static final List<ReadableMetadata> METADATA =
            List.of(
                    ReadableMetadata.TOPIC,
                    ReadableMetadata.PARTITION,
                    ReadableMetadata.OFFSET,
                    ReadableMetadata.ORIGIN);

    /** The options, if {@code backfill.archive.path} is set; checked against the table. */
    static Optional<ArchiveTableOptions> of(ReadableConfig options, DataType physicalType) {
        Optional<String> path = options.getOptional(KafkaBackfillConnectorOptions.ARCHIVE_PATH);
        Optional<String> offsetField =
                options.getOptional(KafkaBackfillConnectorOptions.ARCHIVE_OFFSET_FIELD);
        if (path.isEmpty()) {
            if (offsetField.isPresent()) {
                throw new ValidationException(
                        String.format(
                                "Option '%s' needs '%s'.",
                                KafkaBackfillConnectorOptions.ARCHIVE_OFFSET_FIELD.key(),
                                KafkaBackfillConnectorOptions.ARCHIVE_PATH.key()));
            }
            return Optional.empty();
        }
        if (options.getOptional(KafkaConnectorOptions.KEY_FORMAT).isPresent()) {
            throw new ValidationException(
                    String.format(
                            "Option '%s' cannot be used with '%s': archived lines hold values only.",
                            KafkaConnectorOptions.KEY_FORMAT.key(),
                            KafkaBackfillConnectorOptions.ARCHIVE_PATH.key()));
        }
        Integer offsetIndex = null;
        if (offsetField.isPresent()) {
            List<String> names = DataType.getFieldNames(physicalType);
            int index = names.indexOf(offsetField.get());
            if (index < 0
                    || DataType.getFieldDataTypes(physicalType)
                                    .get(index)
                                    .getLogicalType()
                                    .getTypeRoot()
                            != LogicalTypeRoot.BIGINT) {
                throw new ValidationException(
                        String.format(
                                "Option '%s' names '%s', which is not a BIGINT column of the table (%s).",
                                KafkaBackfillConnectorOptions.ARCHIVE_OFFSET_FIELD.key(),
                                offsetField.get(),
                                names));
            }
            offsetIndex = index;
        }
        return Optional.of(
                new ArchiveTableOptions(
                        path.get(),
                        offsetIndex,
                        options.get(
                                KafkaBackfillConnectorOptions.ARCHIVE_SKIP_UNREADABLE_RECORDS)));
    }

    @Override
    public List<ReadableMetadata> metadata() {
        return METADATA;
    }

    /** An archive whose offsets are a column must read that column where the query does not. */
    @Override
    public boolean supportsProjection() {
        return offsetFieldIndex == null;
    }

    /**
     * The source: history from the archive, then the topic; the archive's lines through a new
     * decoder of the value format.
     */
    @Override
    public BackfillSource<RowData> build(Scan scan) {
        Decoding values = scan.valueDecoder().get();
        int physicalArity = scan.physicalArity();
        List<ReadableMetadata> metadata = scan.metadata();
        ArchiveBackfillSourceBuilder<RowData> builder =
                ArchiveBackfill.<RowData>sourceBuilder()
                        .setArchive(path)
                        .setFormat(
                                ArchiveFormat.lines(
                                        new ArchivedValue(
                                                values.schema(),
                                                values.targets(),
                                                physicalArity + metadata.size(),
                                                scan.producedType())))
                        .setArchivedRecordMapper(
                                new ArchivedMetadata(
                                        physicalArity, metadata.toArray(new ReadableMetadata[0])))
                        .setSkipUnreadableRecords(skipUnreadableRecords)
                        .setOffsetGapPolicy(scan.readOptions().gapPolicy())
                        .setLive(scan.live());
        if (offsetFieldIndex != null) {
            int index = offsetFieldIndex;
            builder.setRecordOffset(row -> row.isNullAt(index) ? null : row.getLong(index));
        }
        return builder.build();
    }

    /** An archived line: the value format's row at the value columns' places, metadata empty. */
    static final class ArchivedValue extends AbstractDeserializationSchema<RowData> {
        private static final long serialVersionUID = 1L;
        private final DeserializationSchema<RowData> values;
        private final int[] valueProjection;
        private final int arity;
        private final TypeInformation<RowData> producedType;

        ArchivedValue(
                DeserializationSchema<RowData> values,
                int[] valueProjection,
                int arity,
                TypeInformation<RowData> producedType) {
            this.values = values;
            this.valueProjection = valueProjection;
            this.arity = arity;
            this.producedType = producedType;
        }

        @Override
        public void open(InitializationContext context) throws Exception {
            values.open(context);
        }

        @Nullable
        @Override
        public RowData deserialize(byte[] line) throws IOException {
            RowData value = values.deserialize(line);
            if (value == null) {
                return null;
            }
            GenericRowData valueRow = (GenericRowData) value;
            GenericRowData row = new GenericRowData(value.getRowKind(), arity);
            for (int i = 0; i < valueProjection.length; i++) {
                if (valueProjection[i] >= 0) {
                    row.setField(valueProjection[i], valueRow.getField(i));
                }
            }
            return row;
        }

        @Override
        public TypeInformation<RowData> getProducedType() {
            return producedType;
        }
    }

    /** Fills an archived row's topic, partition and offset columns from where it was found. */
    static final class ArchivedMetadata implements ArchivedRecordMapper<RowData> {
        private static final long serialVersionUID = 1L;
        private final int physicalArity;
        private final ReadableMetadata[] metadata;

        ArchivedMetadata(int physicalArity, ReadableMetadata[] metadata) {
            this.physicalArity = physicalArity;
            this.metadata = metadata;
        }

        @Override
        public RowData map(RowData record, ArchivedFile file, long offset) {
            GenericRowData row = (GenericRowData) record;
            for (int i = 0; i < metadata.length; i++) {
                switch (metadata[i]) {
                    case TOPIC:
                        row.setField(physicalArity + i, StringData.fromString(file.topic()));
                        break;
                    case PARTITION:
                        row.setField(physicalArity + i, file.partition());
                        break;
                    case OFFSET:
                        row.setField(physicalArity + i, offset);
                        break;
                    default:
                        // origin: written as the source emits the row
                        break;
                }
            }
            return row;
        }
    }
}
