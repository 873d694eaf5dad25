package io.rangefetch;

import io.rangefetch.format.FormatPolicy;
import io.rangefetch.internal.format.OrcFormatPolicy;
import io.rangefetch.internal.format.TextFormatPolicy;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The format policies installed with Rangefetch: core's own (text, ORC), made here, and those on the class path of
 * this class's loader, found by the {@link ServiceLoader} (Parquet, from its module), and the settings they declare.
 * Both {@link StreamConfig} (which keys {@code fromProperties} reads) and {@link FormatPolicies} (which policy a
 * stream gets) ask here, so neither loads the other. Stateless: each call looks again.
 */
final class InstalledFormatPolicies {
    private static final Logger LOG = LoggerFactory.getLogger(InstalledFormatPolicies.class);

    private InstalledFormatPolicies() {}

    /** The settings the installed policies declare, as {@link #declaredSettings} takes them. */
    static List<Setting<?>> loadedSettings(Set<String> taken) {
        return declaredSettings(load(), taken);
    }

    /**
     * The settings {@code policies} declare, in their order; a setting whose key is not under its policy's name,
     * or is in {@code taken} or already declared by another policy, is left out with a warning (it would shadow a
     * setting, or be read by two policies), and so are all of a policy's settings when it fails to give them.
     */
    static List<Setting<?>> declaredSettings(List<FormatPolicy> policies, Set<String> taken) {
        Set<String> keys = new HashSet<>(taken);
        List<Setting<?>> settings = new ArrayList<>();
        for (FormatPolicy policy : policies) {
            List<Setting<?>> declared;
            String namespace;
            try {
                declared = List.copyOf(policy.settings());
                namespace = policy.name() + ".";
            } catch (RuntimeException | LinkageError e) {
                LOG.warn(
                        "The settings of format policy {} could not be read and are not known: {}",
                        policy.getClass().getName(),
                        e.getMessage(),
                        e);
                continue;
            }
            for (Setting<?> setting : declared) {
                if (!setting.key().startsWith(namespace) || !keys.add(setting.key())) {
                    LOG.warn(
                            "Format policy {} declares setting '{}', which is not under '{}' or is taken; it is "
                                    + "not read from properties",
                            policy.getClass().getName(),
                            setting.key(),
                            namespace);
                    continue;
                }
                settings.add(setting);
            }
        }
        return settings;
    }

    /** Core's own policies (text, ORC), then those the {@link ServiceLoader} finds; one that fails to load is left out. */
    static List<FormatPolicy> load() {
        List<FormatPolicy> found = new ArrayList<>(List.of(new TextFormatPolicy(), new OrcFormatPolicy()));
        ServiceLoader<FormatPolicy> loader =
                ServiceLoader.load(FormatPolicy.class, InstalledFormatPolicies.class.getClassLoader());
        var providers = loader.iterator();
        while (true) {
            try {
                if (!providers.hasNext()) {
                    break;
                }
                found.add(providers.next());
            } catch (ServiceConfigurationError e) {
                LOG.warn("A format policy could not be loaded and is not used: {}", e.getMessage(), e);
            }
        }
        return found;
    }
}
