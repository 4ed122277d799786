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

import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.functions.util.ListCollector;
import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.connector.kafka.source.reader.deserializer.KafkaRecordDeserializationSchema;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.util.Collector;

import org.apache.kafka.clients.consumer.ConsumerRecord;

import javax.annotation.Nullable;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Turns a Kafka record into the table's rows: the key format's fields and the value format's fields
 * at their places in the physical row, then the metadata columns the query reads.
 *
 * <p>The rows are those of Flink's Kafka SQL connector: with a key format, one row for each row the
 * value format gives and each row the key format gives, so a record whose key the key format maps
 * to nothing (no key, for {@code json}; a key that does not parse, with {@code
 * ignore-parse-errors}) gives no row, as does a record whose value the value format maps to nothing
 * (a tombstone, for {@code json}). The key bytes go to the key format as they are, also when null.
 * A record may give several rows (several key rows, or several value rows): they are emitted
 * together, before the split's position moves past the record's offset.
 */
@Internal
final class RowDataKafkaDeserializer implements KafkaRecordDeserializationSchema<RowData> {

    private static final long serialVersionUID = 1L;

    @Nullable private final DeserializationSchema<RowData> keyFormat;
    private final DeserializationSchema<RowData> valueFormat;

    /**
     * For each field the key format produces, its place in the produced row; negative for a field
     * the query does not read (a format that cannot project reads every field).
     */
    private final int[] keyProjection;

    /** For each field the value format produces, its place in the produced row, as for keys. */
    private final int[] valueProjection;

    private final int physicalArity;
    private final ReadableMetadata[] metadata;
    private final TypeInformation<RowData> producedType;
    @Nullable private transient JoiningCollector joining;

    RowDataKafkaDeserializer(
            @Nullable DeserializationSchema<RowData> keyFormat,
            DeserializationSchema<RowData> valueFormat,
            int[] keyProjection,
            int[] valueProjection,
            int physicalArity,
            List<ReadableMetadata> metadata,
            TypeInformation<RowData> producedType) {
        this.keyFormat = keyFormat;
        this.valueFormat = valueFormat;
        this.keyProjection = keyProjection;
        this.valueProjection = valueProjection;
        this.physicalArity = physicalArity;
        this.metadata = metadata.toArray(new ReadableMetadata[0]);
        this.producedType = producedType;
    }

    @Override
    public void open(DeserializationSchema.InitializationContext context) throws Exception {
        if (keyFormat != null) {
            keyFormat.open(context);
        }
        valueFormat.open(context);
    }

    @Override
    public void deserialize(ConsumerRecord<byte[], byte[]> record, Collector<RowData> out)
            throws IOException {
        if (joining == null) {
            joining = new JoiningCollector(); // transient: made on the task, once
        }
        List<RowData> keys = joining.keys;
        keys.clear();
        if (keyFormat != null) {
            // as Flink's Kafka connector: the key, null or not, goes to the key format; each key
            // row it gives makes a row with each value row, none makes no row (the value is
            // still decoded: a value the format rejects fails as there)
            keyFormat.deserialize(record.key(), joining.keyCollector);
        }
        // a null value (a tombstone) goes to the format too, which makes a row of it or none;
        // each row is joined as the format gives it (it may reuse one)
        joining.record = record;
        joining.out = out;
        try {
            valueFormat.deserialize(record.value(), joining);
        } finally {
            keys.clear();
        }
    }

    private RowData join(@Nullable RowData key, RowData value, ConsumerRecord<?, ?> record) {
        GenericRowData row =
                new GenericRowData(value.getRowKind(), physicalArity + metadata.length);
        GenericRowData keyRow = (GenericRowData) key;
        GenericRowData valueRow = (GenericRowData) value;
        for (int i = 0; i < keyProjection.length; i++) {
            if (keyProjection[i] >= 0) {
                row.setField(keyProjection[i], keyRow == null ? null : keyRow.getField(i));
            }
        }
        for (int i = 0; i < valueProjection.length; i++) {
            if (valueProjection[i] >= 0) {
                row.setField(valueProjection[i], valueRow.getField(i));
            }
        }
        for (int i = 0; i < metadata.length; i++) {
            row.setField(physicalArity + i, metadata[i].read(record));
        }
        return row;
    }

    @Override
    public TypeInformation<RowData> getProducedType() {
        return producedType;
    }

    /**
     * Joins each row the value format gives with the key and the metadata, at once; one per
     * deserializer, set for each record (no allocation per record).
     */
    private final class JoiningCollector implements Collector<RowData> {
        /** The record's key rows; empty without a key format. */
        private final List<RowData> keys = new ArrayList<>(1);

        private final Collector<RowData> keyCollector = new ListCollector<>(keys);

        private ConsumerRecord<?, ?> record;
        private Collector<RowData> out;

        @Override
        public void collect(RowData value) {
            if (value == null) {
                return;
            }
            if (keyFormat == null) {
                out.collect(join(null, value, record));
                return;
            }
            for (RowData key : keys) {
                out.collect(join(key, value, record));
            }
        }

        @Override
        public void close() {}
    }
}
