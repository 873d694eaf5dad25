package io.rangefetch;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * docs/CONFIGURATION.md against core's declarations, beyond what {@link SettingsContract} checks of each setting:
 * the page documents no key that core's namespaces do not declare. (Each module that declares settings checks
 * their rows through its own contract; the Parquet module, which sees every setting, checks the whole table.)
 */
class ConfigurationDocTest {

    @Test
    void everyRowInANamespaceOfCoreIsAKeyCoreDeclares() throws IOException {
        Set<String> keys = StreamConfig.keys();
        Set<String> namespaces =
                keys.stream().map(ConfigurationDocTest::namespace).collect(Collectors.toSet());
        assertThat(SettingsContract.rows().stream()
                        .map(SettingsContract.Row::key)
                        .filter(key -> namespaces.contains(namespace(key))))
                .containsExactlyElementsOf(keys);
    }

    private static String namespace(String key) {
        return key.substring(0, key.indexOf('.') + 1);
    }
}
