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

import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.api.common.serialization.SimpleStringSchema;
import org.apache.flink.core.fs.Path;
import org.apache.flink.metrics.SimpleCounter;
import org.apache.flink.metrics.groups.UnregisteredMetricsGroup;
import org.apache.flink.util.SimpleUserCodeClassLoader;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.GZIPOutputStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The archive's backfill reader on files of the local file system. */
class ArchiveReaderTest {

    @TempDir java.nio.file.Path root;

    private final List<String> read = new ArrayList<>();
    private final SimpleCounter skipped = new SimpleCounter();
    private final SimpleCounter listings = new SimpleCounter();
    private boolean skipUnreadable;
    private ArchivedRecordMapper<String> mapper = ArchivedRecordMapper.identity();

    /** Writes {@code topic+p+start.json} (or .json.gz) holding "p|offset" lines for offsets. */
    private java.nio.file.Path file(String topic, int p, long start, boolean gzip, long... offsets)
            throws IOException {
        java.nio.file.Path dir = root.resolve(topic).resolve("partition=" + p);
        Files.createDirectories(dir);
        java.nio.file.Path f =
                dir.resolve(
                        String.format("%s+%d+%010d.json%s", topic, p, start, gzip ? ".gz" : ""));
        StringBuilder lines = new StringBuilder();
        for (long o : offsets) {
            lines.append(p).append('|').append(o).append('\n');
        }
        try (OutputStream out =
                gzip ? new GZIPOutputStream(Files.newOutputStream(f)) : Files.newOutputStream(f)) {
            out.write(lines.toString().getBytes(StandardCharsets.UTF_8));
        }
        return f;
    }

    /** Writes {@code topic+p+start.<ext>} holding {@code bytes} as they are. */
    private java.nio.file.Path rawFile(String topic, int p, long start, String ext, byte[] bytes)
            throws IOException {
        java.nio.file.Path dir = root.resolve(topic).resolve("partition=" + p);
        Files.createDirectories(dir);
        return Files.write(
                dir.resolve(String.format("%s+%d+%010d.%s", topic, p, start, ext)), bytes);
    }

    /** Polls every split until {@code split}'s archive ended, keeping what {@code keep} reads. */
    private void pollUntilEnd(ArchiveReader<String, String> reader, String split, String keep)
            throws Exception {
        for (int i = 0; i < 10_000 && !reader.isEndOfSplit(split); i++) {
            reader.poll(
                    Duration.ofMillis(1),
                    (s, o, t, v) -> {
                        if (s.equals(keep)) {
                            read.add(o + ":" + v);
                        }
                    });
        }
    }

    private static long[] range(long from, long to) {
        long[] r = new long[(int) (to - from)];
        for (int i = 0; i < r.length; i++) {
            r[i] = from + i;
        }
        return r;
    }

    private ArchiveReader<String, String> reader(boolean offsetFromRecord) throws Exception {
        return reader(ArchiveFormat.lines(new SimpleStringSchema()), offsetFromRecord);
    }

    private ArchiveReader<String, String> reader(
            ArchiveFormat<String> format, boolean offsetFromRecord) throws Exception {
        format.open(
                ArchiveFormat.context(
                        new UnregisteredMetricsGroup(),
                        SimpleUserCodeClassLoader.create(getClass().getClassLoader())));
        return new ArchiveReader<>(
                new Path(root.toUri()),
                ArchiveLayout.kafkaConnect(),
                format::open,
                offsetFromRecord ? v -> Long.parseLong(v.substring(v.indexOf('|') + 1)) : null,
                7,
                skipUnreadable,
                (value, file, offset) -> mapper.map(value, file.file(), offset),
                skipped,
                listings);
    }

    /** Polls until the split's archive ended; returns what was read, as "offset:value". */
    private List<String> readToEnd(ArchiveReader<String, String> reader, String split)
            throws Exception {
        for (int i = 0; i < 10_000 && !reader.isEndOfSplit(split); i++) {
            reader.poll(Duration.ofMillis(1), (s, o, t, v) -> read.add(o + ":" + v));
        }
        assertThat(reader.isEndOfSplit(split)).as("the archive of %s ended", split).isTrue();
        return read;
    }

    @Test
    void readsAPartitionsFilesInOffsetOrderFromItsStartAndEndsAtTheLastFile() throws Exception {
        file("t", 0, 10, false, range(10, 20));
        file("t", 0, 0, false, range(0, 10));
        file("t", 0, 20, true, range(20, 25)); // gzip, as the sinks can write
        file("t", 1, 0, false, range(0, 3));
        ArchiveReader<String, String> reader = reader(false);
        reader.addSplit("t-0", 0);

        assertThat(readToEnd(reader, "t-0")).hasSize(25);
        for (int o = 0; o < 25; o++) {
            assertThat(read.get(o)).isEqualTo(o + ":0|" + o);
        }
        assertThat(reader.position("t-0")).isEqualTo(25);
        assertThat(reader.earliestOffset("t-0")).isZero();
        reader.close();
    }

    @Test
    void aRestoredSplitGoesOnAtItsNextOffsetInsideAFile() throws Exception {
        file("t", 0, 0, false, range(0, 10));
        file("t", 0, 10, false, range(10, 20));
        ArchiveReader<String, String> reader = reader(false);
        reader.addSplit("t-0", 13);
        assertThat(readToEnd(reader, "t-0")).first().isEqualTo("13:0|13");
        assertThat(read).hasSize(7).last().isEqualTo("19:0|19");
        reader.close();
    }

    @Test
    void offsetsReadFromTheRecordMayHaveHolesAndARestoreSkipsToTheNextOne() throws Exception {
        file("t", 0, 0, false, 0, 1, 4, 7);
        file("t", 0, 9, false, 9, 12);
        ArchiveReader<String, String> reader = reader(true);
        reader.addSplit("t-0", 5);
        assertThat(readToEnd(reader, "t-0")).containsExactly("7:0|7", "9:0|9", "12:0|12");
        assertThat(reader.position("t-0")).isEqualTo(13);
        reader.close();
    }

    @Test
    void countedOffsetsFailNamingBothFilesWhenAFileDoesNotContinueTheOneBefore() throws Exception {
        java.nio.file.Path first = file("t", 0, 0, false, range(0, 10));
        java.nio.file.Path second = file("t", 0, 12, false, range(12, 20));
        ArchiveReader<String, String> reader = reader(false);
        reader.addSplit("t-0", 0);
        assertThatThrownBy(() -> readToEnd(reader, "t-0"))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("t-0")
                .hasMessageContaining(first.getFileName().toString())
                .hasMessageContaining(second.getFileName().toString())
                .hasMessageContaining("ends before offset 10")
                .hasMessageContaining("starts at 12");
        reader.close();
    }

    @Test
    void aRecordThatCannotBeReadFailsNamingTheFileAndTheRecord() throws Exception {
        java.nio.file.Path f = file("t", 0, 0, false, range(0, 5));
        Files.writeString(f, "0|0\n0|1\npoison\n0|3\n");
        DeserializationSchema<String> failing =
                new SimpleStringSchema() {
                    @Override
                    public String deserialize(byte[] message) {
                        String s = super.deserialize(message);
                        if (s.equals("poison")) {
                            throw new IllegalArgumentException("not a record: " + s);
                        }
                        return s;
                    }
                };
        ArchiveReader<String, String> reader = reader(ArchiveFormat.lines(failing), false);
        reader.addSplit("t-0", 0);
        assertThatThrownBy(() -> readToEnd(reader, "t-0"))
                .isInstanceOf(IOException.class)
                .hasMessageContaining(f.getFileName().toString())
                .hasMessageContaining("record 3")
                .hasMessageContaining("not a record: poison");
        reader.close();
    }

    @Test
    void aSourceToldToSkipUnreadableLinesSkipsAndCountsThemAndKeepsTheirOffsets() throws Exception {
        java.nio.file.Path f = file("t", 0, 0, false, range(0, 5));
        Files.writeString(f, "0|0\n0|1\npoison\n0|3\n");
        skipUnreadable = true;
        ArchiveReader<String, String> reader =
                reader(ArchiveFormat.lines(new PoisonRejecting()), false);
        reader.addSplit("t-0", 0);
        assertThat(readToEnd(reader, "t-0")).containsExactly("0:0|0", "1:0|1", "3:0|3");
        assertThat(skipped.getCount()).isEqualTo(1);
        reader.close();
    }

    @Test
    void aLinesFormatWithCountedOffsetsHandsOnEachLinesBytesWithItsFileAndTheValuesAreMadeLater()
            throws Exception {
        java.nio.file.Path f = file("t", 0, 10, false, range(10, 14));
        Files.writeString(f, "0|10\npoison\n\n0|13\n");
        ArchiveFormat<String> format = ArchiveFormat.lines(new PoisonRejecting());
        ArchiveReader<byte[], ArchivedLine> lines =
                new ArchiveReader<>(
                        new Path(root.toUri()),
                        ArchiveLayout.kafkaConnect(),
                        format::openLines,
                        null,
                        7,
                        false,
                        (line, file, offset) -> new ArchivedLine(line, file.file(), file.path()),
                        null,
                        listings);
        lines.addSplit("t-0", 10);
        List<String> delivered = new ArrayList<>();
        for (int i = 0; i < 10_000 && !lines.isEndOfSplit("t-0"); i++) {
            lines.poll(
                    Duration.ofMillis(1),
                    (s, o, t, line) ->
                            delivered.add(
                                    o
                                            + ":"
                                            + new String(line.bytes(), StandardCharsets.UTF_8)
                                            + "@"
                                            + line.file()));
        }
        // the unreadable line is the deserializer's to reject, in the task thread: the reader
        // hands on every line as it is, an empty one too
        assertThat(delivered)
                .containsExactly(
                        "10:0|10@t-0@10", "11:poison@t-0@10", "12:@t-0@10", "13:0|13@t-0@10");
        assertThat(lines.position("t-0")).isEqualTo(14);
        lines.close();
    }

    @Test
    void offsetsReadFromTheRecordMustIncrease() throws Exception {
        java.nio.file.Path f = file("t", 0, 0, false, 0, 2, 2);
        ArchiveReader<String, String> reader = reader(true);
        reader.addSplit("t-0", 0);
        assertThatThrownBy(() -> readToEnd(reader, "t-0"))
                .isInstanceOf(IOException.class)
                .hasMessageContaining(f.getFileName().toString())
                .hasMessageContaining("record 3 holds offset 2");
        reader.close();
    }

    @Test
    void aFileThatAppearsBeforeTheArchiveEndedIsReadFirst() throws Exception {
        file("t", 0, 0, false, range(0, 10));
        ArchiveReader<String, String> reader = reader(false);
        reader.addSplit("t-0", 0);
        while (read.size() < 10) {
            reader.poll(Duration.ofMillis(1), (s, o, t, v) -> read.add(o + ":" + v));
        }
        // the sink writes the next file before the reader looked for one
        file("t", 0, 10, false, range(10, 15));
        assertThat(readToEnd(reader, "t-0")).hasSize(15).last().isEqualTo("14:0|14");
        reader.close();
    }

    @Test
    void aPartitionWithoutArchiveEndsAtOnceAtItsStartOffset() throws Exception {
        file("t", 0, 0, false, range(0, 3));
        ArchiveReader<String, String> reader = reader(false);
        reader.addSplit("t-5", 42);
        assertThat(readToEnd(reader, "t-5")).isEmpty();
        assertThat(reader.position("t-5")).isEqualTo(42);
        reader.close();
    }

    @Test
    void aSplitWhoseNextOffsetIsBelowTheArchiveFailsNamingTheMissingOffsets() throws Exception {
        file("t", 0, 100, false, range(100, 110));
        ArchiveReader<String, String> reader = reader(false);
        assertThatThrownBy(() -> reader.addSplit("t-0", 90))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("t-0")
                .hasMessageContaining("offsets 90..99 are not in the archive");
        reader.close();
    }

    @Test
    void aFreshListingThatLostFilesAlreadyReadSkipsNoFile() throws Exception {
        for (boolean offsetFromRecord : new boolean[] {true, false}) {
            read.clear();
            String topic = "shift" + offsetFromRecord;
            file(topic, 0, 0, false, range(0, 3));
            java.nio.file.Path oldest = file(topic, 1, 0, false, range(0, 10));
            for (long start = 10; start < 40; start += 10) {
                file(topic, 1, start, false, range(start, start + 10));
            }
            try (ArchiveReader<String, String> reader = reader(offsetFromRecord)) {
                reader.addSplit(topic + "-0", 0);
                reader.addSplit(topic + "-1", 0);
                // split 1 reads into its second file (3 records per split and poll)
                while (read.size() < 13) {
                    reader.poll(
                            Duration.ofMillis(1),
                            (s, o, t, v) -> {
                                if (s.equals(topic + "-1")) {
                                    read.add(o + ":" + v);
                                }
                            });
                }
                // retention deletes the file split 1 has read; split 0's end lists afresh
                Files.delete(oldest);
                assertThat(reader.isEndOfSplit(topic + "-0")).isTrue();
                pollUntilEnd(reader, topic + "-1", topic + "-1");
            }
            assertThat(read).as("offsets from the record: %s", offsetFromRecord).hasSize(40);
            for (int o = 0; o < 40; o++) {
                assertThat(read.get(o)).isEqualTo(o + ":1|" + o);
            }
        }
    }

    @Test
    void aLoneCarriageReturnStaysInTheRecordAndCrLfEndsALine() throws Exception {
        rawFile("t", 0, 0, "bin", "a\rb\nc\r\nd".getBytes(StandardCharsets.UTF_8));
        try (ArchiveReader<String, String> reader = reader(false)) {
            reader.addSplit("t-0", 0);
            pollUntilEnd(reader, "t-0", "t-0");
            assertThat(read).containsExactly("0:a\rb", "1:c", "2:d");
            assertThat(reader.position("t-0"))
                    .as("the archive ends after offset 2: the topic takes over at 3")
                    .isEqualTo(3);
        }
    }

    @Test
    void theSchemaGetsEachLinesBytesAsTheFileHoldsThem() throws Exception {
        rawFile("t", 0, 0, "txt", "café\n".getBytes(StandardCharsets.ISO_8859_1));
        try (ArchiveReader<String, String> reader =
                reader(
                        ArchiveFormat.lines(new SimpleStringSchema(StandardCharsets.ISO_8859_1)),
                        false)) {
            reader.addSplit("t-0", 0);
            pollUntilEnd(reader, "t-0", "t-0");
            assertThat(read).containsExactly("0:café");
        }
    }

    @Test
    void aFileThatCannotBeOpenedFailsNamingIt() throws Exception {
        file("t", 0, 0, false, range(0, 2));
        // the next file: a failed upload left an empty object, no gzip header
        rawFile("t", 0, 2, "json.gz", new byte[0]);
        try (ArchiveReader<String, String> reader = reader(false)) {
            reader.addSplit("t-0", 0);
            assertThatThrownBy(() -> pollUntilEnd(reader, "t-0", "t-0"))
                    .hasMessageContaining("t+0+0000000002.json.gz")
                    .hasMessageContaining("split t-0");
        }
    }

    @Test
    void aRelativeRootListsItsFiles() throws Exception {
        java.nio.file.Path relative =
                java.nio.file.Path.of("").toAbsolutePath().relativize(root.toAbsolutePath());
        file("t", 0, 0, false, range(0, 3));
        assertThat(ArchiveListing.list(new Path(relative.toString()), ArchiveLayout.kafkaConnect()))
                .containsKey("t-0");
    }

    @Test
    void theRecordMapperSeesEachRecordsFileAndOffset() throws Exception {
        file("t", 3, 0, false, range(0, 2));
        file("t", 3, 2, false, range(2, 3));
        mapper = (v, f, o) -> f.topic() + "/" + f.partition() + "/" + f.startOffset() + "/" + o;
        try (ArchiveReader<String, String> reader = reader(false)) {
            reader.addSplit("t-3", 0);
            pollUntilEnd(reader, "t-3", "t-3");
        }
        assertThat(read).containsExactly("0:t/3/0/0", "1:t/3/0/1", "2:t/3/2/2");
    }

    @Test
    void theKafkaConnectLayoutMapsOnlyItsOwnFileNames() {
        ArchiveLayout layout = ArchiveLayout.kafkaConnect();
        assertThat(layout.parse("orders/partition=3/orders+3+0000001200.json"))
                .contains(new ArchivedFile("orders", 3, 1200));
        assertThat(layout.parse("my.topic-x/partition=0/my.topic-x+0+0000000000.json.gz"))
                .contains(new ArchivedFile("my.topic-x", 0, 0));
        // the HDFS sink's committed files name start and end offset
        assertThat(layout.parse("orders/partition=3/orders+3+0000001200+0000001299.avro"))
                .contains(new ArchivedFile("orders", 3, 1200));
        assertThat(layout.parse("orders/partition=3/orders+4+0000001200.json")).isEmpty();
        assertThat(layout.parse("orders/partition=3/other+3+0000001200.json")).isEmpty();
        assertThat(layout.parse("orders/partition=3/_SUCCESS")).isEmpty();
        assertThat(layout.parse("orders/orders+3+0000001200.json")).isEmpty();
    }

    @Test
    void aStreamFormatReadsRecordsToo() throws Exception {
        file("t", 0, 0, false, range(0, 4));
        ArchiveReader<String, String> reader =
                reader(
                        ArchiveFormat.of(
                                new org.apache.flink.connector.file.src.reader
                                        .TextLineInputFormat()),
                        false);
        reader.addSplit("t-0", 0);
        assertThat(readToEnd(reader, "t-0")).containsExactly("0:0|0", "1:0|1", "2:0|2", "3:0|3");
        reader.close();
    }

    @Test
    void aPausedSplitReadsNothingAndGoesOnInsideItsOpenFileWhenResumed() throws Exception {
        file("t", 0, 0, false, range(0, 20));
        file("t", 1, 0, false, range(0, 20));
        ArchiveReader<String, String> reader = reader(false);
        reader.addSplit("t-0", 0);
        reader.addSplit("t-1", 0);
        reader.poll(Duration.ofMillis(1), (s, o, t, v) -> read.add(s + "@" + o));
        // 7 records per poll, shared: 3 of each split
        assertThat(read).containsExactly("t-0@0", "t-0@1", "t-0@2", "t-1@0", "t-1@1", "t-1@2");

        read.clear();
        reader.pauseOrResumeSplits(List.of("t-0"), List.of());
        reader.poll(Duration.ofMillis(1), (s, o, t, v) -> read.add(s + "@" + o));
        // the running split gets the whole poll
        assertThat(read).hasSize(7).allMatch(r -> r.startsWith("t-1@"));
        assertThat(reader.position("t-0")).isEqualTo(3);

        read.clear();
        reader.pauseOrResumeSplits(List.of(), List.of("t-0"));
        reader.poll(Duration.ofMillis(1), (s, o, t, v) -> read.add(s + "@" + o));
        assertThat(read).startsWith("t-0@3", "t-0@4", "t-0@5");
        reader.close();
    }

    // ------------------------------------------------------------------ found in review

    /**
     * A split given to the reader after retention deleted a file of it and a new file appeared
     * reads from the archive as it is now, not as the reader listed it for its first split.
     */
    @Test
    void aSplitAddedLaterReadsTheArchiveAsItIsThenNotAsItWasListedBefore() throws Exception {
        file("t", 0, 0, false, range(0, 3));
        java.nio.file.Path deleted = file("t", 1, 0, false, range(0, 3));
        ArchiveReader<String, String> reader = reader(false);
        reader.addSplit("t-0", 0);
        readToEnd(reader, "t-0");

        Files.delete(deleted); // retention
        file("t", 1, 3, false, range(3, 6));
        read.clear();
        reader.addSplit("t-1", 3);
        assertThat(readToEnd(reader, "t-1")).containsExactly("3:1|3", "4:1|4", "5:1|5");
        reader.close();
    }

    /**
     * Splits that need a listing between two polls share one: added together, or reaching the end
     * of their files together (the archive is listed once, not once per split).
     */
    @Test
    void splitsShareOneListingBetweenTwoPolls() throws Exception {
        for (int p = 0; p < 4; p++) {
            file("t", p, 0, false, range(0, 1));
        }
        ArchiveReader<String, String> reader = reader(false);
        for (int p = 0; p < 4; p++) {
            reader.addSplit("t-" + p, 0);
        }
        assertThat(listings.getCount()).as("listings to add 4 splits").isEqualTo(1);

        // the first poll reads each split's record, the second finds the end of each file
        for (int i = 0; i < 2; i++) {
            reader.poll(Duration.ofMillis(1), (s, o, t, v) -> read.add(s + "@" + o));
        }
        assertThat(read).containsExactly("t-0@0", "t-1@0", "t-2@0", "t-3@0");
        for (int p = 0; p < 4; p++) {
            assertThat(reader.isEndOfSplit("t-" + p)).isTrue();
        }
        assertThat(listings.getCount())
                .as("listings after the polls and 4 splits at the end of their files")
                .isEqualTo(2);
        reader.close();
    }

    /**
     * A gzip file's decompressed stream has no known length: a stream format that stops at the
     * split's end byte reads the whole file, not as many bytes as the compressed file has.
     */
    @Test
    void aStreamFormatThatStopsAtTheSplitEndReadsAWholeGzipFile() throws Exception {
        file("t", 0, 0, true, range(0, 500));
        ArchiveReader<String, String> reader =
                reader(ArchiveFormat.of(new LinesUntilSplitEnd()), false);
        reader.addSplit("t-0", 0);
        assertThat(readToEnd(reader, "t-0")).hasSize(500).endsWith("499:0|499");
        reader.close();
    }

    /** Lines, read until the stream's position passes the split's end, as a splittable format. */
    private static final class LinesUntilSplitEnd
            implements org.apache.flink.connector.file.src.reader.StreamFormat<String> {
        @Override
        public Reader<String> createReader(
                org.apache.flink.configuration.Configuration config,
                org.apache.flink.core.fs.FSDataInputStream stream,
                long fileLen,
                long splitEnd) {
            java.io.BufferedReader lines =
                    new java.io.BufferedReader(
                            new java.io.InputStreamReader(stream, StandardCharsets.UTF_8), 1);
            return new Reader<>() {
                long consumed;

                @Override
                public String read() throws IOException {
                    if (consumed >= splitEnd) {
                        return null;
                    }
                    String line = lines.readLine();
                    if (line != null) {
                        consumed += line.length() + 1;
                    }
                    return line;
                }

                @Override
                public void close() throws IOException {
                    lines.close();
                }
            };
        }

        @Override
        public Reader<String> restoreReader(
                org.apache.flink.configuration.Configuration config,
                org.apache.flink.core.fs.FSDataInputStream stream,
                long restoredOffset,
                long fileLen,
                long splitEnd) {
            throw new UnsupportedOperationException();
        }

        @Override
        public boolean isSplittable() {
            return true;
        }

        @Override
        public org.apache.flink.api.common.typeinfo.TypeInformation<String> getProducedType() {
            return org.apache.flink.api.common.typeinfo.Types.STRING;
        }
    }
}
