package io.rangefetch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every setting a module declares, one by one: its default, a value with units read from properties and given to
 * the builder, bad values, a second setting, and its row in docs/CONFIGURATION.md (with the declared default and
 * opening with the declared line). A module's test extends this with its settings; each list must name every one
 * of them, so a setting declared without a pinned default, a parse case, a bad value or a documentation row fails.
 *
 * <p>Design: one contract for the stream's settings (core) and for each format policy's (the Parquet module), as
 * Trino runs one contract suite per backend; the lists are the module's, the assertions are said once here.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class SettingsContract {
    protected static final String PREFIX = "rangefetch.";
    // Surefire runs a module's tests from its folder, beside docs/.
    private static final Path DOC = Path.of("../docs/CONFIGURATION.md");

    /** One row of the page's keys table: {@code | `key` | default | range | meaning |}. */
    protected record Row(String key, String defaultCell, String meaning) {}

    /**
     * One setting: a value with units and what it means. Each value differs from the setting's default and fits
     * the other defaults, so it can be given alone.
     */
    public record Case(Setting<?> setting, String text, Object value) {
        @Override
        public String toString() {
            return setting.key() + "=" + text;
        }
    }

    /** The settings under test, in documentation order. */
    protected abstract List<Setting<?>> settings();

    /** Each setting's default (a derived one as derived from the defaults it follows from), in the same order. */
    protected abstract Map<Setting<?>, Object> defaults();

    /** One case per setting, in the same order. */
    protected abstract List<Case> cases();

    /** Values that do not parse or are out of the setting's range, as (setting, text): at least one per setting. */
    protected abstract Stream<Arguments> badValues();

    @Test
    void everyDefaultIsPinned() {
        StreamConfig defaults = StreamConfig.defaults();
        assertThat(defaults().keySet()).containsExactlyElementsOf(settings());
        defaults()
                .forEach((setting, value) -> assertThat((Object) defaults.get(setting))
                        .as(setting.key())
                        .isEqualTo(value));
    }

    @Test
    void theCasesAndTheBadValuesCoverEverySetting() {
        assertThat(cases().stream().map(Case::setting)).containsExactlyElementsOf(settings());
        assertThat(badValues().map(arguments -> arguments.get()[0]).distinct()).containsExactlyElementsOf(settings());
    }

    @Test
    void everySettingIsKnownToFromProperties() {
        assertThat(StreamConfig.keys())
                .containsSubsequence(settings().stream().map(Setting::key).toList());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void everySettingParsesWithUnitsFromProperties(Case c) {
        StreamConfig config =
                StreamConfig.fromProperties(Map.of(PREFIX + c.setting().key(), c.text()), PREFIX);
        assertThat((Object) config.get(c.setting()))
                .isEqualTo(c.value())
                .isNotEqualTo(defaults().get(c.setting()));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void theBuilderSetsEverySettingAndRefusesASecondSetting(Case c) {
        Setting<Object> setting = untyped(c.setting());
        StreamConfig.Builder builder = StreamConfig.builder();
        assertThat(builder.set(setting, c.value()).build().get(setting)).isEqualTo(c.value());
        assertThatThrownBy(() -> builder.set(setting, c.value()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage(c.setting().key() + " was already set");
    }

    @ParameterizedTest(name = "{0}={1}")
    @MethodSource("badValues")
    void aBadValueOfEverySettingFailsInFromPropertiesWithTheKeyAndTheValue(Setting<?> setting, String value) {
        String key = setting.key();
        String prefix = "Invalid setting " + PREFIX + key + "=" + value + ": ";
        assertThatThrownBy(() -> StreamConfig.fromProperties(Map.of(PREFIX + key, value), PREFIX))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith(prefix)
                .satisfies(e -> assertThat(e.getMessage().substring(prefix.length()))
                        .as("why")
                        .contains(key));
    }

    @Test
    void thePageListsEverySettingInOrder() throws IOException {
        assertThat(rows().stream().map(Row::key))
                .containsSubsequence(settings().stream().map(Setting::key).toList());
    }

    @Test
    void thePageGivesEachSettingItsDefaultAndOpensWithItsLine() throws IOException {
        StreamConfig defaults = StreamConfig.defaults();
        Map<String, Row> byKey = new LinkedHashMap<>();
        rows().forEach(row -> byKey.put(row.key(), row));
        for (Setting<?> setting : settings()) {
            Row row = byKey.get(setting.key());
            assertThat(row).as("the row of %s", setting.key()).isNotNull();
            if (setting.defaultText().isPresent()) {
                assertThat(row.defaultCell())
                        .as(row.key())
                        .isEqualTo("`" + setting.defaultText().get() + "`");
            } else {
                // A derived default: the page says how, and gives the value the default network model yields.
                assertThat(row.defaultCell())
                        .as(row.key())
                        .startsWith("derived: ")
                        .contains("`" + defaults.get(setting) + "`");
            }
            assertThat(row.meaning().replace("`", "")).as(row.key()).startsWith(setting.summary());
        }
    }

    /** The rows of the page's keys table, in order. */
    protected static List<Row> rows() throws IOException {
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
            assertThat(cells)
                    .as("a row of four cells, without '|' inside them: %s", line)
                    .hasSize(6);
            String key = cells[1].strip();
            assertThat(key).as("a key in backquotes").startsWith("`").endsWith("`");
            rows.add(new Row(key.substring(1, key.length() - 1), cells[2].strip(), cells[4].strip()));
        }
        return rows;
    }

    /** Settings and values, alternating, in order. */
    protected static Map<Setting<?>, Object> ordered(Object... settingsAndValues) {
        Map<Setting<?>, Object> map = new LinkedHashMap<>();
        for (int i = 0; i < settingsAndValues.length; i += 2) {
            map.put((Setting<?>) settingsAndValues[i], settingsAndValues[i + 1]);
        }
        return map;
    }

    @SuppressWarnings("unchecked") // a case's value is of its setting's type
    private static Setting<Object> untyped(Setting<?> setting) {
        return (Setting<Object>) setting;
    }
}
