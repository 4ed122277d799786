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
package dev.sourcebackfill.source.kafka;

import org.apache.flink.annotation.Internal;

import org.apache.kafka.common.KafkaFuture;

import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** Waits for admin calls and says what failed, and where. */
@Internal
final class KafkaAdminCalls {

    private KafkaAdminCalls() {}

    static <V> V await(
            KafkaFuture<V> future, String what, String bootstrapServers, long timeoutMs) {
        try {
            return future.get(timeoutMs, TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            throw new KafkaSourceException(
                    String.format(
                            "Kafka at %s did not answer within %d ms (default.api.timeout.ms) when asked for %s: is the cluster reachable?",
                            bootstrapServers, timeoutMs, what),
                    e);
        } catch (ExecutionException e) {
            throw failed(e.getCause() != null ? e.getCause() : e, what, bootstrapServers);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new KafkaSourceException("Interrupted while asking Kafka for " + what, e);
        }
    }

    /**
     * The failure of a call that asked Kafka for {@code what}: a timeout says the cluster may be
     * unreachable, anything else gives Kafka's reason; both name the servers.
     */
    static KafkaSourceException failed(Throwable cause, String what, String bootstrapServers) {
        if (cause instanceof org.apache.kafka.common.errors.TimeoutException) {
            return new KafkaSourceException(
                    String.format(
                            "Kafka at %s did not answer in time when asked for %s: is the cluster reachable? (%s)",
                            bootstrapServers, what, cause.getMessage()),
                    cause);
        }
        return new KafkaSourceException(
                String.format(
                        "Kafka at %s failed to give %s: %s",
                        bootstrapServers, what, cause.getMessage()),
                cause);
    }
}
