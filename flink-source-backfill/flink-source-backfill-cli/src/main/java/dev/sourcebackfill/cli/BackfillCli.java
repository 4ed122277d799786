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
package dev.sourcebackfill.cli;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The backfill client:
 *
 * <pre>
 * backfill status --rest URL --job ID [--source NAME] [--json] [--watch SECONDS]
 * backfill pause    --control PATH
 * backfill resume   --control PATH
 * backfill set-rate RECORDS_PER_SECOND|builder --control PATH
 * </pre>
 *
 * Exit codes: 0 done; 1 failed (an unknown job or source, a job that is not running, a source that
 * is not a backfill source, a control file that cannot be written); 2 a malformed command line.
 */
public final class BackfillCli {

    static final int OK = 0;
    static final int FAILED = 1;
    static final int USAGE = 2;

    static final String USAGE_TEXT =
            String.join(
                    "\n",
                    "usage:",
                    "  backfill status --rest URL --job ID [--source NAME] [--json]"
                            + " [--watch SECONDS]",
                    "  backfill pause --control PATH",
                    "  backfill resume --control PATH",
                    "  backfill set-rate RECORDS_PER_SECOND|builder --control PATH",
                    "",
                    "status reads Flink's REST API (the job's source metrics); pause, resume and"
                            + " set-rate write the source's control file (setBackfillControlFile,"
                            + " 'backfill.control.file'), which the job reads every control"
                            + " interval.");

    private BackfillCli() {}

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    /** Runs one command; returns its exit code. */
    static int run(String[] args, PrintStream out, PrintStream err) {
        if (args.length == 0 || args[0].equals("--help") || args[0].equals("help")) {
            (args.length == 0 ? err : out).println(USAGE_TEXT);
            return args.length == 0 ? USAGE : OK;
        }
        try {
            switch (args[0]) {
                case "status":
                    return StatusCommand.run(Arguments.parse(args, 1, STATUS_OPTIONS), out);
                case "pause":
                case "resume":
                case "set-rate":
                    return ControlCommand.run(
                            args[0], Arguments.parse(args, 1, CONTROL_OPTIONS), out);
                default:
                    throw new UsageException("unknown command '" + args[0] + "'");
            }
        } catch (UsageException e) {
            err.println("backfill: " + e.getMessage());
            err.println(USAGE_TEXT);
            return USAGE;
        } catch (CommandException e) {
            err.println("backfill: " + e.getMessage());
            return FAILED;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            err.println("backfill: interrupted");
            return FAILED;
        } catch (Exception e) {
            err.println("backfill: " + e.getMessage());
            return FAILED;
        }
    }

    private static final Set<String> STATUS_OPTIONS =
            Set.of("--rest", "--job", "--source", "--json", "--watch");
    private static final Set<String> CONTROL_OPTIONS = Set.of("--control");

    /** A malformed command line. */
    static final class UsageException extends Exception {
        UsageException(String message) {
            super(message);
        }
    }

    /** A command that could not do what it was asked, for a reason it names. */
    static final class CommandException extends Exception {
        CommandException(String message) {
            super(message);
        }
    }

    /** Options ({@code --name value}, or a flag) and the words that are not options. */
    record Arguments(Map<String, String> options, List<String> words) {

        private static final Set<String> FLAGS = Set.of("--json");

        static Arguments parse(String[] args, int from, Set<String> known) throws UsageException {
            Map<String, String> options = new HashMap<>();
            List<String> words = new ArrayList<>();
            for (int i = from; i < args.length; i++) {
                String arg = args[i];
                if (!arg.startsWith("--")) {
                    words.add(arg);
                    continue;
                }
                if (!known.contains(arg)) {
                    throw new UsageException("unknown option " + arg);
                }
                if (FLAGS.contains(arg)) {
                    options.put(arg, "true");
                    continue;
                }
                if (i + 1 >= args.length) {
                    throw new UsageException("option " + arg + " needs a value");
                }
                options.put(arg, args[++i]);
            }
            return new Arguments(options, words);
        }

        String required(String option) throws UsageException {
            String value = options.get(option);
            if (value == null || value.isBlank()) {
                throw new UsageException("option " + option + " is required");
            }
            return value;
        }

        boolean flag(String option) {
            return options.containsKey(option);
        }

        /** A positive number of seconds, or {@code otherwise} if the option is not given. */
        double seconds(String option, double otherwise) throws UsageException {
            String value = options.get(option);
            if (value == null) {
                return otherwise;
            }
            try {
                double seconds = Double.parseDouble(value);
                if (seconds > 0 && !Double.isInfinite(seconds)) {
                    return seconds;
                }
            } catch (NumberFormatException e) {
                // below
            }
            throw new UsageException(
                    "option " + option + " must be a positive number of seconds, was " + value);
        }
    }
}
