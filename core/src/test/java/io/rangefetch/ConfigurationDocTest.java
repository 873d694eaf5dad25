package io.rangefetch;

import static org.assertj.core.api.Assertions.assertThat;

import io.rangefetch.internal.config.Setting;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * docs/CONFIGURATION.md against {@link SettingsTable}: the keys table of the page lists exactly the table's keys,
 * in its order, each with the table's default, and each key's explanation opens with the table's one line.
 */
class ConfigurationDocTest {
    // Surefire runs the core module's tests from core/.
    private static final Path DOC = Path.of("../docs/CONFIGURATION.md");

    /** One row of the page's keys table: {@code | `key` | default | range | meaning |}. */
    record Row(String key, String defaultCell, String meaning) {}

    @Test
    void thePageListsExactlyTheKeysOfTheTableInItsOrder() throws IOException {
        assertThat(rows().stream().map(Row::key)).containsExactlyElementsOf(StreamConfig.keys());
    }

    @Test
    void thePageGivesEachKeyTheDefaultOfTheTable() throws IOException {
        StreamConfig defaults = StreamConfig.defaults();
        for (Row row : rows()) {
            Setting<?> setting = SettingsTable.byKey(row.key()).orElseThrow();
            if (setting.defaultText().isPresent()) {
                assertThat(row.defaultCell()).as(row.key()).isEqualTo("`" + setting.defaultText().get() + "`");
            } else {
                // A derived default: the page says how, and gives the value the default network model yields.
                assertThat(row.defaultCell()).as(row.key()).startsWith("derived: ")
                        .contains("`" + defaults.get(setting) + "`");
            }
        }
    }

    @Test
    void eachKeysExplanationOpensWithTheLineOfTheTable() throws IOException {
        for (Row row : rows()) {
            String summary = SettingsTable.byKey(row.key()).orElseThrow().summary();
            assertThat(row.meaning().replace("`", "")).as(row.key()).startsWith(summary);
        }
    }

    private static List<Row> rows() throws IOException {
        List<String> lines = Files.readAllLines(DOC, StandardCharsets.UTF_8);
        int section = lines.indexOf("## Keys");
        assertThat(section).as("the page has a '## Keys' section").isNotNegative();
        List<Row> rows = new ArrayList<>();
        for (String line : lines.subList(section + 1, lines.size())) {
            if (line.startsWith("## ")) {
                break;
            }
            if (!line.startsWith("| `")) {
                continue;
            }
            String[] cells = line.split("\\|", -1);
            assertThat(cells).as("a row of four cells, without '|' inside them: %s", line).hasSize(6);
            String key = cells[1].strip();
            assertThat(key).as("a key in backquotes").startsWith("`").endsWith("`");
            rows.add(new Row(key.substring(1, key.length() - 1), cells[2].strip(), cells[4].strip()));
        }
        return rows;
    }
}
