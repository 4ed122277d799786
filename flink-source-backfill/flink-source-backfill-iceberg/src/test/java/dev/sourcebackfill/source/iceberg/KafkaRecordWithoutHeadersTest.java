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
package dev.sourcebackfill.source.iceberg;

import org.apache.flink.api.common.serialization.SerializerConfigImpl;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.junit.jupiter.api.Test;

import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A table row's Kafka record without headers, whose headers are made when first asked for, must
 * look like the record a Kafka consumer gives (a {@link ConsumerRecord} with empty headers open to
 * additions) wherever the deserializer or Flink can see it.
 */
class KafkaRecordWithoutHeadersTest {

    private static final String TOPIC = "orders";

    /** One value for every record here: a record's string names its value's identity. */
    private static final byte[] VALUE = {1};

    private static ConsumerRecord<byte[], byte[]> withoutHeaders(long offset) {
        return TableRow.ofKafkaRecord(TOPIC, 1, offset, 1000L, null, VALUE, new Header[0])
                .kafkaRecord();
    }

    private static ConsumerRecord<byte[], byte[]> asAConsumerGivesIt(
            long offset, Header... headers) {
        return TableRow.kafkaRecord(
                TOPIC, 1, offset, 1000L, null, VALUE, new RecordHeaders(headers));
    }

    /**
     * Kafka's {@code ConsumerRecord.toString} reads its headers field, not {@code headers()}: the
     * read-only stand-in shows there (a log line or an error message with the record then says
     * "isReadOnly = true" and leaves out the headers a deserializer added).
     */
    @Test
    void aRecordWithoutHeadersPrintsAsAConsumersRecordDoes() {
        assertThat(withoutHeaders(5).toString()).isEqualTo(asAConsumerGivesIt(5).toString());
    }

    /** The same, once a deserializer added a header to the record's (lazily made) headers. */
    @Test
    void aHeaderAddedToARecordWithoutHeadersShowsInItsString() {
        ConsumerRecord<byte[], byte[]> record = withoutHeaders(5);
        record.headers().add("trace", new byte[] {7});
        assertThat(record.toString())
                .isEqualTo(
                        asAConsumerGivesIt(5, new RecordHeader("trace", new byte[] {7}))
                                .toString());
    }

    /**
     * The record made in one thread (the fetcher's) and asked for its headers in another (the
     * task's), as the source hands it over: the headers are the record's own, open to additions.
     */
    @Test
    void headersMadeInAnotherThreadThanTheRecordAreItsOwnAndWritable() throws Exception {
        ConsumerRecord<byte[], byte[]> record =
                CompletableFuture.supplyAsync(() -> withoutHeaders(6)).get();
        record.headers().add("a", new byte[] {1});
        assertThat(record.headers()).hasSize(1);
        assertThat(record.headers()).isSameAs(record.headers());
        assertThat(withoutHeaders(7).headers()).isEmpty();
    }

    /**
     * A schema that hands the Kafka record on as its value (a generic type, Kryo): the copy Flink
     * makes keeps the headers added to it and stays open to additions.
     */
    @Test
    void aRecordWithoutHeadersSurvivesFlinksGenericSerializer() throws Exception {
        @SuppressWarnings({"unchecked", "rawtypes"})
        TypeSerializer<ConsumerRecord<byte[], byte[]>> serializer =
                (TypeSerializer)
                        TypeInformation.of(ConsumerRecord.class)
                                .createSerializer(new SerializerConfigImpl());
        ConsumerRecord<byte[], byte[]> record = withoutHeaders(8);
        record.headers().add("trace", new byte[] {7});

        ConsumerRecord<byte[], byte[]> copy = serializer.copy(record);
        assertThat(copy.offset()).isEqualTo(8);
        assertThat(copy.headers().lastHeader("trace").value()).containsExactly(7);
        copy.headers().add("more", null);
        assertThat(copy.headers()).hasSize(2);

        DataOutputSerializer out = new DataOutputSerializer(256);
        serializer.serialize(withoutHeaders(9), out);
        ConsumerRecord<byte[], byte[]> read =
                serializer.deserialize(new DataInputDeserializer(out.getCopyOfBuffer()));
        assertThat(read.offset()).isEqualTo(9);
        assertThat(read.headers()).isEmpty();
        read.headers().add("x", null);
        assertThat(read.headers()).hasSize(1);
    }
}
