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

import dev.sourcebackfill.source.spi.BackfillLog;
import dev.sourcebackfill.source.spi.LogReader;

import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.source.SourceEvent;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.kafka.source.reader.deserializer.KafkaRecordDeserializationSchema;
import org.apache.flink.metrics.groups.SourceReaderMetricGroup;
import org.apache.flink.metrics.testutils.MetricListener;
import org.apache.flink.runtime.metrics.groups.InternalSourceReaderMetricGroup;
import org.apache.flink.util.Collector;
import org.apache.flink.util.SimpleUserCodeClassLoader;
import org.apache.flink.util.UserCodeClassLoader;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Field;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Names of the live consumer that users configure and scrape outside the job (Kafka quotas and
 * broker-side monitoring by client id, the deserializer's metric group) are as they were before the
 * "upstream" -> "live" rename of issue 27.5.
 */
class KafkaLiveConsumerNamesTest {

    /** Registers a counter in the group its deserializer is opened with. */
    static final class CountingDeserializer implements KafkaRecordDeserializationSchema<String> {
        private static final long serialVersionUID = 1L;

        @Override
        public void open(DeserializationSchema.InitializationContext context) {
            context.getMetricGroup().counter("opened").inc();
        }

        @Override
        public void deserialize(ConsumerRecord<byte[], byte[]> record, Collector<String> out) {}

        @Override
        public TypeInformation<String> getProducedType() {
            return Types.STRING;
        }
    }

    private static BackfillLog<String> kafkaLog() {
        AtomicReference<BackfillLog<String>> log = new AtomicReference<>();
        KafkaBackfill.<String>sourceBuilder()
                .setBootstrapServers("127.0.0.1:1")
                .setTopics("orders")
                .setClientIdPrefix("job")
                .setDeserializer(new CountingDeserializer())
                .build(
                        l -> {
                            log.set(l);
                            return l;
                        });
        return log.get();
    }

    private static SourceReaderContext context(MetricListener metrics) {
        SourceReaderMetricGroup group =
                InternalSourceReaderMetricGroup.mock(metrics.getMetricGroup());
        return new SourceReaderContext() {
            @Override
            public SourceReaderMetricGroup metricGroup() {
                return group;
            }

            @Override
            public String getLocalHostName() {
                return "localhost";
            }

            @Override
            public int getIndexOfSubtask() {
                return 3;
            }

            @Override
            public void sendSplitRequest() {}

            @Override
            public void sendSourceEventToCoordinator(SourceEvent sourceEvent) {}

            @Override
            public UserCodeClassLoader getUserCodeClassLoader() {
                return SimpleUserCodeClassLoader.create(getClass().getClassLoader());
            }

            @Override
            public Configuration getConfiguration() {
                return new Configuration();
            }

            @Override
            public int currentParallelism() {
                return 4;
            }
        };
    }

    private static String clientIdOf(LogReader<?> reader) throws Exception {
        Field field = KafkaPartitionReader.class.getDeclaredField("consumer");
        field.setAccessible(true);
        KafkaConsumer<?, ?> consumer = (KafkaConsumer<?, ?>) field.get(reader);
        return consumer.metrics().keySet().stream()
                .map(name -> name.tags().get("client-id"))
                .filter(id -> id != null)
                .findFirst()
                .orElseThrow();
    }

    @Test
    void theLiveConsumersClientIdIsTheOneUsersSetQuotasAndAlertsOnBeforeTheRename()
            throws Exception {
        try (LogReader<?> live =
                kafkaLog().liveReading().createReader(context(new MetricListener()))) {
            // 671a385 (docs/kafka.md): client ids <prefix>-backfill-<subtask>,
            // <prefix>-upstream-<subtask>, <prefix>-enumerator
            assertThat(clientIdOf(live)).isEqualTo("job-upstream-3");
        }
    }

    @Test
    void theLiveDeserializersMetricsStayInTheGroupUsersScrapedBeforeTheRename() throws Exception {
        MetricListener metrics = new MetricListener();
        kafkaLog().liveReading().createDeserializer(context(metrics));
        // 671a385: the deserializer is opened with group deserializer.<role>, role "upstream"
        assertThat(metrics.getCounter("deserializer", "upstream", "opened"))
                .as("the live deserializer's metric under deserializer.upstream")
                .isPresent();
    }
}
