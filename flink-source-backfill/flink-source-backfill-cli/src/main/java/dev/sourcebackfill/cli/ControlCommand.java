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

import dev.sourcebackfill.cli.BackfillCli.Arguments;
import dev.sourcebackfill.cli.BackfillCli.CommandException;
import dev.sourcebackfill.cli.BackfillCli.UsageException;
import dev.sourcebackfill.source.control.BackfillControl;
import dev.sourcebackfill.source.control.ControlFile;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.GlobalConfiguration;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.plugin.PluginUtils;

import java.io.PrintStream;

/**
 * {@code pause}, {@code resume} and {@code set-rate}: the control file read, changed in the one
 * setting the command names, and written whole. The job reads it every control interval.
 */
final class ControlCommand {

    private ControlCommand() {}

    static int run(String command, Arguments arguments, PrintStream out) throws Exception {
        String path = arguments.required("--control");
        int words = command.equals("set-rate") ? 1 : 0;
        if (arguments.words().size() != words) {
            throw new UsageException(
                    command
                            + (words == 0
                                    ? " takes no argument besides --control"
                                    : " takes one argument: records per second per reader, or"
                                            + " 'builder'"));
        }
        initializeFileSystems();
        ControlFile file = new ControlFile(path);
        BackfillControl before;
        try {
            before = file.read().orElse(BackfillControl.asBuilt());
        } catch (IllegalArgumentException e) {
            throw new CommandException(
                    e.getMessage() + " (fix the file or delete it: it is not changed)");
        }
        BackfillControl after;
        switch (command) {
            case "pause":
                after = before.withPaused(true);
                break;
            case "resume":
                after = before.withPaused(false);
                break;
            default:
                after = withRate(before, arguments.words().get(0));
        }
        file.write(after);
        out.println("Backfill control " + path + ": " + after + " (was: " + before + ")");
        return BackfillCli.OK;
    }

    private static BackfillControl withRate(BackfillControl control, String rate)
            throws UsageException {
        if (rate.equals(BackfillControl.BUILDER_RATE)) {
            return control.withBuilderRate();
        }
        try {
            double recordsPerSecond = Double.parseDouble(rate);
            if (recordsPerSecond > 0 && !Double.isInfinite(recordsPerSecond)) {
                return control.withRate(recordsPerSecond);
            }
        } catch (NumberFormatException e) {
            // below
        }
        throw new UsageException(
                "set-rate takes a positive number of records per second per reader, or 'builder'"
                        + " (to stop the backfill: pause), not '"
                        + rate
                        + "'");
    }

    /**
     * With {@code FLINK_CONF_DIR} or {@code FLINK_HOME} set, Flink's file systems as the cluster
     * has them (its configuration, its plugins: s3, gs, azure); else those on the class path (local
     * files; HDFS with Hadoop on it).
     */
    private static void initializeFileSystems() {
        String confDir = System.getenv("FLINK_CONF_DIR");
        String home = System.getenv("FLINK_HOME");
        if (confDir == null && home != null) {
            confDir = home + "/conf";
        }
        if (confDir == null) {
            return;
        }
        Configuration configuration = GlobalConfiguration.loadConfiguration(confDir);
        FileSystem.initialize(
                configuration, PluginUtils.createPluginManagerFromRootFolder(configuration));
    }
}
