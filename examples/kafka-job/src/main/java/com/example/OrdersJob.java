package com.example;

import dev.sourcebackfill.source.BackfillSource;
import dev.sourcebackfill.source.kafka.KafkaBackfill;

import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.serialization.SimpleStringSchema;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

public class OrdersJob {
    public static void main(String[] args) throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.enableCheckpointing(10_000); // forward mode is confirmed by completed checkpoints

        BackfillSource<String> source =
                KafkaBackfill.<String>sourceBuilder()
                        .setBootstrapServers("broker-1:9092")
                        .setTopics("orders")
                        .setValueOnlyDeserializer(new SimpleStringSchema())
                        .setStartingOffsets(OffsetsInitializer.earliest())
                        .build();
        env.fromSource(source, WatermarkStrategy.noWatermarks(), "orders")
                .uid("orders")
                .print();
        env.execute("orders");
    }
}
