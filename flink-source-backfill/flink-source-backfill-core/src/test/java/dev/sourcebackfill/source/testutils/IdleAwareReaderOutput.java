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

import org.apache.flink.connector.testutils.source.reader.TestingReaderOutput;

/** Flink's testing reader output, which refuses {@code markIdle}, counting the calls instead. */
public final class IdleAwareReaderOutput<E> extends TestingReaderOutput<E> {

    private int idleMarks;

    @Override
    public void markIdle() {
        idleMarks++;
    }

    /** How often the reader marked its output idle. */
    public int idleMarks() {
        return idleMarks;
    }
}
