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
package dev.sourcebackfill.source.event;

import dev.sourcebackfill.source.control.BackfillControl;

import org.apache.flink.annotation.Internal;

import java.util.Objects;

/**
 * The enumerator's current {@link BackfillControl}, sent to every reader when it changes and to a
 * reader when it registers (a start, a restore, a regional failover): the reader applies it at its
 * next poll.
 */
@Internal
public final class BackfillControlEvent implements ReaderBoundEvent {

    private static final long serialVersionUID = 1L;

    private final BackfillControl control;

    public BackfillControlEvent(BackfillControl control) {
        this.control = Objects.requireNonNull(control, "control");
    }

    public BackfillControl control() {
        return control;
    }

    @Override
    public void dispatchTo(Handler handler) {
        handler.onControl(control);
    }

    @Override
    public String toString() {
        return "BackfillControl{" + control + '}';
    }
}
