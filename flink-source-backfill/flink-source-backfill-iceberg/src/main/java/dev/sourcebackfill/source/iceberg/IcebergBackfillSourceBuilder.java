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

import dev.sourcebackfill.source.BackfillSource;
import dev.sourcebackfill.source.kafka.HistoryBeforeKafkaSourceBuilder;
import dev.sourcebackfill.source.kafka.KafkaBackfillSourceBuilder;
import dev.sourcebackfill.source.kafka.LiveTopics;

import org.apache.flink.annotation.PublicEvolving;

import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.SnapshotRef;
import org.apache.iceberg.catalog.TableIdentifier;

import javax.annotation.Nullable;

import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * Builds a {@link BackfillSource} over an Iceberg table written from the live topics. Every option
 * is checked in {@link #build()}, which names the option that is wrong.
 *
 * <pre>{@code
 * BackfillSource<String> source = IcebergBackfill.<String>sourceBuilder()
 *         .setCatalog("lake", Map.of("type", "rest", "uri", "http://catalog:8181"))
 *         .setTable("redpanda.orders")
 *         .setLayout(IcebergLayout.redpanda())
 *         .setLive(KafkaBackfill.<String>sourceBuilder()
 *                 .setBootstrapServers("broker:9092")
 *                 .setTopics("orders")
 *                 .setValueOnlyDeserializer(new SimpleStringSchema()))
 *         .build();
 * }</pre>
 *
 * <table>
 *   <tr><th>option</th><th>default</th><th>meaning</th></tr>
 *   <tr><td>{@link #setCatalog}</td><td>required</td><td>the catalog's name and properties, as
 *       Iceberg's {@code CatalogUtil} takes them ({@code type} or {@code catalog-impl}, {@code uri},
 *       {@code warehouse}, ...)</td></tr>
 *   <tr><td>{@link #setTable}</td><td>required</td><td>the table, {@code namespace.table}</td></tr>
 *   <tr><td>{@link #setLayout}</td><td>required</td><td>the columns of each row's partition,
 *       offset and timestamp: a preset ({@link IcebergLayout#redpanda()}, ...) or your own</td></tr>
 *   <tr><td>{@link #setRecordMapper}</td><td>the topic's deserializer</td><td>how a row becomes
 *       the job's values; by default the live topic's deserializer makes them of the record the
 *       row keeps (the layout's key, value and headers columns)</td></tr>
 *   <tr><td>{@link #setLive}</td><td>required</td><td>the live topics, as a Kafka source builder
 *       with {@code setTopics}: its starting offsets apply to partitions with no rows</td></tr>
 *   <tr><td>{@link #setBackfillChunkSize}</td><td>1,000,000</td><td>rows per chunk of the
 *       table's history: runs of data files, a larger file cut where its row groups start, read
 *       in parallel by all readers (not in ordered mode)</td></tr>
 *   <tr><td>{@link #setOrdered}</td><td>off</td><td>each partition's history read by its own
 *       split in offset order, then its live records: a per-key state without event time sees
 *       each partition's records in offset order</td></tr>
 *   <tr><td>{@link #setMaxRecordsPerPoll}</td><td>10,000</td><td>rows one fetch reads</td></tr>
 *   <tr><td>{@link #setSnapshotTag}</td><td>none</td><td>an Iceberg tag that keeps the pinned
 *       snapshot from expiring until forward mode, removed then</td></tr>
 * </table>
 */
@PublicEvolving
public final class IcebergBackfillSourceBuilder<T>
        extends HistoryBeforeKafkaSourceBuilder<T, IcebergBackfillSourceBuilder<T>> {

    /** Rows per chunk of the table's history unless set. */
    public static final long DEFAULT_CHUNK_SIZE = 1_000_000L;

    /**
     * The SQL option of {@link #setSnapshotTag} (the table connector's {@code
     * KafkaBackfillConnectorOptions.ICEBERG_SNAPSHOT_TAG}), named where a restore fails without it.
     */
    static final String SNAPSHOT_TAG_OPTION = "backfill.iceberg.snapshot-tag";

    /**
     * The SQL option of {@link #setOrdered} (the table connector's {@code
     * KafkaBackfillConnectorOptions.ICEBERG_ORDERED}), named where a restore across modes fails.
     */
    static final String ORDERED_OPTION = "backfill.iceberg.ordered";

    @Nullable private String catalogName;
    @Nullable private Map<String, String> catalogProperties;
    @Nullable private String table;
    @Nullable private IcebergLayout layout;
    @Nullable private IcebergRecordMapper<T> recordMapper;
    @Nullable private String snapshotTagName;
    @Nullable private Duration snapshotTagMaxAge;
    private boolean snapshotTagSet;
    private boolean ordered;

    IcebergBackfillSourceBuilder() {
        super("Iceberg backfill source");
    }

    @Override
    protected IcebergBackfillSourceBuilder<T> self() {
        return this;
    }

    /**
     * The catalog: a name and Iceberg's catalog properties ({@code type}: {@code rest}, {@code
     * hadoop}, {@code jdbc}, {@code hive}, {@code glue}, ..., or {@code catalog-impl}), loaded on
     * the job's class path.
     */
    public IcebergBackfillSourceBuilder<T> setCatalog(String name, Map<String, String> properties) {
        this.catalogName = name;
        this.catalogProperties = properties == null ? null : Map.copyOf(properties);
        return this;
    }

    /** The table: {@code namespace.table} (a nested namespace: {@code a.b.table}). */
    public IcebergBackfillSourceBuilder<T> setTable(String table) {
        this.table = table;
        return this;
    }

    public IcebergBackfillSourceBuilder<T> setLayout(IcebergLayout layout) {
        this.layout = layout;
        return this;
    }

    /** Makes the job's values of each row, instead of the topic's deserializer. */
    public IcebergBackfillSourceBuilder<T> setRecordMapper(IcebergRecordMapper<T> recordMapper) {
        this.recordMapper = recordMapper;
        return this;
    }

    /**
     * Ordered mode (off by default): each partition with rows in the table is a split of its own
     * whose history the table gives in offset order, and which goes on with the topic at the first
     * offset after its rows there, as the Kafka and archive adapters hand over. Every partition's
     * records then come in offset order, history before live records: what a job keeping per-key
     * state without event time needs (the latest value per key, a CDC-style materialization).
     *
     * <p>Off by default, because it costs: a partition's history is read by one reader (no chunks:
     * {@link #setBackfillChunkSize} is refused), a data file mixing partitions is read once per
     * partition it holds (each reader skips the others' rows), each reader scans the Kafka columns
     * of such files once to find its partitions' offsets in them, and a partition's live records
     * wait for its history. Without it (the table's history read in chunks by all readers while
     * every partition is live at once) each file is read once and the history is read in parallel,
     * but a partition's live records come before its history rows, and history rows in no offset
     * order across chunks.
     */
    public IcebergBackfillSourceBuilder<T> setOrdered(boolean ordered) {
        this.ordered = ordered;
        return this;
    }

    /**
     * Keeps the pinned snapshot from expiring with an Iceberg tag until the source no longer needs
     * it (off unless set).
     *
     * <p>The table's writer expires old snapshots (AutoMQ's after an hour, Confluent Tableflow's
     * past its retention or beyond 100 snapshots), and with a snapshot the files a compaction
     * replaced since. A job restored from a checkpoint reads the snapshot it pinned at its first
     * start: once that expired, the restore fails. With a tag:
     *
     * <ul>
     *   <li>at the job's first start, right after the snapshot is pinned and planned (and only if
     *       it has rows of the topics), the tag {@code name} is set on it with the max age {@code
     *       maxAge}; a tag of that name on the same snapshot (a first start retried) is kept, one
     *       on another snapshot is moved to this one (an earlier first start of this job that
     *       failed before its first checkpoint left it; a warning names both snapshots);
     *   <li>once forward mode is confirmed (a completed checkpoint had every split finished, so no
     *       restore from it or a later checkpoint reads the table), the tag is removed, also by a
     *       job restored from a checkpoint, and only if it still points at the job's pinned
     *       snapshot; a failed removal is logged and counted ({@code forwardModeHookFailures}) and
     *       never fails the job, a tag already gone is fine;
     *   <li>Iceberg's snapshot expiry keeps a tagged snapshot until the tag's max age, counted from
     *       the snapshot's commit time, has passed: {@code maxAge} bounds how long a job that never
     *       reaches forward mode (abandoned, or failing) keeps the snapshot's files. Choose it
     *       longer than the history takes to read plus the time a failed job may wait for its
     *       restore.
     * </ul>
     *
     * <p>The name must be the job's own (like a consumer group): two jobs sharing it protect only
     * the snapshot of the one that started last. Writing the tag needs the catalog's permission to
     * update the table's refs. A checkpoint taken before forward mode and restored after the tag
     * was removed is not protected.
     *
     * @param name the tag's name (not blank, not {@code main})
     * @param maxAge at least a millisecond
     */
    public IcebergBackfillSourceBuilder<T> setSnapshotTag(String name, Duration maxAge) {
        this.snapshotTagName = name;
        this.snapshotTagMaxAge = maxAge;
        this.snapshotTagSet = true;
        return this;
    }

    @Override
    protected void prepareLive(KafkaBackfillSourceBuilder<T> live) {
        if (!ordered && !isBackfillChunkSizeSet()) {
            live.setBackfillChunkSize(DEFAULT_CHUNK_SIZE);
        }
    }

    @Override
    protected IcebergBackfillLog<T> createLog(LiveTopics<T> liveTopics) {
        List<String> topics = liveTopicList();
        return new IcebergBackfillLog<>(
                liveTopics,
                new IcebergTableRef(catalogName, catalogProperties, table),
                new RowColumns(layout, topics.size() == 1 ? topics.get(0) : null),
                topics,
                recordMapper,
                maxRecordsPerPoll(),
                snapshotTagSet ? new SnapshotTag(snapshotTagName, snapshotTagMaxAge) : null,
                ordered);
    }

    @Override
    protected void checkOptions() {
        checkOption(
                catalogName != null && !catalogName.isBlank(),
                "catalog",
                "setCatalog",
                "has no name");
        checkOption(catalogProperties != null, "catalog", "setCatalog", "has no properties");
        checkOption(
                catalogProperties.containsKey(CatalogUtil.ICEBERG_CATALOG_TYPE)
                        || catalogProperties.containsKey(CatalogProperties.CATALOG_IMPL),
                "catalog",
                "setCatalog",
                "sets neither '"
                        + CatalogUtil.ICEBERG_CATALOG_TYPE
                        + "' nor '"
                        + CatalogProperties.CATALOG_IMPL
                        + "' among its properties "
                        + catalogProperties.keySet());
        checkOption(table != null && !table.isBlank(), "table", "setTable", "is not set");
        try {
            TableIdentifier.parse(table);
        } catch (IllegalArgumentException e) {
            checkOption(false, "table", "setTable", "is not a table identifier: " + e.getMessage());
        }
        checkOption(layout != null, "layout", "setLayout", "is not set");
        checkOption(
                recordMapper != null || layout.valueColumn().isPresent(),
                "record mapper",
                "setRecordMapper",
                "is not set, and the "
                        + layout
                        + " keeps no record value for the topic's deserializer: set a record mapper");
        KafkaBackfillSourceBuilder<T> live = checkLive();
        checkOption(
                !live.topics().isEmpty(),
                "live",
                "setLive",
                "subscribes to no topic list: set the topics with setTopics (a topic pattern is not supported)");
        checkOption(
                live.topics().size() == 1 || layout.topicColumn().isPresent(),
                "layout",
                "setLayout",
                "has no topic column, but the live source reads topics "
                        + live.topics()
                        + ": set one (IcebergLayout.withTopicColumn)");
        checkMaxRecordsPerPoll();
        if (snapshotTagSet) {
            checkOption(
                    snapshotTagName != null && !snapshotTagName.isBlank(),
                    "snapshot tag",
                    "setSnapshotTag",
                    "has an empty name");
            checkOption(
                    !SnapshotRef.MAIN_BRANCH.equals(snapshotTagName),
                    "snapshot tag",
                    "setSnapshotTag",
                    "is named '" + SnapshotRef.MAIN_BRANCH + "', the table's main branch");
            checkOption(
                    snapshotTagMaxAge != null && snapshotTagMaxAge.toMillis() >= 1,
                    "snapshot tag",
                    "setSnapshotTag",
                    "has the max age " + snapshotTagMaxAge + ": it must be at least a millisecond");
        }
        checkOption(
                !ordered || !isBackfillChunkSizeSet(),
                "ordered",
                "setOrdered",
                "reads each partition's history by its own split, in one piece: it takes no chunk size (setBackfillChunkSize)");
    }
}
