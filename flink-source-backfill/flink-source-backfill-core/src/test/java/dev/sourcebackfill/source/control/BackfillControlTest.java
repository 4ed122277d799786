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
package dev.sourcebackfill.source.control;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class BackfillControlTest {

    @Test
    void readsWhatItWritesAndKeysLeftOutKeepTheirDefaults() {
        BackfillControl paused = BackfillControl.asBuilt().withRate(500).withPaused(true);
        assertThat(paused.toText()).isEqualTo("rate=500\npaused=true\n");
        assertThat(BackfillControl.parse(paused.toText(), "f")).isEqualTo(paused);
        assertThat(BackfillControl.parse("rate=2.5", "f").recordsPerSecond()).hasValue(2.5);
        assertThat(BackfillControl.parse("# nothing\n\n  paused = TRUE  # held\n", "f"))
                .isEqualTo(BackfillControl.asBuilt().withPaused(true));
        assertThat(BackfillControl.parse("rate=builder\n", "f"))
                .isEqualTo(BackfillControl.asBuilt());
        assertThat(BackfillControl.parse("", "f")).isEqualTo(BackfillControl.asBuilt());
    }

    @Test
    void aMalformedControlFailsNamingWhereTheLineAndTheProblem() {
        assertThatThrownBy(() -> BackfillControl.parse("paused=false\nrate=fast", "/c/ctl"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage(
                        "Backfill control /c/ctl, line 2 ('rate=fast'): rate must be a number or"
                                + " 'builder'");
        assertThatThrownBy(() -> BackfillControl.parse("rate=0", "f"))
                .hasMessageContaining("rate must be positive and finite")
                .hasMessageContaining("paused=true");
        assertThatThrownBy(() -> BackfillControl.parse("speed=3", "f"))
                .hasMessageContaining("unknown key 'speed' (keys: rate, paused)");
        assertThatThrownBy(() -> BackfillControl.parse("paused=yes", "f"))
                .hasMessageContaining("paused must be true or false");
        assertThatThrownBy(() -> BackfillControl.parse("pause", "f"))
                .hasMessageContaining("line 1 ('pause'): not key=value");
    }

    @Test
    void theFileIsWrittenWholeOverTheOldOneAndAMissingFileIsNoControl(@TempDir Path dir)
            throws Exception {
        ControlFile file = new ControlFile(dir.resolve("ctl/backfill.control").toString());
        assertThat(file.read()).isEmpty();
        file.write(BackfillControl.asBuilt().withPaused(true));
        assertThat(file.read()).contains(BackfillControl.asBuilt().withPaused(true));
        file.write(BackfillControl.asBuilt().withRate(40));
        assertThat(file.read()).contains(BackfillControl.asBuilt().withRate(40));
        // no temporary file is left beside it
        try (var files = Files.list(dir.resolve("ctl"))) {
            assertThat(files).containsExactly(dir.resolve("ctl/backfill.control"));
        }
    }

    @Test
    void aFileThatHoldsNoControlFailsNamingIt(@TempDir Path dir) throws Exception {
        Path path = dir.resolve("backfill.control");
        Files.write(path, "paused=maybe\n".getBytes(StandardCharsets.UTF_8));
        ControlFile file = new ControlFile(path.toString());
        assertThatThrownBy(file::read)
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(path.toString())
                .hasMessageContaining("line 1");
        Files.write(path, new byte[70_000]);
        assertThatThrownBy(file::read).hasMessageContaining("larger than");
    }
}
