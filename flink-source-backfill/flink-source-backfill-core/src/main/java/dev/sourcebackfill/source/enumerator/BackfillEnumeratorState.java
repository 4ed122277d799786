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

import dev.sourcebackfill.source.control.BackfillControl;
import dev.sourcebackfill.source.split.BackfillSplit;

import org.apache.flink.annotation.Internal;

import java.util.List;
import java.util.Objects;

/** The enumerator's checkpoint: the status table and whether the first discovery has run. */
@Internal
public final class BackfillEnumeratorState {

    /** One split of the table. */
    public static final class SplitEntry {
        private final BackfillSplit split;
        private final boolean assigned;
        private final boolean ended;

        public SplitEntry(BackfillSplit split, boolean assigned, boolean ended) {
            this.split = Objects.requireNonNull(split);
            this.assigned = assigned;
            this.ended = ended;
        }

        public BackfillSplit split() {
            return split;
        }

        /** Whether a reader holds the split (so a restore gives it back through reader state). */
        public boolean assigned() {
            return assigned;
        }

        public boolean ended() {
            return ended;
        }

        @Override
        public boolean equals(Object o) {
            if (!(o instanceof SplitEntry)) {
                return false;
            }
            SplitEntry that = (SplitEntry) o;
            return assigned == that.assigned && ended == that.ended && split.equals(that.split);
        }

        @Override
        public int hashCode() {
            return Objects.hash(split, assigned, ended);
        }

        @Override
        public String toString() {
            return split + (assigned ? " assigned" : " pending") + (ended ? " ended" : "");
        }
    }

    private final List<SplitEntry> splits;
    private final boolean initialDiscoveryDone;

    /** The control the enumerator applied last (from its control file), kept across restores. */
    private final BackfillControl control;

    public BackfillEnumeratorState(List<SplitEntry> splits, boolean initialDiscoveryDone) {
        this(splits, initialDiscoveryDone, BackfillControl.asBuilt());
    }

    public BackfillEnumeratorState(
            List<SplitEntry> splits, boolean initialDiscoveryDone, BackfillControl control) {
        this.splits = List.copyOf(splits);
        this.initialDiscoveryDone = initialDiscoveryDone;
        this.control = Objects.requireNonNull(control, "control");
    }

    public BackfillControl control() {
        return control;
    }

    public List<SplitEntry> splits() {
        return splits;
    }

    public boolean initialDiscoveryDone() {
        return initialDiscoveryDone;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof BackfillEnumeratorState)) {
            return false;
        }
        BackfillEnumeratorState that = (BackfillEnumeratorState) o;
        return initialDiscoveryDone == that.initialDiscoveryDone
                && splits.equals(that.splits)
                && control.equals(that.control);
    }

    @Override
    public int hashCode() {
        return Objects.hash(splits, initialDiscoveryDone, control);
    }

    @Override
    public String toString() {
        return "BackfillEnumeratorState{initialDiscoveryDone="
                + initialDiscoveryDone
                + ", "
                + control
                + ", "
                + splits
                + '}';
    }
}
