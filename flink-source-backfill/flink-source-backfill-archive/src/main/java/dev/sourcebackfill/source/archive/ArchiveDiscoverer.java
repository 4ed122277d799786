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

import dev.sourcebackfill.source.kafka.HistoryBeforeKafkaDiscoverer;
import dev.sourcebackfill.source.spi.DiscoveredSplit;
import dev.sourcebackfill.source.spi.LogSplitDiscoverer;

import org.apache.flink.annotation.Internal;
import org.apache.flink.core.fs.Path;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The live log's partitions, each backfilled from its archive where it has one: from the archive's
 * first offset, up to the live partition's end at discovery (the handover happens when the archive
 * ends, if that is earlier). A partition with no archive starts where the live log's starting
 * offsets say. Partitions found after the first start come from the live log alone.
 */
@Internal
final class ArchiveDiscoverer extends HistoryBeforeKafkaDiscoverer {

    private static final Logger LOG = LoggerFactory.getLogger(ArchiveDiscoverer.class);

    private final Path root;
    private final ArchiveLayout layout;

    /** The archive's files by split, as the first discovery listed them; cut into chunks. */
    private Map<String, List<ArchiveListing.Entry>> listed = Map.of();

    ArchiveDiscoverer(LogSplitDiscoverer topics, Path root, ArchiveLayout layout) {
        super(topics);
        this.root = root;
        this.layout = layout;
    }

    @Override
    protected String historyName() {
        return "The archive at " + root;
    }

    @Override
    protected List<DiscoveredSplit> discoverWithHistory() throws Exception {
        List<DiscoveredSplit> liveSplits = liveTopics.discoverSplits(true);
        Map<String, List<ArchiveListing.Entry>> archive = ArchiveListing.list(root, layout);
        listed = archive;
        Set<String> liveIds = new HashSet<>();
        Set<String> topicNames = new HashSet<>();
        for (DiscoveredSplit split : liveSplits) {
            liveIds.add(split.splitId());
            topicNames.add(topicOf(split.splitId()));
        }
        for (Map.Entry<String, List<ArchiveListing.Entry>> archived : archive.entrySet()) {
            ArchivedFile first = archived.getValue().get(0).file();
            if (topicNames.contains(first.topic()) && !liveIds.contains(archived.getKey())) {
                throw noLiveReader(archived.getKey(), "from " + archived.getValue().get(0).path());
            }
        }
        List<DiscoveredSplit> splits = new ArrayList<>(liveSplits.size());
        for (DiscoveredSplit split : liveSplits) {
            List<ArchiveListing.Entry> files = archive.get(split.splitId());
            if (files == null || split.liveReadsWholeSplit()) {
                LOG.info(
                        "Partition {} has no archive under {}: it starts at offset {} of the topic",
                        split.splitId(),
                        root,
                        split.backfillStartOffset());
                splits.add(split);
                continue;
            }
            long first = files.get(0).startOffset();
            if (first > split.liveEndOffset()) {
                throw anotherIncarnation(
                        split.splitId(),
                        first,
                        split.liveEndOffset(),
                        "its first file " + files.get(0).path());
            }
            DiscoveredSplit archived =
                    DiscoveredSplit.backfilled(split.splitId(), first, split.liveEndOffset());
            if (split.stoppingOffset().isPresent()) {
                archived = archived.withStoppingOffset(split.stoppingOffset().getAsLong());
            }
            LOG.info(
                    "Partition {}: {} archive files from offset {}; the topic ends at {} now",
                    split.splitId(),
                    files.size(),
                    first,
                    split.liveEndOffset());
            splits.add(archived);
        }
        return splits;
    }

    /**
     * Cuts a partition's archive into runs of whole files of about {@code chunkSize} offsets each
     * (a file spans the offsets up to the next file's start): each cut is a file's start offset.
     * The last file, whose end the listing does not tell, stays with the partition's own split.
     */
    @Override
    public List<Long> cutHistory(DiscoveredSplit split, long from, long to, long chunkSize) {
        List<ArchiveListing.Entry> files = listed.getOrDefault(split.splitId(), List.of());
        List<Long> cuts = new ArrayList<>();
        long runStart = from;
        for (int i = 1; i < files.size(); i++) {
            long fileStart = files.get(i).startOffset();
            if (fileStart <= from) {
                continue;
            }
            if (fileStart >= to) {
                break;
            }
            if (fileStart - runStart >= chunkSize) {
                cuts.add(fileStart);
                runStart = fileStart;
            }
        }
        return cuts;
    }

    private static String topicOf(String splitId) {
        return splitId.substring(0, splitId.lastIndexOf('-'));
    }
}
