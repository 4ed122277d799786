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

import org.apache.flink.annotation.Internal;

/**
 * Whether the source reader is in forward mode, shared between the task thread (which changes it)
 * and the fetcher thread (which releases backfill resources when it is set).
 */
@Internal
final class ReaderMode {

    private volatile boolean forward;

    boolean isForward() {
        return forward;
    }

    void setForward(boolean forward) {
        this.forward = forward;
    }
}
