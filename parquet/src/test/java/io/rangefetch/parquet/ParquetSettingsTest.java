package io.rangefetch.parquet;

import static io.rangefetch.parquet.ParquetFormatPolicy.FOOTER_PRECACHE_SIZE;
import static io.rangefetch.parquet.ParquetFormatPolicy.LARGE_FILE_SIZE;
import static io.rangefetch.parquet.ParquetFormatPolicy.LARGE_FOOTER_PRECACHE_SIZE;
import static io.rangefetch.parquet.ParquetFormatPolicy.WHOLE_FILE_SIZE;
import static org.assertj.core.api.Assertions.assertThat;

import io.rangefetch.Setting;
import io.rangefetch.SettingsContract;
import io.rangefetch.StreamConfig;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.provider.Arguments;

/**
 * The Parquet policy's settings ({@code parquet.*}) through the {@link SettingsContract}; and, since this module
 * sees every setting there is (core's, the built-in policies', Parquet's), the whole keys table of
 * docs/CONFIGURATION.md against them.
 */
class ParquetSettingsTest extends SettingsContract {

    @Override
    protected List<Setting<?>> settings() {
        return new ParquetFormatPolicy().settings();
    }

    @Override
    protected Map<Setting<?>, Object> defaults() {
        return ordered(
                FOOTER_PRECACHE_SIZE, 32L << 10,
                LARGE_FOOTER_PRECACHE_SIZE, 1L << 20,
                WHOLE_FILE_SIZE, 3L << 20,
                LARGE_FILE_SIZE, 1L << 30);
    }

    @Override
    protected List<Case> cases() {
        return List.of(
                new Case(FOOTER_PRECACHE_SIZE, "16k", 16L << 10),
                new Case(LARGE_FOOTER_PRECACHE_SIZE, "2MiB", 2L << 20),
                new Case(WHOLE_FILE_SIZE, "1MiB", 1L << 20),
                new Case(LARGE_FILE_SIZE, "512MiB", 512L << 20));
    }

    @Override
    protected Stream<Arguments> badValues() {
        return Stream.of(
                Arguments.of(FOOTER_PRECACHE_SIZE, "2GiB"),
                Arguments.of(LARGE_FOOTER_PRECACHE_SIZE, "-5"),
                Arguments.of(WHOLE_FILE_SIZE, "2GiB"),
                Arguments.of(LARGE_FILE_SIZE, "1 GB per file"));
    }

    @Test
    void theLoadedPolicyAddsItsKeysAfterCoresAndThePageListsExactlyThoseKeys() throws IOException {
        assertThat(StreamConfig.keys())
                .endsWith(
                        FOOTER_PRECACHE_SIZE.key(),
                        LARGE_FOOTER_PRECACHE_SIZE.key(),
                        WHOLE_FILE_SIZE.key(),
                        LARGE_FILE_SIZE.key());
        assertThat(rows().stream().map(Row::key)).containsExactlyElementsOf(StreamConfig.keys());
    }

    @Test
    void toStringListsTheKeysOfThePolicyLast() {
        assertThat(StreamConfig.defaults().toString())
                .endsWith(", orc.tail-size=262144, "
                        + "parquet.footer-precache-size=32768, parquet.large-footer-precache-size=1048576, "
                        + "parquet.whole-file-size=3145728, parquet.large-file-size=1073741824}");
    }
}
