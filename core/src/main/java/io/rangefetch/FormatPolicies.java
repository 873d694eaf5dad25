package io.rangefetch;

import static java.util.Objects.requireNonNull;

import io.rangefetch.OpenOptions.ReadPolicy;
import io.rangefetch.client.S3Location;
import io.rangefetch.format.FormatPolicy;
import io.rangefetch.format.FormatPolicy.FormatSession;
import io.rangefetch.internal.plan.AccessHint;
import io.rangefetch.internal.read.ObjectReader;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executor;
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
 * <p>Which policies are installed, and which settings they declare, is {@link InstalledFormatPolicies}'s to say:
 * {@link StreamConfig} asks it too, for the keys it reads, and neither asks the other.
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

    /** The installed policies ({@link InstalledFormatPolicies}). */
    static FormatPolicies discover(StreamConfig config) {
        return new FormatPolicies(InstalledFormatPolicies.load(), config);
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
     * Opens the session of the policy {@code location}'s stream gets ({@link #choose}), and shapes the stream's reads
     * as it says: how it streams, where prefetch ends, how small an object is read whole, and the tail it reads at
     * open. {@link FormatSession#NONE} when no policy applies; the reader is then left as opened.
     */
    FormatSession open(
            S3Location location, OpenOptions options, StreamConfig config, ObjectReader reader, Executor executor) {
        FormatSession session = choose(location.key(), options.readPolicy())
                .map(policy -> GuardedFormatSession.open(
                        policy, new StreamFormatView(location, options, config, reader, executor)))
                .orElse(FormatSession.NONE);
        if (session == FormatSession.NONE) {
            return session;
        }
        ReadPolicy pattern = options.readPolicy() == ReadPolicy.SEQUENTIAL
                ? ReadPolicy.SEQUENTIAL
                : streamingPolicyOf(session.readPolicy());
        reader.shapeReads(
                accessHintOf(pattern),
                session.prefetchEnd(),
                session::structureEnd,
                session.smallObjectSize().orElse(config.get(StreamConfig.SMALL_OBJECT_SIZE)));
        long tail = session.openTailSize();
        if (tail > 0) {
            reader.startOpenTailFetch(tail, session::opened);
        } else if (reader.knownLength() >= 0) {
            session.opened();
        }
        return session;
    }

    /** How the engine reads for a read policy: {@code TEXT} streams, the formats' and {@code AUTO} detect. */
    static AccessHint accessHintOf(ReadPolicy policy) {
        return switch (policy) {
            case SEQUENTIAL, TEXT -> AccessHint.SEQUENTIAL;
            case RANDOM -> AccessHint.RANDOM;
            case AUTO, COLUMNAR, PARQUET, ORC -> AccessHint.DETECT;
        };
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
