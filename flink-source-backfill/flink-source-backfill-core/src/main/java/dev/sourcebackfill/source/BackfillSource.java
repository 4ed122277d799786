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
package dev.sourcebackfill.source;

import dev.sourcebackfill.source.enumerator.BackfillEnumeratorState;
import dev.sourcebackfill.source.enumerator.BackfillEnumeratorStateSerializer;
import dev.sourcebackfill.source.enumerator.BackfillSplitEnumerator;
import dev.sourcebackfill.source.reader.BackfillSourceReader;
import dev.sourcebackfill.source.spi.BackfillLog;
import dev.sourcebackfill.source.split.BackfillSplit;
import dev.sourcebackfill.source.split.BackfillSplitSerializer;

import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.annotation.VisibleForTesting;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.api.java.typeutils.ResultTypeQueryable;
import org.apache.flink.core.io.SimpleVersionedSerializer;

import java.time.Duration;
import java.util.Optional;

/**
 * A source over a partitioned log that first backfills each split's history, then continues on the
 * split's live reader, with no gap and no duplicate at the handover and exactly once across
 * failover and rescale. Build one with {@link #builder()}.
 *
 * <p>The enumerator owns the global per-split status; readers enter forward mode only after a
 * completed checkpoint whose own enumerator snapshot had every split {@code FINISHED}.
 *
 * @param <T> the type of records
 */
@PublicEvolving
public class BackfillSource<T>
        implements Source<T, BackfillSplit, BackfillEnumeratorState>, ResultTypeQueryable<T> {

    private static final long serialVersionUID = 1L;

    private final BackfillLog<T> log;
    private final BackfillSourceConfig<T> config;

    BackfillSource(BackfillLog<T> log, BackfillSourceConfig<T> config) {
        this.log = log;
        this.config = config;
    }

    public static <T> BackfillSourceBuilder<T> builder() {
        return new BackfillSourceBuilder<>();
    }

    @Override
    public Boundedness getBoundedness() {
        return config.boundedness();
    }

    @Override
    public SourceReader<T, BackfillSplit> createReader(SourceReaderContext readerContext)
            throws Exception {
        return BackfillSourceReader.create(log, config, readerContext);
    }

    @Override
    public SplitEnumerator<BackfillSplit, BackfillEnumeratorState> createEnumerator(
            SplitEnumeratorContext<BackfillSplit> enumContext) throws Exception {
        return newEnumerator(enumContext, null);
    }

    @Override
    public SplitEnumerator<BackfillSplit, BackfillEnumeratorState> restoreEnumerator(
            SplitEnumeratorContext<BackfillSplit> enumContext, BackfillEnumeratorState checkpoint)
            throws Exception {
        return newEnumerator(enumContext, checkpoint);
    }

    private BackfillSplitEnumerator newEnumerator(
            SplitEnumeratorContext<BackfillSplit> context, BackfillEnumeratorState restored)
            throws Exception {
        return new BackfillSplitEnumerator(
                context,
                log.createSplitDiscoverer(),
                config.boundedness() == Boundedness.BOUNDED,
                config.splitDiscoveryInterval(),
                config.backfillChunkSize(),
                config.controlFile()
                        .map(
                                file ->
                                        new BackfillSplitEnumerator.ControlSettings(
                                                file, config.controlInterval()))
                        .orElse(null),
                restored);
    }

    @Override
    public SimpleVersionedSerializer<BackfillSplit> getSplitSerializer() {
        return new BackfillSplitSerializer(log::kindOfSplitStoredWithoutKind);
    }

    @Override
    public SimpleVersionedSerializer<BackfillEnumeratorState> getEnumeratorCheckpointSerializer() {
        return new BackfillEnumeratorStateSerializer(log::kindOfSplitStoredWithoutKind);
    }

    @Override
    public TypeInformation<T> getProducedType() {
        return log.getProducedType();
    }

    public BackfillLog<T> getLog() {
        return log;
    }

    public Duration getSplitDiscoveryInterval() {
        return config.splitDiscoveryInterval();
    }

    public Duration getPollTimeout() {
        return config.pollTimeout();
    }

    /** The file through which the running backfill is steered, if it has one. */
    public Optional<String> getBackfillControlFile() {
        return config.controlFile();
    }

    @VisibleForTesting
    BackfillSourceConfig<T> config() {
        return config;
    }
}
