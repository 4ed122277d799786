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

import org.apache.iceberg.SnapshotRef;
import org.apache.iceberg.Table;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.Serializable;
import java.time.Duration;

/**
 * The Iceberg tag that keeps the pinned snapshot, and so the files it reads, from expiring until
 * the source no longer needs them ({@link IcebergBackfillSourceBuilder#setSnapshotTag}). Iceberg's
 * snapshot expiry keeps every snapshot a tag points at, until the tag's max age (counted from the
 * snapshot's commit time) has passed.
 *
 * @param name the tag's name, one per job
 * @param maxAge how long the tag keeps the snapshot if the job never removes it (a job abandoned
 *     before forward mode)
 */
@Internal
record SnapshotTag(String name, Duration maxAge) implements Serializable {

    private static final long serialVersionUID = 1L;

    private static final Logger LOG = LoggerFactory.getLogger(SnapshotTag.class);

    /**
     * Tags {@code snapshotId}, right after it was pinned at the job's first start. A tag of this
     * name on the same snapshot (a first start retried after a failure) is kept. A tag of this name
     * on another snapshot is moved to this one, with a warning: a first start (no state) meets its
     * own tag elsewhere when an earlier first start failed before its first checkpoint and the
     * writer committed since; no checkpoint of this job holds that other snapshot, and failing
     * would fail every retry until the tag's max age passed. Two jobs must not share a tag name.
     *
     * @throws IllegalStateException naming the tag and the table if the name is the table's branch
     */
    void protect(Table table, String tableName, long snapshotId) {
        table.refresh();
        SnapshotRef existing = table.refs().get(name);
        if (existing != null && existing.isBranch()) {
            throw new IllegalStateException(
                    String.format(
                            "Iceberg table %s has a branch named '%s', the snapshot tag this source is to set on its pinned snapshot %d: choose another tag name",
                            tableName, name, snapshotId));
        }
        if (existing != null && existing.snapshotId() == snapshotId) {
            LOG.info(
                    "Iceberg table {}: tag '{}' is on pinned snapshot {} already (a first start retried); kept",
                    tableName,
                    name,
                    snapshotId);
            return;
        }
        if (existing != null) {
            table.manageSnapshots()
                    .replaceTag(name, snapshotId)
                    .setMaxRefAgeMs(name, maxAge.toMillis())
                    .commit();
            LOG.warn(
                    "Iceberg table {}: tag '{}' was on snapshot {}, not on snapshot {} this first start pinned: moved to snapshot {} (an earlier first start of this job that failed before its first checkpoint left it; if another job uses this tag name, that job's snapshot is no longer protected)",
                    tableName,
                    name,
                    existing.snapshotId(),
                    snapshotId,
                    snapshotId);
            return;
        }
        table.manageSnapshots()
                .createTag(name, snapshotId)
                .setMaxRefAgeMs(name, maxAge.toMillis())
                .commit();
        LOG.info(
                "Iceberg table {}: tag '{}' set on pinned snapshot {} (max age {}): the snapshot does not expire until the source is in forward mode",
                tableName,
                name,
                snapshotId,
                maxAge);
    }

    /**
     * Removes the tag once forward mode is confirmed, if it still points at {@code snapshotId} (the
     * job's pinned snapshot); a tag already gone is fine, a tag on another snapshot (not this
     * job's, or moved by someone) is left alone with a warning.
     */
    void release(Table table, String tableName, long snapshotId) {
        table.refresh();
        SnapshotRef existing = table.refs().get(name);
        if (existing == null) {
            LOG.info(
                    "Iceberg table {}: tag '{}' of pinned snapshot {} is gone already",
                    tableName,
                    name,
                    snapshotId);
            return;
        }
        if (!existing.isTag() || existing.snapshotId() != snapshotId) {
            LOG.warn(
                    "Iceberg table {}: the {} '{}' points at snapshot {}, not at this source's pinned snapshot {}: left alone",
                    tableName,
                    existing.isTag() ? "tag" : "branch",
                    name,
                    existing.snapshotId(),
                    snapshotId);
            return;
        }
        table.manageSnapshots().removeTag(name).commit();
        LOG.info(
                "Iceberg table {}: tag '{}' removed from pinned snapshot {}: the source is in forward mode and reads no history again",
                tableName,
                name,
                snapshotId);
    }

    @Override
    public String toString() {
        return "snapshot tag '" + name + "' (max age " + maxAge + ")";
    }
}
