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

import org.apache.flink.annotation.PublicEvolving;

/**
 * Where a split stands in its handover from backfill to the live reader.
 *
 * <pre>
 *                 backfill record at/after target,
 *                 backfill position past target,
 *                 bounded backfill ended,
 *                 live record behind the backfill
 *   BACKFILLING ─────────────────────────────────────────▶ CACHING_UP
 *        │                                                    │
 *        │ live record exactly at the                         │ live read position
 *        │ last backfilled offset                             │ past the backfilled range
 *        ▼                                                    ▼
 *     FINISHED ◀──────────────────────────────────────────────┘
 * </pre>
 *
 * <p>Only the transitions drawn above are legal; a split never goes back. The codes are stable:
 * they are written into checkpoints and events.
 */
@PublicEvolving
public enum HandoverState {
    /** Backfill records are emitted; live records are not. */
    BACKFILLING(0),
    /** The backfill has stopped; live records still inside the backfilled range are dropped. */
    CACHING_UP(1),
    /** Live records are emitted; the backfill reader is not needed any more. */
    FINISHED(2);

    private final int code;

    HandoverState(int code) {
        this.code = code;
    }

    /** The stable code written into checkpoints and events. */
    public int code() {
        return code;
    }

    public static HandoverState fromCode(int code) {
        for (HandoverState state : values()) {
            if (state.code == code) {
                return state;
            }
        }
        throw new IllegalArgumentException("Unknown handover state code " + code);
    }

    /** Whether the state machine allows going from this state to {@code next}. */
    public boolean canMoveTo(HandoverState next) {
        switch (this) {
            case BACKFILLING:
                return next == CACHING_UP || next == FINISHED;
            case CACHING_UP:
                return next == FINISHED;
            default:
                return false;
        }
    }

    /**
     * Returns {@code next} if the move is legal.
     *
     * @throws IllegalStateException naming the split if it is not
     */
    public HandoverState moveTo(HandoverState next, String splitId) {
        if (!canMoveTo(next)) {
            throw new IllegalStateException(
                    String.format(
                            "Illegal handover transition %s -> %s for split %s",
                            this, next, splitId));
        }
        return next;
    }
}
