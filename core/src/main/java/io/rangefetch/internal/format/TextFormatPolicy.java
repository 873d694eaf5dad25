package io.rangefetch.internal.format;

import io.rangefetch.OpenOptions.ReadPolicy;
import io.rangefetch.format.FormatPolicy;
import io.rangefetch.format.FormatPolicy.FormatSession;
import io.rangefetch.format.FormatPolicy.FormatStream;

/**
 * Text objects (CSV, JSON lines, logs, and anything compressed): read front to back, so streaming reads prefetch
 * from the first one on, without waiting for the reads to prove themselves sequential, and the window grows
 * from there. A caller's split ({@link FormatStream#splitEnd()}) bounds the prefetch: nothing past the split's
 * end is read ahead, since those bytes are the next task's; the few bytes a reader reads past it to finish its
 * last record come with requests of the minimum size.
 *
 * <p>Nothing is fetched at open: positioned reads of a text object (a sampler, an index lookup) fetch only what
 * they ask for, as they would without a policy.
 *
 * <p><b>Public because</b> {@code io.rangefetch.FormatPolicies} makes it, one of the built-in policies.
 */
public final class TextFormatPolicy implements FormatPolicy {

    /** The policy has no state: each factory makes one. */
    public TextFormatPolicy() {}

    @Override
    public String name() {
        return "text";
    }

    @Override
    public FormatSession open(FormatStream stream) {
        long splitEnd = stream.splitEnd().orElse(Long.MAX_VALUE);
        return new FormatSession() {
            @Override
            public ReadPolicy readPolicy() {
                return ReadPolicy.SEQUENTIAL;
            }

            @Override
            public long prefetchEnd() {
                return splitEnd;
            }
        };
    }
}
