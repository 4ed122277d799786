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
package dev.sourcebackfill.examples;

import org.apache.flink.api.java.utils.ParameterTool;

/**
 * The examples' command-line arguments ({@code --key value}), read by Flink's {@code
 * ParameterTool}, which moved between Flink lines. Flink 1.x: Flink's {@code ParameterTool} is in
 * {@code org.apache.flink.api.java.utils}.
 */
public final class JobArgs {

    private final ParameterTool tool;

    private JobArgs(ParameterTool tool) {
        this.tool = tool;
    }

    public static JobArgs of(String[] args) {
        return new JobArgs(ParameterTool.fromArgs(args));
    }

    public boolean has(String key) {
        return tool.has(key);
    }

    public String get(String key) {
        return tool.get(key);
    }

    public String get(String key, String defaultValue) {
        return tool.get(key, defaultValue);
    }

    public String getRequired(String key) {
        return tool.getRequired(key);
    }

    public int getInt(String key) {
        return tool.getInt(key);
    }

    public int getInt(String key, int defaultValue) {
        return tool.getInt(key, defaultValue);
    }

    public long getLong(String key) {
        return tool.getLong(key);
    }

    public long getLong(String key, long defaultValue) {
        return tool.getLong(key, defaultValue);
    }

    public double getDouble(String key) {
        return tool.getDouble(key);
    }

    public double getDouble(String key, double defaultValue) {
        return tool.getDouble(key, defaultValue);
    }
}
