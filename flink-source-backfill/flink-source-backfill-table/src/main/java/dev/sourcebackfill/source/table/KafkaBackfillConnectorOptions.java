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

import dev.sourcebackfill.source.BackfillSourceBuilder;
import dev.sourcebackfill.source.OffsetGapPolicy;

import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;

import java.time.Duration;
import java.util.List;

/**
 * The options of the {@code kafka-backfill} table connector that Flink's Kafka connector does not
 * have, all under {@code backfill.}. The options both share ({@code topic}, {@code properties.*},
 * {@code scan.startup.mode}, formats, ...) are Flink's own {@code KafkaConnectorOptions}, with the
 * same names and meanings.
 */
@PublicEvolving
public final class KafkaBackfillConnectorOptions {

    private KafkaBackfillConnectorOptions() {}

    public static final ConfigOption<OffsetGapPolicy> OFFSET_GAP_POLICY =
            ConfigOptions.key("backfill.offset-gap-policy")
                    .enumType(OffsetGapPolicy.class)
                    .defaultValue(OffsetGapPolicy.FAIL)
                    .withDescription(
                            "What a partition's handover does when the live reader no longer has"
                                    + " the next offset (retention deleted it): FAIL the job naming"
                                    + " the partition and both offsets, or SKIP to the earliest"
                                    + " offset with a warning and the skippedOffsets metric.");

    public static final ConfigOption<String> ARCHIVE_PATH =
            ConfigOptions.key("backfill.archive.path")
                    .stringType()
                    .noDefaultValue()
                    .withDescription(
                            "The root of an archive of the topic's history in files (a Kafka"
                                    + " Connect storage sink's topics.dir: <topic>/partition=<p>/"
                                    + "<topic>+<p>+<startOffset>.<ext>, any Flink file system)."
                                    + " Each partition's history is read from its files, each"
                                    + " line a value in the table's value format, then the"
                                    + " partition goes on live in the topic after its last"
                                    + " archived offset. Without it, the history is read from the"
                                    + " topic.");

    public static final ConfigOption<String> ARCHIVE_OFFSET_FIELD =
            ConfigOptions.key("backfill.archive.offset-field")
                    .stringType()
                    .noDefaultValue()
                    .withDescription(
                            "A BIGINT column of the value holding each archived record's Kafka"
                                    + " offset; needed for transactional and compacted topics."
                                    + " Without it, offsets are counted from each file's start"
                                    + " offset.");

    public static final ConfigOption<Boolean> ARCHIVE_SKIP_UNREADABLE_RECORDS =
            ConfigOptions.key("backfill.archive.skip-unreadable-records")
                    .booleanType()
                    .defaultValue(false)
                    .withDescription(
                            "Skip (and count, in backfill.skippedArchiveRecords) an archived line"
                                    + " the value format cannot read, instead of failing the job"
                                    + " naming the file and line.");

    /** The prefix of every Iceberg option. */
    static final String ICEBERG_PREFIX = "backfill.iceberg.";

    /**
     * The prefix of the Iceberg catalog's properties: {@code backfill.iceberg.catalog.type}, ...
     */
    public static final String ICEBERG_CATALOG_PREFIX = "backfill.iceberg.catalog.";

    public static final ConfigOption<String> ICEBERG_TABLE =
            ConfigOptions.key("backfill.iceberg.table")
                    .stringType()
                    .noDefaultValue()
                    .withDescription(
                            "An Apache Iceberg table written from the topic ('namespace.table'),"
                                    + " each row holding its Kafka partition and offset in columns."
                                    + " The history is read from the table's snapshot pinned at the"
                                    + " job's first start, then each partition goes on live in the"
                                    + " topic after the highest offset it has in the snapshot. The"
                                    + " catalog is given by the "
                                    + ICEBERG_CATALOG_PREFIX
                                    + "* options (Iceberg's catalog properties: type or"
                                    + " catalog-impl, uri, warehouse, ...). Needs the"
                                    + " flink-source-backfill-iceberg module on the class path.");

    public static final ConfigOption<String> ICEBERG_CATALOG_NAME =
            ConfigOptions.key("backfill.iceberg.catalog-name")
                    .stringType()
                    .defaultValue("iceberg")
                    .withDescription("The name the Iceberg catalog is loaded under.");

    public static final ConfigOption<String> ICEBERG_LAYOUT =
            ConfigOptions.key("backfill.iceberg.layout")
                    .stringType()
                    .noDefaultValue()
                    .withDescription(
                            "The columns the table's writer keeps each record's Kafka metadata in:"
                                    + " 'redpanda', 'kafka-connect', 'kafka-connect-nested',"
                                    + " 'automq', 'aiven', or 'custom' with the"
                                    + " backfill.iceberg.*-column options. The column options"
                                    + " also override a preset's columns.");

    public static final ConfigOption<String> ICEBERG_PARTITION_COLUMN =
            icebergColumn("partition", "each row's Kafka partition (int)");

    public static final ConfigOption<String> ICEBERG_OFFSET_COLUMN =
            icebergColumn("offset", "each row's Kafka offset (long)");

    public static final ConfigOption<String> ICEBERG_TIMESTAMP_COLUMN =
            icebergColumn("timestamp", "each row's Kafka timestamp (timestamp or epoch millis)");

    public static final ConfigOption<String> ICEBERG_TOPIC_COLUMN =
            icebergColumn("topic", "each row's Kafka topic; rows of other topics are skipped");

    public static final ConfigOption<String> ICEBERG_KEY_COLUMN =
            icebergColumn("key", "each record's key as the topic had it (binary)");

    public static final ConfigOption<String> ICEBERG_VALUE_COLUMN =
            icebergColumn("value", "each record's value as the topic had it (binary)");

    public static final ConfigOption<String> ICEBERG_HEADERS_COLUMN =
            icebergColumn("headers", "each record's headers (a list of key/value structs)");

    /** How a table row becomes the SQL table's row. */
    public enum IcebergValues {
        /** The value column's bytes (and the key column's) through the table's formats. */
        FORMAT,
        /** Each physical column of the SQL table from the Iceberg column of the same name. */
        COLUMNS
    }

    public static final ConfigOption<IcebergValues> ICEBERG_VALUES =
            ConfigOptions.key("backfill.iceberg.values")
                    .enumType(IcebergValues.class)
                    .noDefaultValue()
                    .withDescription(
                            "How a table row becomes the SQL row: FORMAT runs the layout's value"
                                    + " column (and key column) through the table's formats, as"
                                    + " the topic's records are read; COLUMNS takes each physical"
                                    + " column from the Iceberg column of the same name (a writer"
                                    + " that kept the value's fields as columns). Default: FORMAT"
                                    + " when the layout has a value column, else COLUMNS.");

    public static final ConfigOption<String> ICEBERG_SNAPSHOT_TAG =
            ConfigOptions.key("backfill.iceberg.snapshot-tag")
                    .stringType()
                    .noDefaultValue()
                    .withDescription(
                            "An Iceberg tag of this name keeps the snapshot pinned at the job's"
                                    + " first start from the writer's snapshot expiry until the"
                                    + " source is in forward mode, when the tag is removed (also"
                                    + " by a job restored from a checkpoint). Without it, a job"
                                    + " restored after its snapshot expired fails. One name per"
                                    + " job; needs backfill.iceberg.snapshot-tag.max-age.");

    public static final ConfigOption<Duration> ICEBERG_SNAPSHOT_TAG_MAX_AGE =
            ConfigOptions.key("backfill.iceberg.snapshot-tag.max-age")
                    .durationType()
                    .noDefaultValue()
                    .withDescription(
                            "The max age of the tag set by backfill.iceberg.snapshot-tag, counted"
                                    + " from the snapshot's commit time: how long the tag keeps"
                                    + " the snapshot if the job never reaches forward mode"
                                    + " (abandoned or failing). Required with it.");

    public static final ConfigOption<Boolean> ICEBERG_ORDERED =
            ConfigOptions.key("backfill.iceberg.ordered")
                    .booleanType()
                    .defaultValue(false)
                    .withDescription(
                            "Ordered mode: each partition's rows in the table are read by the"
                                    + " partition's own split in offset order and handed over to"
                                    + " the topic after them, so that each partition's records"
                                    + " come in offset order, history first (a per-key state"
                                    + " without event time needs that). Off by default: the"
                                    + " table's history is then read in chunks by all readers"
                                    + " while every partition is live, each file once. Takes no"
                                    + " 'backfill.chunk-size'; a file mixing partitions is read"
                                    + " once per partition it holds.");

    /** Every {@code backfill.iceberg.*} option ({@link #ICEBERG_TABLE} first). */
    static final List<ConfigOption<?>> ICEBERG_OPTIONS =
            List.of(
                    ICEBERG_TABLE,
                    ICEBERG_CATALOG_NAME,
                    ICEBERG_LAYOUT,
                    ICEBERG_VALUES,
                    ICEBERG_ORDERED,
                    ICEBERG_PARTITION_COLUMN,
                    ICEBERG_OFFSET_COLUMN,
                    ICEBERG_TIMESTAMP_COLUMN,
                    ICEBERG_TOPIC_COLUMN,
                    ICEBERG_KEY_COLUMN,
                    ICEBERG_VALUE_COLUMN,
                    ICEBERG_HEADERS_COLUMN,
                    ICEBERG_SNAPSHOT_TAG,
                    ICEBERG_SNAPSHOT_TAG_MAX_AGE);

    private static ConfigOption<String> icebergColumn(String what, String meaning) {
        return ConfigOptions.key("backfill.iceberg." + what + "-column")
                .stringType()
                .noDefaultValue()
                .withDescription(
                        "The Iceberg column (a dotted path for a struct's field) of "
                                + meaning
                                + ".");
    }

    public static final ConfigOption<Double> BACKFILL_RECORDS_PER_SECOND =
            ConfigOptions.key("backfill.rate-limit.records-per-second")
                    .doubleType()
                    .noDefaultValue()
                    .withDescription(
                            "Limits each source reader's backfill (history from the topic or the"
                                    + " archive) to this many records per second; live records are"
                                    + " never throttled. No limit unless set.");

    public static final ConfigOption<String> BACKFILL_CONTROL_FILE =
            ConfigOptions.key("backfill.control.file")
                    .stringType()
                    .noDefaultValue()
                    .withDescription(
                            "A file on Flink's file system (a local path, hdfs://, s3://...)"
                                    + " through which the running backfill is steered: 'rate=<records"
                                    + " per second per reader>' or 'rate=builder', and"
                                    + " 'paused=true|false', one per line (the backfill client"
                                    + " writes it). Read every 'backfill.control.interval'; the"
                                    + " setting applied last is kept in checkpoints and wins over"
                                    + " 'backfill.rate-limit.records-per-second'. A file that holds"
                                    + " no control is logged and ignored. None unless set.");

    public static final ConfigOption<Duration> BACKFILL_CONTROL_INTERVAL =
            ConfigOptions.key("backfill.control.interval")
                    .durationType()
                    .defaultValue(Duration.ofSeconds(5))
                    .withDescription("How often the backfill's control file is read.");

    public static final ConfigOption<Long> BACKFILL_CHUNK_SIZE =
            ConfigOptions.key("backfill.chunk-size")
                    .longType()
                    .noDefaultValue()
                    .withDescription(
                            "Cuts each partition's history, as found when the job first starts,"
                                    + " into chunks of about this many records, read in parallel"
                                    + " by any source reader (an archive's at file boundaries)."
                                    + " Offsets are in order within a chunk, in no order across"
                                    + " the chunks of a partition; each partition still hands"
                                    + " over to the topic at its exact offset. Off unless set.");

    public static final ConfigOption<Duration> POLL_TIMEOUT =
            ConfigOptions.key("backfill.poll-timeout")
                    .durationType()
                    .defaultValue(BackfillSourceBuilder.DEFAULT_POLL_TIMEOUT)
                    .withDescription("How long one poll of a Kafka consumer waits for records.");
}
