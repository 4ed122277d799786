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
package dev.sourcebackfill.source;

import org.apache.flink.annotation.PublicEvolving;

/**
 * What a handover does when the live reader no longer has the split's next offset (retention
 * deleted records that the backfill did not cover either): the offsets in between are in neither.
 */
@PublicEvolving
public enum OffsetGapPolicy {
    /** Fail the job with an {@link OffsetGapException} naming the split and both offsets. */
    FAIL,
    /**
     * Go on at the live reader's earliest offset: log a warning naming the split and the lost
     * offsets, and count them in the reader's {@code backfill.skippedOffsets} counter.
     */
    SKIP
}
