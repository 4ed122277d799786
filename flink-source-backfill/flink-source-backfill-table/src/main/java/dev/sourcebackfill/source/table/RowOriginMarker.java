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

import dev.sourcebackfill.source.RecordOrigin;

import org.apache.flink.annotation.Internal;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;

/**
 * Writes the {@code origin} metadata column ({@code backfill} or {@code live}) into the row the
 * deserializer made, at the column's place.
 */
@Internal
final class RowOriginMarker implements RecordOrigin.Marker<RowData> {

    private static final long serialVersionUID = 1L;
    private static final StringData BACKFILL = StringData.fromString("backfill");
    private static final StringData LIVE = StringData.fromString("live");

    private final int position;

    RowOriginMarker(int position) {
        this.position = position;
    }

    @Override
    public RowData mark(RowData row, RecordOrigin origin) {
        ((GenericRowData) row)
                .setField(position, origin == RecordOrigin.BACKFILL ? BACKFILL : LIVE);
        return row;
    }
}
