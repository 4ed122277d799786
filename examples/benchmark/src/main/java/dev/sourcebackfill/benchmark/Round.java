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
package dev.sourcebackfill.benchmark;

/**
 * What one run of a throughput job measured.
 *
 * @param recordsPerSecond the run's rate: the sum over subtasks of records / (last record - first
 *     record), or of the records after forward mode over the time since
 * @param seconds how long the records the rate counts lasted (those records over the rate)
 * @param cpuNanosPerRecord the CPU time the run cost ({@link JobCpu}, from submitting the job until
 *     it was gone) over every record it delivered
 */
record Round(double recordsPerSecond, double seconds, double cpuNanosPerRecord) {

    /**
     * @param ratedRecords the records {@code recordsPerSecond} counts
     * @param cpu the CPU clocks read right before the job was submitted
     * @param records every record the job delivered
     */
    static Round of(double recordsPerSecond, long ratedRecords, JobCpu.Reading cpu, long records) {
        long cpuNanos = cpu.countedNanosSince();
        return new Round(
                recordsPerSecond, ratedRecords / recordsPerSecond, (double) cpuNanos / records);
    }
}
