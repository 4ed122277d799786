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
package dev.sourcebackfill.source.archive;

import org.apache.flink.api.common.serialization.SimpleStringSchema;

/** The archive tests' lines schema: a line as a string, and the line "poison" rejected. */
final class PoisonRejecting extends SimpleStringSchema {
    private static final long serialVersionUID = 1L;

    @Override
    public String deserialize(byte[] message) {
        String s = super.deserialize(message);
        if (s.equals("poison")) {
            throw new IllegalArgumentException("not a record: " + s);
        }
        return s;
    }
}
