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
package dev.sourcebackfill.source.metrics;

import org.apache.flink.annotation.Internal;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.runtime.metrics.groups.AbstractMetricGroup;

import javax.annotation.Nullable;

/** Closing a metric group whose owner (a split, a consumer) is gone. */
@Internal
public final class MetricGroups {

    private MetricGroups() {}

    /**
     * Unregisters the group's metrics: Flink's groups do when closed; a group that is not one of
     * Flink's (a test's unregistered group) has nothing registered.
     */
    public static void close(@Nullable MetricGroup group) {
        if (group instanceof AbstractMetricGroup) {
            ((AbstractMetricGroup<?>) group).close();
        }
    }
}
