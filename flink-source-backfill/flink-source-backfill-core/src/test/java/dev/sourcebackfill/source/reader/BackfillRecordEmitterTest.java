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
package dev.sourcebackfill.source.reader;

import dev.sourcebackfill.source.RecordOrigin;
import dev.sourcebackfill.source.spi.LogRecordDeserializer;
import dev.sourcebackfill.source.split.BackfillSplit;
import dev.sourcebackfill.source.split.BackfillSplitState;
import dev.sourcebackfill.source.split.HandoverState;

import org.apache.flink.connector.testutils.source.reader.TestingReaderOutput;
import org.apache.flink.metrics.SimpleCounter;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.OptionalLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The emitter: values made of records, their origin, and the backfill counts. */
class BackfillRecordEmitterTest {

    /** Each record is its own value. */
    private static final LogRecordDeserializer<Object, String> AS_VALUE =
            (splitId, offset, record, out) -> out.collect((String) record);

    private static BackfillRecord backfill(String raw, long offset) {
        return new BackfillRecord(raw, offset, 100 + offset, false);
    }

    private static BackfillRecord live(String raw, long offset) {
        return new BackfillRecord(raw, offset, 100 + offset, true);
    }

    private static BackfillSplitState split(HandoverState state) {
        return new BackfillSplitState(new BackfillSplit("s", state, 0, 2, OptionalLong.empty()));
    }

    @Test
    void aRecordEmittedWhileItsSplitBackfillsIsMarkedBackfillAndLiveAfterTheHandover()
            throws Exception {
        SimpleCounter backfilled = new SimpleCounter();
        BackfillRecordEmitter<String> emitter =
                new BackfillRecordEmitter<>(
                        backfilled, (record, origin) -> record + "@" + origin, AS_VALUE, AS_VALUE);
        TestingReaderOutput<String> output = new TestingReaderOutput<>();
        BackfillSplitState split = split(HandoverState.BACKFILLING);

        emitter.emitRecord(backfill("a", 0), output, split);
        emitter.emitRecord(backfill("b", 1), output, split);
        split.applyTransition(HandoverState.CACHING_UP, 2, 2);
        split.applyTransition(HandoverState.FINISHED, 2, 2);
        emitter.emitRecord(live("c", 2), output, split);

        assertThat(output.getEmittedRecords())
                .containsExactly(
                        "a@" + RecordOrigin.BACKFILL,
                        "b@" + RecordOrigin.BACKFILL,
                        "c@" + RecordOrigin.LIVE);
        assertThat(backfilled.getCount()).isEqualTo(2);
        assertThat(split.backfilledRecords()).isEqualTo(2);
        assertThat(split.nextOffset()).isEqualTo(3);
    }

    @Test
    void withoutAMarkerRecordsAreEmittedAsTheyAre() throws Exception {
        BackfillRecordEmitter<String> emitter =
                new BackfillRecordEmitter<>(
                        new SimpleCounter(), RecordOrigin.Marker.none(), AS_VALUE, AS_VALUE);
        TestingReaderOutput<String> output = new TestingReaderOutput<>();
        emitter.emitRecord(live("a", 0), output, split(HandoverState.FINISHED));
        assertThat(output.getEmittedRecords()).containsExactly("a");
    }

    @Test
    void eachRecordIsMadeByTheDeserializerOfTheReaderThatReadIt() throws Exception {
        LogRecordDeserializer<Object, String> backfillValues =
                (splitId, offset, record, out) -> out.collect("backfill:" + splitId + "/" + offset);
        LogRecordDeserializer<Object, String> liveValues =
                (splitId, offset, record, out) -> out.collect("live:" + record);
        BackfillRecordEmitter<String> emitter =
                new BackfillRecordEmitter<>(
                        new SimpleCounter(),
                        RecordOrigin.Marker.none(),
                        backfillValues,
                        liveValues);
        TestingReaderOutput<String> output = new TestingReaderOutput<>();
        BackfillSplitState split = split(HandoverState.BACKFILLING);

        emitter.emitRecord(backfill("x", 0), output, split);
        split.applyTransition(HandoverState.FINISHED, 1, 1);
        emitter.emitRecord(live("y", 1), output, split);

        assertThat(output.getEmittedRecords()).containsExactly("backfill:s/0", "live:y");
    }

    /** The log's deserializer knows the log's splits: a chunk's records are its log split's. */
    @Test
    void aChunksRecordsAreDeserializedAsRecordsOfItsLogSplit() throws Exception {
        BackfillRecordEmitter<String> emitter =
                new BackfillRecordEmitter<>(
                        new SimpleCounter(),
                        RecordOrigin.Marker.none(),
                        (splitId, offset, record, out) -> out.collect(splitId + "/" + offset),
                        (splitId, offset, record, out) -> out.collect("live"));
        TestingReaderOutput<String> output = new TestingReaderOutput<>();
        BackfillSplitState chunk =
                new BackfillSplitState(BackfillSplit.historyChunk("topic-3", 2, 40, 60));
        emitter.emitRecord(backfill("x", 41), output, chunk);
        assertThat(output.getEmittedRecords()).containsExactly("topic-3/41");
        assertThat(chunk.nextOffset()).isEqualTo(42);
    }

    @Test
    void aRecordMayMakeSeveralValuesOrNoneAndItsOffsetIsPassedEitherWay() throws Exception {
        // offset 0 makes two values, offset 1 none, offset 2 one
        LogRecordDeserializer<Object, String> values =
                (splitId, offset, record, out) -> {
                    int made = offset == 0 ? 2 : offset == 1 ? 0 : 1;
                    for (int i = 0; i < made; i++) {
                        out.collect(record + "." + i);
                    }
                };
        SimpleCounter backfilled = new SimpleCounter();
        BackfillRecordEmitter<String> emitter =
                new BackfillRecordEmitter<>(backfilled, RecordOrigin.Marker.none(), values, values);
        TestingReaderOutput<String> output = new TestingReaderOutput<>();
        BackfillSplitState split =
                new BackfillSplitState(
                        new BackfillSplit(
                                "s", HandoverState.BACKFILLING, 0, 5, OptionalLong.empty()));

        emitter.emitRecord(backfill("a", 0), output, split);
        assertThat(split.nextOffset()).isEqualTo(1);
        emitter.emitRecord(backfill("b", 1), output, split);
        assertThat(split.nextOffset()).isEqualTo(2);
        emitter.emitRecord(backfill("c", 2), output, split);

        assertThat(output.getEmittedRecords()).containsExactly("a.0", "a.1", "c.0");
        assertThat(split.nextOffset()).isEqualTo(3);
        // records are counted, not values
        assertThat(backfilled.getCount()).isEqualTo(3);
        assertThat(split.backfilledRecords()).isEqualTo(3);
    }

    @Test
    void aRecordTheDeserializerRejectsFailsNamingItsSplitAndOffsetAndLeavesTheStateBeforeIt() {
        LogRecordDeserializer<Object, String> rejecting =
                (splitId, offset, record, out) -> {
                    throw new IOException("not JSON");
                };
        BackfillRecordEmitter<String> emitter =
                new BackfillRecordEmitter<>(
                        new SimpleCounter(), RecordOrigin.Marker.none(), rejecting, rejecting);
        BackfillSplitState split = split(HandoverState.BACKFILLING);

        assertThatThrownBy(
                        () ->
                                emitter.emitRecord(
                                        backfill("a", 0), new TestingReaderOutput<>(), split))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("offset 0 of split s")
                .hasRootCauseMessage("not JSON");
        assertThat(split.nextOffset()).isEqualTo(0);
    }

    @Test
    void aFailureDownstreamIsNotReportedAsTheDeserializers() {
        BackfillRecordEmitter<String> emitter =
                new BackfillRecordEmitter<>(
                        new SimpleCounter(), RecordOrigin.Marker.none(), AS_VALUE, AS_VALUE);
        TestingReaderOutput<String> failing =
                new TestingReaderOutput<>() {
                    @Override
                    public void collect(String record, long timestamp) {
                        throw new IllegalStateException("the map after the source failed");
                    }
                };

        assertThatThrownBy(
                        () ->
                                emitter.emitRecord(
                                        backfill("a", 0),
                                        failing,
                                        split(HandoverState.BACKFILLING)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("the map after the source failed");
    }

    @Test
    void aRecordFromTheReaderTheSplitIsNotOnFailsLoudly() {
        BackfillRecordEmitter<String> emitter =
                new BackfillRecordEmitter<>(
                        new SimpleCounter(), RecordOrigin.Marker.none(), AS_VALUE, AS_VALUE);
        assertThatThrownBy(
                        () ->
                                emitter.emitRecord(
                                        live("a", 0),
                                        new TestingReaderOutput<>(),
                                        split(HandoverState.BACKFILLING)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("Split s is BACKFILLING")
                .hasMessageContaining("read by the live reader");
    }
}
