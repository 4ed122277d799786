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
package dev.sourcebackfill.source.testutils;

import dev.sourcebackfill.source.split.BackfillSplit;
import dev.sourcebackfill.source.split.HandoverState;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/** The ITCases' forward-mode check must be able to fail. */
class ObservationsTest {

    private static BackfillSplit split(String id, HandoverState state) {
        return new BackfillSplit(id, state, 5, 5, OptionalLong.empty());
    }

    @Test
    void flagsForwardModeWhoseCheckpointHadASplitNotFinished() {
        Observations obs = Observations.of(UUID.randomUUID().toString());
        obs.recordSnapshots(
                7,
                Map.of(
                        0,
                        List.of(split("a", HandoverState.FINISHED)),
                        1,
                        List.of(split("b", HandoverState.CACHING_UP))),
                Set.of("a", "b"));
        obs.completedCheckpoints.add(7L);
        obs.forwardModeEntries.add(new Observations.ForwardModeEntry(0, 7, 0));
        assertThat(obs.forwardModeProblems())
                .singleElement()
                .asString()
                .contains("split b was CACHING_UP");
    }

    @Test
    void flagsForwardModeWhoseCheckpointMissedASplit() {
        Observations obs = Observations.of(UUID.randomUUID().toString());
        obs.recordSnapshots(
                7, Map.of(0, List.of(split("a", HandoverState.FINISHED))), Set.of("a", "b"));
        obs.completedCheckpoints.add(7L);
        obs.forwardModeEntries.add(new Observations.ForwardModeEntry(0, 7, 0));
        assertThat(obs.forwardModeProblems())
                .singleElement()
                .asString()
                .contains("split b was null");
        obs.forwardModeEntries.clear();
        obs.forwardModeEntries.add(new Observations.ForwardModeEntry(0, 8, 0));
        assertThat(obs.forwardModeProblems())
                .singleElement()
                .asString()
                .contains("without an enumerator snapshot");
    }

    @Test
    void acceptsForwardModeWhoseCheckpointHadEverySplitFinished() {
        Observations obs = Observations.of(UUID.randomUUID().toString());
        obs.recordSnapshots(
                7,
                Map.of(
                        0,
                        List.of(split("a", HandoverState.FINISHED)),
                        1,
                        List.of(split("b", HandoverState.FINISHED))),
                Set.of("a", "b"));
        obs.forwardModeEntries.add(new Observations.ForwardModeEntry(1, 7, 0));
        assertThat(obs.forwardModeProblems())
                .singleElement()
                .asString()
                .contains("which no reader was told completed");
        obs.completedCheckpoints.add(7L);
        assertThat(obs.forwardModeProblems()).isEmpty();
    }
}
