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

import dev.sourcebackfill.source.OffsetGapPolicy;
import dev.sourcebackfill.source.split.BackfillSplit;
import dev.sourcebackfill.source.split.HandoverState;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Under {@link OffsetGapPolicy#SKIP}, a gap that reaches a bounded split's stopping offset
 * (retention deleted everything up to the stop of an idle partition) completes the split: no
 * upstream record will come to say so, and without it the bounded job would never end. Covers a
 * split restored FINISHED on a seekable upstream and a CACHING_UP split on a feed.
 */
class SplitHandoverSkipToStopTest {

    private final List<String> out = new ArrayList<>();

    private SplitHandover<String> handover(HandoverState state, boolean seekable) {
        BackfillSplit split = new BackfillSplit("t-0", state, 6, 6, OptionalLong.of(10));
        return new SplitHandover<>(
                split,
                seekable,
                OffsetGapPolicy.SKIP,
                id -> 10, // everything below the stop is gone; the partition is idle at 10
                new SplitHandover.HandoverOutput<>() {
                    @Override
                    public void emit(String splitId, long offset, long timestamp, String value) {
                        out.add("e" + offset);
                    }

                    @Override
                    public void transition(
                            String splitId, HandoverState newState, long nextOffset, long target) {
                        out.add(newState.name().charAt(0) + "@" + nextOffset);
                    }

                    @Override
                    public void completed(String splitId) {
                        out.add("complete");
                    }

                    @Override
                    public void gapSkipped(String splitId, long from, long to) {
                        out.add("skip" + from + ".." + (to - 1));
                    }
                });
    }

    @Test
    void aRestoredFinishedSplitWhoseGapReachesItsStopCompletes() throws Exception {
        SplitHandover<String> handover = handover(HandoverState.FINISHED, true);
        handover.onUpstreamStarted();
        // the Kafka reader, sought to 10, stands at 10 and has nothing more
        handover.onUpstreamProgress(10);
        handover.onUpstreamProgress(10);
        assertThat(out).containsExactly("skip6..9", "complete");
        assertThat(handover.isComplete()).as("the bounded split reached its stop").isTrue();
    }

    @Test
    void aFeedsCachingUpSplitWhoseGapReachesItsStopCompletes() throws Exception {
        SplitHandover<String> handover = handover(HandoverState.CACHING_UP, false);
        handover.onUpstreamStarted();
        handover.onUpstreamProgress(10);
        handover.onUpstreamProgress(10);
        assertThat(handover.isComplete()).as("the bounded split reached its stop").isTrue();
    }
}
