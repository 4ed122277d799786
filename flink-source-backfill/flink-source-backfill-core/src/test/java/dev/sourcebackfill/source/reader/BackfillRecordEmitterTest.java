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
import dev.sourcebackfill.source.split.BackfillSplit;
import dev.sourcebackfill.source.split.BackfillSplitState;
import dev.sourcebackfill.source.split.HandoverState;

import org.apache.flink.connector.testutils.source.reader.TestingReaderOutput;
import org.apache.flink.metrics.SimpleCounter;

import org.junit.jupiter.api.Test;

import java.util.OptionalLong;

import static org.assertj.core.api.Assertions.assertThat;

/** The emitter: records, their origin, and the backfill counts. */
class BackfillRecordEmitterTest {

    @Test
    void aRecordEmittedWhileItsSplitBackfillsIsMarkedBackfillAndLiveAfterTheHandover() {
        SimpleCounter backfilled = new SimpleCounter();
        BackfillRecordEmitter<String> emitter =
                new BackfillRecordEmitter<>(backfilled, (record, origin) -> record + "@" + origin);
        TestingReaderOutput<String> output = new TestingReaderOutput<>();
        BackfillSplitState split =
                new BackfillSplitState(
                        new BackfillSplit(
                                "s", HandoverState.BACKFILLING, 0, 2, OptionalLong.empty()));

        emitter.emitRecord(new BackfillRecord<>("a", 0, 0), output, split);
        emitter.emitRecord(new BackfillRecord<>("b", 1, 0), output, split);
        split.applyTransition(HandoverState.CACHING_UP, 2, 2);
        split.applyTransition(HandoverState.FINISHED, 2, 2);
        emitter.emitRecord(new BackfillRecord<>("c", 2, 0), output, split);

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
    void withoutAMarkerRecordsAreEmittedAsTheyAre() {
        BackfillRecordEmitter<String> emitter =
                new BackfillRecordEmitter<>(new SimpleCounter(), RecordOrigin.Marker.none());
        TestingReaderOutput<String> output = new TestingReaderOutput<>();
        BackfillSplitState split =
                new BackfillSplitState(
                        new BackfillSplit("s", HandoverState.FINISHED, 0, 0, OptionalLong.empty()));
        emitter.emitRecord(new BackfillRecord<>("a", 0, 0), output, split);
        assertThat(output.getEmittedRecords()).containsExactly("a");
    }
}
