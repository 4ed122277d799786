-- History then live from a Kafka topic through the kafka-backfill connector, into files.
-- Run it with Flink's SQL client and the SQL jar (flink-sql-source-backfill):
--   sql-client.sh -j flink-sql-source-backfill-0.1.0-2.2-SNAPSHOT.jar -f kafka-backfill.sql
-- examples/e2e/run.sh runs this file as it is, with ${BOOTSTRAP_SERVERS}, ${BOUNDED_OFFSETS}
-- and ${OUTPUT} filled in.

SET 'execution.runtime-mode' = 'streaming';
SET 'execution.checkpointing.interval' = '1 s';
SET 'parallelism.default' = '2';

-- Flink's Kafka table, with 'kafka-backfill' as its connector: each partition's history is read
-- first, then the partition goes on live, exactly once across the handover.
CREATE TABLE orders (
  `value` STRING,
  `partition` INT METADATA VIRTUAL,
  `offset` BIGINT METADATA VIRTUAL
) WITH (
  'connector' = 'kafka-backfill',
  'topic' = 'orders',
  'properties.bootstrap.servers' = '${BOOTSTRAP_SERVERS}',
  'scan.startup.mode' = 'earliest-offset',
  -- stops each partition at a given offset, so that the INSERT ends (leave it out to run on)
  'scan.bounded.mode' = 'specific-offsets',
  'scan.bounded.specific-offsets' = '${BOUNDED_OFFSETS}',
  'format' = 'raw'
);

CREATE TABLE delivered (
  `partition` INT,
  `offset` BIGINT,
  `value` STRING
) WITH (
  'connector' = 'filesystem',
  'path' = '${OUTPUT}',
  'format' = 'json'
);

INSERT INTO delivered SELECT `partition`, `offset`, `value` FROM orders;
