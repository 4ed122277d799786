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
package dev.sourcebackfill.source.datagen;

import org.apache.flink.annotation.PublicEvolving;

import java.util.Objects;

/** A record of the {@link DatagenLog}: a Flink POJO. */
@PublicEvolving
public class DatagenRecord {

    public int partition;
    public long offset;
    public long timestamp;

    /** A pure function of partition and offset, so the two readers agree on every record. */
    public long payload;

    public DatagenRecord() {}

    public DatagenRecord(int partition, long offset, long timestamp, long payload) {
        this.partition = partition;
        this.offset = offset;
        this.timestamp = timestamp;
        this.payload = payload;
    }

    public String splitId() {
        return DatagenLog.splitId(partition);
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof DatagenRecord)) {
            return false;
        }
        DatagenRecord that = (DatagenRecord) o;
        return partition == that.partition
                && offset == that.offset
                && timestamp == that.timestamp
                && payload == that.payload;
    }

    @Override
    public int hashCode() {
        return Objects.hash(partition, offset, timestamp, payload);
    }

    @Override
    public String toString() {
        return "DatagenRecord{p=" + partition + ", offset=" + offset + ", payload=" + payload + '}';
    }
}
