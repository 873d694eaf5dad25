package io.rangefetch;

import static java.util.Objects.requireNonNull;

import io.rangefetch.OpenOptions.ReadPolicy;
import io.rangefetch.format.FormatPolicy;
import io.rangefetch.internal.format.OrcFormatPolicy;
import io.rangefetch.internal.format.TextFormatPolicy;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A factory's format policies and the rule that picks one for a stream: the caller's read policy hint when it
 * names a format ({@link ReadPolicy#formatName()}), else the key's extension. Extensions are matched at the very
 * end of the key, case-insensitively, each one quoted into the pattern (a {@code .} in a configured extension
 * is a dot, not any character). A known extension followed by a compression suffix ({@code x.csv.gz},
 * {@code x.parquet.zst}) goes to the {@code text} policy: a compressed object is read front to back through a
 * decompressor whatever it holds. {@link ReadPolicy#RANDOM} chooses no policy: the caller asked that nothing be
 * read ahead. Immutable.
 *
 * <p>The built-in policies (text, ORC) are core's own and made here; the {@link ServiceLoader} finds the others
 * (Parquet, from its module), so a format that is not core's touches nothing here.
 */
final class FormatPolicies {
    static final String TEXT = "text";
    private static final Logger LOG = LoggerFactory.getLogger(FormatPolicies.class);

    private final Map<String, FormatPolicy> byName;
    private final Pattern compressed;
    private final Map<String, Pattern> byExtension;

    private FormatPolicies(Collection<FormatPolicy> policies, StreamConfig config) {
        Map<String, FormatPolicy> named = new LinkedHashMap<>();
        for (FormatPolicy policy : policies) {
            String name = requireNonNull(policy.name(), () -> policy.getClass().getName() + " has no name");
            FormatPolicy previous = named.putIfAbsent(name, policy);
            if (previous != null) {
                LOG.warn(
                        "Two format policies are named '{}': {} is used, {} is not",
                        name,
                        previous.getClass().getName(),
                        policy.getClass().getName());
            }
        }
        this.byName = Map.copyOf(named);
        Map<String, Pattern> patterns = new LinkedHashMap<>();
        List<String> every = new ArrayList<>();
        config.get(StreamConfig.FORMAT_EXTENSIONS).forEach((name, extensions) -> {
            if (!extensions.isEmpty()) {
                patterns.put(name, endsWithOneOf(extensions, List.of()));
                every.addAll(extensions);
            }
        });
        this.byExtension = patterns;
        List<String> compressedExtensions = config.get(StreamConfig.FORMAT_COMPRESSED_EXTENSIONS);
        this.compressed =
                every.isEmpty() || compressedExtensions.isEmpty() ? null : endsWithOneOf(every, compressedExtensions);
    }

    /** The built-in policies and those on the class path of this class's loader ({@link ServiceLoader}). */
    static FormatPolicies discover(StreamConfig config) {
        return new FormatPolicies(load(), config);
    }

    /** The settings the policies {@link #discover} finds declare, as {@link #declaredSettings} takes them. */
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

    private static List<FormatPolicy> load() {
        List<FormatPolicy> found = new ArrayList<>(List.of(new TextFormatPolicy(), new OrcFormatPolicy()));
        ServiceLoader<FormatPolicy> loader =
                ServiceLoader.load(FormatPolicy.class, FormatPolicies.class.getClassLoader());
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

    /** Exactly {@code policies}, as a caller gave them. */
    static FormatPolicies of(Collection<FormatPolicy> policies, StreamConfig config) {
        return new FormatPolicies(policies, config);
    }

    /** The policy for {@code key} opened with {@code hint}, if any. */
    Optional<FormatPolicy> choose(String key, ReadPolicy hint) {
        if (hint == ReadPolicy.RANDOM) {
            return Optional.empty();
        }
        Optional<String> named = hint.formatName();
        if (named.isPresent()) {
            FormatPolicy policy = byName.get(named.get());
            if (policy == null) {
                LOG.debug("No format policy '{}' is installed; {} is read without one", named.get(), key);
            }
            return Optional.ofNullable(policy);
        }
        if (compressed != null && compressed.matcher(key).matches()) {
            return Optional.ofNullable(byName.get(TEXT));
        }
        for (Map.Entry<String, Pattern> entry : byExtension.entrySet()) {
            if (entry.getValue().matcher(key).matches()) {
                return Optional.ofNullable(byName.get(entry.getKey()));
            }
        }
        return Optional.empty();
    }

    /**
     * How a session's read policy shapes streaming reads: {@code SEQUENTIAL} and {@code RANDOM} as they say, every
     * other value (which names a format, not a way of reading) as {@code AUTO}.
     */
    static ReadPolicy streamingPolicyOf(ReadPolicy policy) {
        return switch (policy) {
            case SEQUENTIAL, RANDOM -> policy;
            case AUTO, COLUMNAR, PARQUET, ORC, TEXT -> ReadPolicy.AUTO;
        };
    }

    /** The installed policies' names. */
    Collection<String> names() {
        return byName.keySet();
    }

    /** Anchored: anything, then a dot and one of {@code extensions}, then (if given) a dot and one of {@code then}. */
    private static Pattern endsWithOneOf(List<String> extensions, List<String> then) {
        StringBuilder regex = new StringBuilder("^.*\\.").append(alternatives(extensions));
        if (!then.isEmpty()) {
            regex.append("\\.").append(alternatives(then));
        }
        return Pattern.compile(regex.append('$').toString(), Pattern.CASE_INSENSITIVE | Pattern.DOTALL);
    }

    private static String alternatives(List<String> extensions) {
        return extensions.stream().map(Pattern::quote).collect(Collectors.joining("|", "(?:", ")"));
    }
}
