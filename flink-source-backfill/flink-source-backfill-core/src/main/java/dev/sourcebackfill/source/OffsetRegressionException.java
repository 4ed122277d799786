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
import org.apache.flink.util.FlinkRuntimeException;

/** A reader delivered an offset that does not increase within its split. */
@PublicEvolving
public class OffsetRegressionException extends FlinkRuntimeException {

    private static final long serialVersionUID = 1L;

    public OffsetRegressionException(
            String splitId, String reader, long offset, long expectedAtLeast) {
        super(
                String.format(
                        "Offset regression in split %s: the %s reader delivered offset %d, "
                                + "but offsets below %d were already consumed",
                        splitId, reader, offset, expectedAtLeast));
    }
}
