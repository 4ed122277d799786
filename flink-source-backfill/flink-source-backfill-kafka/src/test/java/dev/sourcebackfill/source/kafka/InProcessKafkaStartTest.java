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

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The test broker starts when another process took one of its ports between the free-port probe and
 * the bind: the broker port, the controller port (whose bind failure Kafka answers by halting the
 * JVM) or the SASL port.
 */
class InProcessKafkaStartTest {

    @ParameterizedTest(name = "taken: {0}")
    @ValueSource(strings = {"broker", "controller", "sasl"})
    void aPortTakenBeforeTheBrokerBindsItIsReplacedByAnother(String which) throws Exception {
        int taken = List.of("broker", "controller", "sasl").indexOf(which);
        List<Integer> given = new ArrayList<>();
        try (ServerSocket occupied = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            int occupiedPort = occupied.getLocalPort();
            InProcessKafka.PortSource ports =
                    () -> {
                        int port;
                        if (given.size() == taken) {
                            port = occupiedPort;
                        } else {
                            try (ServerSocket free =
                                    new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
                                port = free.getLocalPort();
                            }
                        }
                        given.add(port);
                        return port;
                    };
            try (InProcessKafka kafka = InProcessKafka.start(ports)) {
                assertThat(given)
                        .as("ports asked for: three, then three more after the failed start")
                        .hasSize(6)
                        .containsOnlyOnce(occupiedPort);
                kafka.createTopic("started", 1, Map.of());
                assertThat(kafka.admin().listTopics().names().get()).contains("started");
                assertThat(kafka.bootstrapServers()).isEqualTo("127.0.0.1:" + given.get(3));
            }
        }
    }
}
