package io.rangefetch.internal.list;

import static java.util.Objects.requireNonNull;

/**
 * What one wanted location names, as an interval of keys: every key starting with {@code text} (a directory,
 * {@code t/p=1/}), or the one key equal to it. Targets from different locations may overlap; {@link ListingPlan}
 * makes them disjoint.
 */
record ListTarget(String text, boolean prefix) {

    ListTarget {
        requireNonNull(text, "text is null");
        if (text.isEmpty()) {
            throw new IllegalArgumentException("A listing target needs a key or a prefix");
        }
    }

    static ListTarget under(String prefix) {
        return new ListTarget(prefix, true);
    }

    static ListTarget exactly(String key) {
        return new ListTarget(key, false);
    }

    /** Where {@code key} lies: below the interval (negative), in it (0), above it (positive). */
    int position(String key) {
        if (prefix && key.startsWith(text)) {
            return 0;
        }
        return Integer.signum(Utf8Order.compare(key, text));
    }

    /** Whether every key of {@code other} is one of this target's. */
    boolean covers(ListTarget other) {
        return prefix ? other.text.startsWith(text) : !other.prefix && other.text.equals(text);
    }
}
