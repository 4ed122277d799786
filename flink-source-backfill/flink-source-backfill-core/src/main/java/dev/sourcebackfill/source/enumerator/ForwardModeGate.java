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
package dev.sourcebackfill.source.enumerator;

import org.apache.flink.annotation.Internal;

import javax.annotation.Nullable;

import java.util.OptionalLong;
import java.util.TreeSet;

/**
 * Decides when the source enters forward mode: in {@code notifyCheckpointComplete(n)}, only if the
 * enumerator's own snapshot for checkpoint {@code n} had every split confirmed {@code FINISHED},
 * and nothing has since made a status untrusted or unfinished.
 *
 * <p>Not "some snapshot {@code <= n}": an older eligible snapshot may belong to a checkpoint that
 * was aborted before a regional failover restored a reader to older state. A missed notification is
 * made up by the next completed checkpoint whose own snapshot was eligible.
 */
@Internal
final class ForwardModeGate {

    /** Checkpoints whose enumerator snapshot had every split confirmed FINISHED. */
    private final TreeSet<Long> eligibleSnapshots = new TreeSet<>();

    /** The checkpoint that confirmed forward mode; {@code null} when not in forward mode. */
    @Nullable private Long forwardCheckpoint;

    void onSnapshot(long checkpointId, boolean allConfirmedFinished) {
        if (allConfirmedFinished) {
            eligibleSnapshots.add(checkpointId);
        } else {
            eligibleSnapshots.remove(checkpointId);
        }
    }

    /** Returns {@code true} if the source enters forward mode with this checkpoint. */
    boolean onCheckpointComplete(long checkpointId) {
        boolean eligible = eligibleSnapshots.contains(checkpointId);
        // completion of n subsumes every checkpoint up to n
        eligibleSnapshots.headSet(checkpointId, true).clear();
        if (eligible && forwardCheckpoint == null) {
            forwardCheckpoint = checkpointId;
            return true;
        }
        return false;
    }

    void onCheckpointAborted(long checkpointId) {
        eligibleSnapshots.remove(checkpointId);
    }

    /**
     * Something made a status untrusted or unfinished: no snapshot taken so far may confirm forward
     * mode, and the source leaves it.
     *
     * @return whether the source was in forward mode
     */
    boolean invalidate() {
        eligibleSnapshots.clear();
        boolean was = forwardCheckpoint != null;
        forwardCheckpoint = null;
        return was;
    }

    /**
     * Whether, not in forward mode, some snapshot would confirm it once its checkpoint completes.
     */
    boolean awaitsCompletion() {
        return forwardCheckpoint == null && !eligibleSnapshots.isEmpty();
    }

    boolean isForward() {
        return forwardCheckpoint != null;
    }

    /** The checkpoint that confirmed forward mode; empty when not in forward mode. */
    OptionalLong forwardCheckpoint() {
        return forwardCheckpoint == null
                ? OptionalLong.empty()
                : OptionalLong.of(forwardCheckpoint);
    }
}
