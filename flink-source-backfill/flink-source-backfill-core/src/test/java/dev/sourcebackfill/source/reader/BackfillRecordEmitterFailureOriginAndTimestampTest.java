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
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The emitter's value output ({@code BackfillRecordEmitter.ValueOutput}), which hands each value to
 * the reader's output in one call: a failure is downstream's only while a value is being handed on
 * (not once it was handed on, not while it is marked, not for the next record), and every value
 * carries its record's timestamp.
 */
class BackfillRecordEmitterFailureOriginAndTimestampTest {

    private static BackfillRecord backfill(String raw, long offset) {
        return new BackfillRecord(raw, offset, 1_000 + offset, false);
    }

    private static BackfillSplitState split() {
        return new BackfillSplitState(
                new BackfillSplit("s", HandoverState.BACKFILLING, 0, 10, OptionalLong.empty()));
    }

    /** A reader output keeping each value's timestamp. */
    private static final class Timestamps extends TestingReaderOutput<String> {
        final List<String> emitted = new ArrayList<>();

        @Override
        public void collect(String record, long timestamp) {
            emitted.add(record + "@" + timestamp);
            super.collect(record, timestamp);
        }
    }

    @Test
    void everyValueOfARecordCarriesTheRecordsTimestamp() throws Exception {
        LogRecordDeserializer<Object, String> twice =
                (splitId, offset, record, out) -> {
                    out.collect(record + ".0");
                    out.collect(record + ".1");
                };
        BackfillRecordEmitter<String> emitter =
                new BackfillRecordEmitter<>(
                        new SimpleCounter(), (value, origin) -> value + "/" + origin, twice, twice);
        Timestamps output = new Timestamps();
        BackfillSplitState split = split();
        emitter.emitRecord(backfill("a", 0), output, split);
        emitter.emitRecord(backfill("b", 1), output, split);
        assertThat(output.emitted)
                .containsExactly(
                        "a.0/" + RecordOrigin.BACKFILL + "@1000",
                        "a.1/" + RecordOrigin.BACKFILL + "@1000",
                        "b.0/" + RecordOrigin.BACKFILL + "@1001",
                        "b.1/" + RecordOrigin.BACKFILL + "@1001");
    }

    /** Once a value went downstream, the deserializer's own failure is still the deserializer's. */
    @Test
    void theDeserializersFailureAfterAValueWentDownstreamIsTheDeserializers() {
        LogRecordDeserializer<Object, String> oneThenFail =
                (splitId, offset, record, out) -> {
                    out.collect("first");
                    throw new IOException("bad second half");
                };
        BackfillRecordEmitter<String> emitter =
                new BackfillRecordEmitter<>(
                        new SimpleCounter(), RecordOrigin.Marker.none(), oneThenFail, oneThenFail);
        BackfillSplitState split = split();
        assertThatThrownBy(
                        () ->
                                emitter.emitRecord(
                                        backfill("a", 3), new TestingReaderOutput<>(), split))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("offset 3 of split s")
                .hasRootCauseMessage("bad second half");
        assertThat(split.nextOffset()).isEqualTo(0);
    }

    /** The origin marker runs before the value is handed on: its failure is not downstream's. */
    @Test
    void aMarkersFailureIsNotDownstreams() {
        LogRecordDeserializer<Object, String> asValue =
                (splitId, offset, record, out) -> out.collect((String) record);
        RecordOrigin.Marker<String> failing =
                (value, origin) -> {
                    throw new IllegalArgumentException("cannot mark " + value);
                };
        BackfillRecordEmitter<String> emitter =
                new BackfillRecordEmitter<>(new SimpleCounter(), failing, asValue, asValue);
        assertThatThrownBy(
                        () ->
                                emitter.emitRecord(
                                        backfill("a", 0), new TestingReaderOutput<>(), split()))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("offset 0 of split s")
                .hasRootCauseMessage("cannot mark a");
    }

    /**
     * A downstream failure caught by the deserializer, which goes on and fails itself: the failure
     * is still downstream's (the value it was handing on never arrived), as with Flink's own
     * collectors; and the next record starts with nothing downstream.
     */
    @Test
    void aDownstreamFailureDoesNotMarkTheNextRecordsFailure() {
        LogRecordDeserializer<Object, String> values =
                (splitId, offset, record, out) -> {
                    if (offset == 1) {
                        throw new IOException("not JSON");
                    }
                    out.collect((String) record);
                };
        BackfillRecordEmitter<String> emitter =
                new BackfillRecordEmitter<>(
                        new SimpleCounter(), RecordOrigin.Marker.none(), values, values);
        TestingReaderOutput<String> failingOnce =
                new TestingReaderOutput<>() {
                    @Override
                    public void collect(String record, long timestamp) {
                        throw new IllegalStateException("the map after the source failed");
                    }
                };
        BackfillSplitState split = split();
        assertThatThrownBy(() -> emitter.emitRecord(backfill("a", 0), failingOnce, split))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("the map after the source failed");
        // the job restarts the reader in practice; the emitter is reused here to check the flag
        assertThatThrownBy(
                        () ->
                                emitter.emitRecord(
                                        backfill("b", 1), new TestingReaderOutput<>(), split))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("offset 1 of split s")
                .hasRootCauseMessage("not JSON");
    }
}
