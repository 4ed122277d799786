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
package dev.sourcebackfill.source.split;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class HandoverStateTest {

    @ParameterizedTest(name = "{0} -> {1} legal: {2}")
    @CsvSource({
        "BACKFILLING, CACHING_UP, true",
        "BACKFILLING, FINISHED, true",
        "CACHING_UP, FINISHED, true",
        "BACKFILLING, BACKFILLING, false",
        "CACHING_UP, BACKFILLING, false",
        "CACHING_UP, CACHING_UP, false",
        "FINISHED, BACKFILLING, false",
        "FINISHED, CACHING_UP, false",
        "FINISHED, FINISHED, false"
    })
    void onlyForwardTransitionsAreLegal(HandoverState from, HandoverState to, boolean legal) {
        assertThat(from.canMoveTo(to)).isEqualTo(legal);
        if (legal) {
            assertThat(from.moveTo(to, "s")).isEqualTo(to);
        } else {
            assertThatThrownBy(() -> from.moveTo(to, "split-7"))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("split-7")
                    .hasMessageContaining(from + " -> " + to);
        }
    }

    @Test
    void codesAreStable() {
        // written into checkpoints: changing a code breaks every savepoint
        assertThat(HandoverState.BACKFILLING.code()).isEqualTo(0);
        assertThat(HandoverState.CACHING_UP.code()).isEqualTo(1);
        assertThat(HandoverState.FINISHED.code()).isEqualTo(2);
        for (HandoverState s : HandoverState.values()) {
            assertThat(HandoverState.fromCode(s.code())).isEqualTo(s);
        }
        assertThatThrownBy(() -> HandoverState.fromCode(9))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("9");
    }
}
