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

import dev.sourcebackfill.source.split.HandoverState;

import org.apache.flink.annotation.Internal;

/**
 * A handover transition decided in the fetcher: the split is now in {@code newState}, every offset
 * below {@code nextOffset} covered, and the backfill must reach {@code targetEndOffset}.
 */
@Internal
final class HandoverTransition {

    private final HandoverState newState;
    private final long nextOffset;
    private final long targetEndOffset;

    HandoverTransition(HandoverState newState, long nextOffset, long targetEndOffset) {
        this.newState = newState;
        this.nextOffset = nextOffset;
        this.targetEndOffset = targetEndOffset;
    }

    HandoverState newState() {
        return newState;
    }

    long nextOffset() {
        return nextOffset;
    }

    long targetEndOffset() {
        return targetEndOffset;
    }

    @Override
    public String toString() {
        return newState + "@" + nextOffset + " (target " + targetEndOffset + ")";
    }
}
