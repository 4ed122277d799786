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
package dev.sourcebackfill.source.testframe;

import dev.sourcebackfill.source.BackfillSource;
import dev.sourcebackfill.source.BackfillSourceBuilder;

import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.connector.testframe.external.ExternalSystemSplitDataWriter;
import org.apache.flink.connector.testframe.external.source.DataStreamSourceExternalContext;
import org.apache.flink.connector.testframe.external.source.TestingSourceSettings;

import java.net.URL;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * The suite's external context for {@link SharedMemoryLog}. Every write puts the first half of its
 * records into the split at once and the second half only once a reader has taken the split, so
 * that each split of the suite's data goes through backfill and then live.
 */
final class SharedMemoryLogContext implements DataStreamSourceExternalContext<String> {

    private final String logId = UUID.randomUUID().toString();
    private final ExecutorService lateWriter = Executors.newSingleThreadExecutor();
    private int splits;

    @Override
    public Source<String, ?, ?> createSource(TestingSourceSettings settings) {
        boolean bounded = settings.getBoundedness() == Boundedness.BOUNDED;
        BackfillSourceBuilder<String> builder =
                BackfillSource.<String>builder()
                        .setLog(new SharedMemoryLog(logId, bounded))
                        .setSplitDiscoveryInterval(Duration.ofMillis(100))
                        .setPollTimeout(Duration.ofMillis(10));
        if (bounded) {
            builder.setBounded();
        }
        return builder.build();
    }

    @Override
    public ExternalSystemSplitDataWriter<String> createSourceSplitDataWriter(
            TestingSourceSettings settings) {
        String splitId = "split-" + splits++;
        SharedMemoryLog.Split split = new SharedMemoryLog.Split();
        SharedMemoryLog.splitsOf(logId).put(splitId, split);
        return new ExternalSystemSplitDataWriter<>() {
            @Override
            public void writeRecords(List<String> records) {
                int half = records.size() / 2;
                int attachedBefore = split.readersAttached.get();
                synchronized (split) {
                    split.plannedEnd += records.size();
                }
                split.append(records.subList(0, half));
                List<String> rest = new ArrayList<>(records.subList(half, records.size()));
                lateWriter.submit(
                        () -> {
                            // live data: written after a reader took the split (or after 5 s)
                            long deadline = System.currentTimeMillis() + 5_000;
                            while (split.readersAttached.get() == attachedBefore
                                    && attachedBefore == 0
                                    && System.currentTimeMillis() < deadline) {
                                Thread.sleep(5);
                            }
                            Thread.sleep(50);
                            split.append(rest);
                            return null;
                        });
            }

            @Override
            public void close() {}
        };
    }

    @Override
    public List<String> generateTestData(
            TestingSourceSettings settings, int splitIndex, long seed) {
        Random random = new Random(seed);
        int count = 50 + random.nextInt(200);
        List<String> records = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            records.add(
                    "split-" + splitIndex + "-" + seed + "-" + i + "-" + random.nextInt(1_000_000));
        }
        return records;
    }

    @Override
    public TypeInformation<String> getProducedType() {
        return TypeInformation.of(String.class);
    }

    @Override
    public List<URL> getConnectorJarPaths() {
        return List.of();
    }

    @Override
    public void close() throws Exception {
        lateWriter.shutdownNow();
        lateWriter.awaitTermination(5, TimeUnit.SECONDS);
        SharedMemoryLog.drop(logId);
    }
}
