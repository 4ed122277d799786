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
package dev.sourcebackfill.source.spi;

import org.apache.flink.annotation.PublicEvolving;

import java.util.List;

/** Lists the splits of a log. Runs in the enumerator, never concurrently with itself. */
@PublicEvolving
public interface LogSplitDiscoverer extends AutoCloseable {

    /**
     * Lists every split the log has now, with its current positions. Splits already known are
     * ignored by the caller, so returning them again is fine.
     *
     * @param initial {@code true} for the discovery at the job's first start; splits found later
     *     may be marked {@link DiscoveredSplit#liveReadsWholeSplit()}
     */
    List<DiscoveredSplit> discoverSplits(boolean initial) throws Exception;

    /**
     * Whether later discoveries may still find new splits. A bounded source tells its readers that
     * no more splits come once this is {@code false}.
     */
    default boolean mayDiscoverMoreSplits() {
        return true;
    }

    @Override
    default void close() throws Exception {}
}
