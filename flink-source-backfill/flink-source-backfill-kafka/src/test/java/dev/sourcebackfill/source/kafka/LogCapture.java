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

import org.apache.flink.util.ExceptionUtils;

import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.Appender;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.Configuration;
import org.apache.logging.log4j.core.config.LoggerConfig;
import org.apache.logging.log4j.core.config.Property;

import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * Captures every log line (INFO and up, all loggers, stack traces included) while open; the console
 * keeps showing WARN and up only.
 */
final class LogCapture implements AutoCloseable {

    final ConcurrentLinkedQueue<String> lines = new ConcurrentLinkedQueue<>();
    private final LoggerContext context = (LoggerContext) LogManager.getContext(false);
    private final Appender appender;
    private final Level rootLevel;
    private final Level backfillLevel;

    LogCapture() {
        appender =
                new AbstractAppender("capture", null, null, true, Property.EMPTY_ARRAY) {
                    @Override
                    public void append(LogEvent event) {
                        String line =
                                event.getLoggerName()
                                        + " "
                                        + event.getMessage().getFormattedMessage();
                        if (event.getThrown() != null) {
                            line += "\n" + ExceptionUtils.stringifyException(event.getThrown());
                        }
                        lines.add(line);
                    }
                };
        appender.start();
        Configuration config = context.getConfiguration();
        LoggerConfig root = config.getRootLogger();
        rootLevel = root.getLevel();
        LoggerConfig backfill = config.getLoggerConfig("dev.sourcebackfill");
        backfillLevel = backfill.getLevel();
        Appender console = config.getAppender("ConsoleAppender");
        root.removeAppender("ConsoleAppender");
        root.addAppender(console, Level.WARN, null);
        root.addAppender(appender, Level.INFO, null);
        root.setLevel(Level.INFO);
        if (backfill != root) {
            backfill.setLevel(Level.INFO);
        }
        context.updateLoggers();
    }

    String all() {
        return String.join("\n", lines);
    }

    @Override
    public void close() {
        Configuration config = context.getConfiguration();
        LoggerConfig root = config.getRootLogger();
        Appender console = config.getAppender("ConsoleAppender");
        root.removeAppender("capture");
        root.removeAppender("ConsoleAppender");
        root.addAppender(console, null, null);
        root.setLevel(rootLevel);
        LoggerConfig backfill = config.getLoggerConfig("dev.sourcebackfill");
        if (backfill != root) {
            backfill.setLevel(backfillLevel);
        }
        context.updateLoggers();
        appender.stop();
    }
}
