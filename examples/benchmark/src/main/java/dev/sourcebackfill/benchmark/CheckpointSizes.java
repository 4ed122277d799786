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

import org.apache.flink.runtime.checkpoint.Checkpoints;
import org.apache.flink.runtime.checkpoint.OperatorState;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.checkpoint.metadata.CheckpointMetadata;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * The sizes of the source's state in a retained checkpoint, read from its {@code _metadata}: the
 * enumerator's (the operator coordinator's state) and the readers' (the subtasks' state of the
 * operator that has a coordinator: the only one in the benchmark's jobs).
 */
final class CheckpointSizes {

    final long checkpointId;
    final long enumeratorBytes;
    final long readerBytes;

    private CheckpointSizes(long checkpointId, long enumeratorBytes, long readerBytes) {
        this.checkpointId = checkpointId;
        this.enumeratorBytes = enumeratorBytes;
        this.readerBytes = readerBytes;
    }

    /** The newest completed checkpoint under {@code jobDirectory} (chk-N with a _metadata). */
    static Optional<Path> latest(Path jobDirectory) throws IOException {
        if (!Files.isDirectory(jobDirectory)) {
            return Optional.empty();
        }
        try (Stream<Path> dirs = Files.list(jobDirectory)) {
            return dirs.filter(d -> d.getFileName().toString().startsWith("chk-"))
                    .filter(d -> Files.exists(d.resolve("_metadata")))
                    .max(Comparator.comparingLong(CheckpointSizes::idOf));
        }
    }

    static long idOf(Path checkpointDirectory) {
        return Long.parseLong(checkpointDirectory.getFileName().toString().substring(4));
    }

    static CheckpointSizes read(Path checkpointDirectory) throws IOException {
        CheckpointMetadata metadata;
        try (InputStream in = Files.newInputStream(checkpointDirectory.resolve("_metadata"))) {
            metadata =
                    Checkpoints.loadCheckpointMetadata(
                            new DataInputStream(in),
                            CheckpointSizes.class.getClassLoader(),
                            checkpointDirectory.toUri().toString());
        }
        for (OperatorState operator : metadata.getOperatorStates()) {
            if (operator.getCoordinatorState() == null) {
                continue;
            }
            long readers = 0;
            for (OperatorSubtaskState subtask : operator.getStates()) {
                readers += subtask.getStateSize();
            }
            return new CheckpointSizes(
                    metadata.getCheckpointId(),
                    operator.getCoordinatorState().getStateSize(),
                    readers);
        }
        throw new IllegalStateException(
                "Checkpoint " + checkpointDirectory + " holds no operator with a coordinator");
    }
}
