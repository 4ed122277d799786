package dev.sourcebackfill.benchmark;

import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;

/**
 * A discarding sink that counts: the time of a subtask's first record, of every 1,024th and of
 * its end of input, into the run's {@link RunProbe}. The same sink ends every contender and
 * every baseline job, so its cost is in both.
 */
final class ProbeSink<T> implements Sink<T> {

    private static final long serialVersionUID = 1L;

    private final String runId;

    ProbeSink(String runId) {
        this.runId = runId;
    }

    @Override
    public SinkWriter<T> createWriter(WriterInitContext context) {
        return new Writer<>(RunProbe.of(runId).subtask(context.getTaskInfo().getIndexOfThisSubtask()));
    }

    private static final class Writer<T> implements SinkWriter<T> {

        private final RunProbe.SubtaskProbe probe;

        Writer(RunProbe.SubtaskProbe probe) {
            this.probe = probe;
        }

        @Override
        public void write(T element, Context context) {
            long n = ++probe.records;
            if (n == 1) {
                probe.firstNanos = System.nanoTime();
            } else if ((n & 1023) == 0) {
                probe.lastNanos = System.nanoTime();
                probe.publishedRecords = n;
            }
        }

        @Override
        public void flush(boolean endOfInput) {
            if (endOfInput) {
                probe.lastNanos = System.nanoTime();
                probe.publishedRecords = probe.records;
            }
        }

        @Override
        public void close() {}
    }
}
