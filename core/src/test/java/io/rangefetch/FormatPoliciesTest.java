package io.rangefetch;

import static io.rangefetch.StreamConfig.FORMAT_COMPRESSED_EXTENSIONS;
import static io.rangefetch.StreamConfig.FORMAT_EXTENSIONS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rangefetch.OpenOptions.ReadPolicy;
import io.rangefetch.format.FormatPolicy;
import io.rangefetch.format.FormatPolicy.FormatSession;
import io.rangefetch.format.FormatPolicy.FormatStream;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

class FormatPoliciesTest {
    private static final StreamConfig DEFAULTS = StreamConfig.defaults();
    private static final FormatPolicies ALL =
            FormatPolicies.of(List.of(named("parquet"), named("orc"), named("text")), DEFAULTS);

    /** A policy that does nothing: only which one is chosen matters here. */
    private static FormatPolicy named(String name) {
        return new FormatPolicy() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public FormatSession open(FormatStream stream) {
                return FormatSession.NONE;
            }
        };
    }

    private static Optional<String> chosen(FormatPolicies policies, String key, ReadPolicy hint) {
        return policies.choose(key, hint).map(FormatPolicy::name);
    }

    private static Optional<String> chosen(String key) {
        return chosen(ALL, key, ReadPolicy.AUTO);
    }

    @ParameterizedTest
    @CsvSource({
        "A.CSV, text",
        "x.parquet, parquet",
        "y.parq, parquet",
        "z.orc, orc",
        "logs/app.log, text",
        "dir.orc/part-0.Parquet, parquet",
        "events.ndjson, text",
        "a.b.tsv, text"
    })
    void theKeysExtensionChoosesThePolicyWhateverItsCase(String key, String policy) {
        assertThat(chosen(key)).contains(policy);
    }

    @Test
    void everyDefaultExtensionChoosesItsPolicyInLowerAndUpperCase() {
        Map<String, List<String>> defaults = DEFAULTS.get(FORMAT_EXTENSIONS);
        assertThat(defaults).containsOnlyKeys("parquet", "orc", "text");
        defaults.forEach((policy, extensions) -> extensions.forEach(extension -> {
            assertThat(chosen("dir/file." + extension)).as(extension).contains(policy);
            assertThat(chosen("dir/FILE." + extension.toUpperCase(Locale.ROOT)))
                    .as(extension)
                    .contains(policy);
        }));
    }

    @ParameterizedTest
    @ValueSource(strings = {"d.csv.gz", "d.parquet.zst", "d.ORC.Snappy", "logs/app.log.bz2", "x.json.br"})
    void aKnownExtensionFollowedByACompressionSuffixIsReadAsText(String key) {
        assertThat(chosen(key)).contains("text");
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "data.csvx",
                "csv",
                "a.csv/b",
                "parquet",
                "d.gz",
                "d.csv.gzip",
                "x.parquet.",
                "xparquet",
                "data.csv.gz.tmp",
                ""
            })
    void aKeyWithoutAKnownExtensionAtItsVeryEndHasNoPolicy(String key) {
        assertThat(chosen(key)).isEmpty();
    }

    @Test
    void regexMetacharactersInAConfiguredExtensionAreLiteral() {
        StreamConfig config = StreamConfig.builder()
                .set(FORMAT_EXTENSIONS, Map.of("text", List.of("c+v", "d.t", "(x|y)")))
                .set(FORMAT_COMPRESSED_EXTENSIONS, List.of("g*"))
                .build();
        FormatPolicies policies = FormatPolicies.of(List.of(named("text")), config);

        assertThat(chosen(policies, "a.c+v", ReadPolicy.AUTO)).contains("text");
        assertThat(chosen(policies, "a.C+V", ReadPolicy.AUTO)).contains("text");
        assertThat(chosen(policies, "a.d.t", ReadPolicy.AUTO)).contains("text");
        assertThat(chosen(policies, "a.(x|y)", ReadPolicy.AUTO)).contains("text");
        assertThat(chosen(policies, "a.c+v.g*", ReadPolicy.AUTO)).contains("text");
        for (String key : List.of("a.ccv", "a.cv", "a.cccv", "a.dxt", "a.x", "a.y", "a.c+v.g", "a.c+v.ggg")) {
            assertThat(chosen(policies, key, ReadPolicy.AUTO)).as(key).isEmpty();
        }
    }

    @ParameterizedTest
    @CsvSource({
        "x.csv, PARQUET, parquet",
        "x.parquet, ORC, orc",
        "z.orc, TEXT, text",
        "no-extension, ORC, orc",
        "x.parquet, SEQUENTIAL, text",
        "d.parquet.zst, PARQUET, parquet",
        "x.parquet, COLUMNAR, parquet",
        "z.orc, AUTO, orc"
    })
    void aHintThatNamesAFormatWinsOverTheExtension(String key, ReadPolicy hint, String policy) {
        assertThat(chosen(ALL, key, hint)).contains(policy);
    }

    @ParameterizedTest
    @ValueSource(strings = {"x.csv", "x.parquet", "z.orc", "d.csv.gz"})
    void randomChoosesNoPolicy(String key) {
        assertThat(chosen(ALL, key, ReadPolicy.RANDOM)).isEmpty();
    }

    @Test
    void aPolicyThatIsNotInstalledIsNotChosenByHintOrByExtension() {
        FormatPolicies withoutParquet = FormatPolicies.of(List.of(named("orc"), named("text")), DEFAULTS);
        assertThat(chosen(withoutParquet, "x.orc", ReadPolicy.PARQUET)).isEmpty();
        assertThat(chosen(withoutParquet, "x.parquet", ReadPolicy.AUTO)).isEmpty();
        assertThat(chosen(withoutParquet, "x.parquet", ReadPolicy.COLUMNAR)).isEmpty();
        assertThat(chosen(withoutParquet, "x.parquet.gz", ReadPolicy.AUTO)).contains("text");

        FormatPolicies none = FormatPolicies.of(List.of(), DEFAULTS);
        assertThat(chosen(none, "x.csv", ReadPolicy.TEXT)).isEmpty();
        assertThat(chosen(none, "x.csv.gz", ReadPolicy.AUTO)).isEmpty();
    }

    @Test
    void withNoExtensionsConfiguredOnlyHintsChoose() {
        StreamConfig config = StreamConfig.fromProperties(Map.of("rangefetch.format.extensions", ""), "rangefetch.");
        FormatPolicies policies = FormatPolicies.of(List.of(named("orc"), named("text")), config);
        assertThat(chosen(policies, "x.csv", ReadPolicy.AUTO)).isEmpty();
        assertThat(chosen(policies, "x.csv.gz", ReadPolicy.AUTO)).isEmpty();
        assertThat(chosen(policies, "x.csv", ReadPolicy.ORC)).contains("orc");
    }

    @Test
    void theFirstOfTwoPoliciesWithOneNameIsUsed() {
        FormatPolicy first = named("text");
        FormatPolicies policies = FormatPolicies.of(List.of(first, named("text")), DEFAULTS);
        assertThat(policies.choose("x.csv", ReadPolicy.AUTO)).containsSame(first);
        assertThat(policies.names()).containsExactly("text");
    }

    @ParameterizedTest
    @EnumSource(ReadPolicy.class)
    void aSessionsReadPolicyShapesStreamingReadsOnlyWhenItIsSequentialOrRandom(ReadPolicy policy) {
        ReadPolicy expected = policy == ReadPolicy.SEQUENTIAL || policy == ReadPolicy.RANDOM ? policy : ReadPolicy.AUTO;
        assertThat(FormatPolicies.streamingPolicyOf(policy)).isEqualTo(expected);
    }

    @Test
    void coreMakesItsTextAndOrcPoliciesItself() {
        FormatPolicies discovered = FormatPolicies.discover(DEFAULTS);
        assertThat(discovered.names()).contains("text", "orc");
        assertThat(chosen(discovered, "x.csv", ReadPolicy.AUTO)).contains("text");
        assertThat(chosen(discovered, "x.orc", ReadPolicy.AUTO)).contains("orc");
    }

    @Test
    void aPolicysSettingsAreKnownUnderItsNameOnlyAndNeverTwice() {
        Setting<Long> block = Setting.size("avro.block-size", "1MiB", 1, "An Avro block.");
        Setting<Long> outside = Setting.size("read.avro-size", "1MiB", 1, "Not under the policy's name.");
        Setting<Long> taken = Setting.size("avro.taken", "1MiB", 1, "A key another setting has.");
        Setting<Long> again = Setting.size("avro.block-size", "2MiB", 1, "A second policy's, same key.");
        FormatPolicy avro = declaring("avro", block, outside, taken);
        FormatPolicy second = declaring("avro", again);
        FormatPolicy failing = new FormatPolicy() {
            @Override
            public String name() {
                return "failing";
            }

            @Override
            public List<Setting<?>> settings() {
                throw new IllegalStateException("no settings today");
            }

            @Override
            public FormatSession open(FormatStream stream) {
                return FormatSession.NONE;
            }
        };
        assertThat(InstalledFormatPolicies.declaredSettings(List.of(avro, failing, second), Set.of("avro.taken")))
                .containsExactly(block);
    }

    @Test
    void theBuilderTakesASettingOfAnyPolicyAndItsDefaultHoldsWhenNotGiven() {
        Setting<Long> block = Setting.size("avro.block-size", "1MiB", 1, "An Avro block.");
        assertThat(DEFAULTS.get(block)).isEqualTo(1L << 20);
        StreamConfig config = StreamConfig.builder().set(block, 4L << 20).build();
        assertThat(config.get(block)).isEqualTo(4L << 20);
        assertThat(config.toString()).endsWith(", avro.block-size=4194304}");
        assertThatThrownBy(() -> StreamConfig.builder().set(block, 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("avro.block-size must be at least 1, got 0");
        assertThatThrownBy(() -> StreamConfig.builder().set(block, (Long) null))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("value of avro.block-size is null");
    }

    private static FormatPolicy declaring(String name, Setting<?>... settings) {
        return new FormatPolicy() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public List<Setting<?>> settings() {
                return List.of(settings);
            }

            @Override
            public FormatSession open(FormatStream stream) {
                return FormatSession.NONE;
            }
        };
    }
}
