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
package dev.sourcebackfill.benchmark;

import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;

/**
 * Flink 1.x: a sink whose writer needs only its subtask's index; its sinks must make their writer
 * from the older init context (the newer one's method delegates to it).
 */
abstract class SubtaskSink<T> implements Sink<T> {

    private static final long serialVersionUID = 1L;

    abstract SinkWriter<T> createWriter(int subtask);

    @Override
    public SinkWriter<T> createWriter(InitContext context) {
        return createWriter(context.getSubtaskId());
    }
}
