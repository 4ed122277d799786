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

import org.apache.flink.annotation.Internal;
import org.apache.flink.core.fs.FileStatus;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/** The files of an archive, by split, each split's in offset order. */
@Internal
final class ArchiveListing {

    /** One file of the archive. */
    record Entry(Path path, ArchivedFile file) {
        long startOffset() {
            return file.startOffset();
        }
    }

    private ArchiveListing() {}

    /**
     * Lists every file under {@code root} that {@code layout} maps, grouped by split id and sorted
     * by start offset.
     *
     * @throws IOException if the root cannot be listed, or two files of a partition claim the same
     *     start offset
     */
    static Map<String, List<Entry>> list(Path root, ArchiveLayout layout) throws IOException {
        FileSystem fs = root.getFileSystem();
        // the file system lists children by their full paths: a relative root is made full first
        root = root.makeQualified(fs);
        if (!fs.exists(root)) {
            throw new IOException("The archive's root " + root + " does not exist");
        }
        Map<String, List<Entry>> bySplit = new TreeMap<>();
        String prefix = root.toUri().getPath();
        prefix = prefix.endsWith("/") ? prefix : prefix + "/";
        collect(fs, root, prefix, layout, bySplit);
        for (Map.Entry<String, List<Entry>> split : bySplit.entrySet()) {
            List<Entry> files = split.getValue();
            files.sort(Comparator.comparingLong(Entry::startOffset));
            for (int i = 1; i < files.size(); i++) {
                if (files.get(i).startOffset() == files.get(i - 1).startOffset()) {
                    throw new IOException(
                            String.format(
                                    "Archive files %s and %s of partition %s both start at offset %d",
                                    files.get(i - 1).path(),
                                    files.get(i).path(),
                                    split.getKey(),
                                    files.get(i).startOffset()));
                }
            }
        }
        return bySplit;
    }

    private static void collect(
            FileSystem fs,
            Path dir,
            String rootPrefix,
            ArchiveLayout layout,
            Map<String, List<Entry>> bySplit)
            throws IOException {
        FileStatus[] children = fs.listStatus(dir);
        if (children == null) {
            return;
        }
        for (FileStatus child : children) {
            if (child.isDir()) {
                collect(fs, child.getPath(), rootPrefix, layout, bySplit);
                continue;
            }
            String path = child.getPath().toUri().getPath();
            if (!path.startsWith(rootPrefix)) {
                throw new IOException(
                        String.format(
                                "Archive file %s is listed under %s but its path does not start with the root's path %s",
                                child.getPath(), dir, rootPrefix));
            }
            Optional<ArchivedFile> file = layout.parse(path.substring(rootPrefix.length()));
            if (file.isPresent()) {
                bySplit.computeIfAbsent(file.get().splitId(), k -> new ArrayList<>())
                        .add(new Entry(child.getPath(), file.get()));
            }
        }
    }
}
