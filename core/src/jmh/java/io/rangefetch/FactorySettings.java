package io.rangefetch;

import io.rangefetch.internal.plan.CoalescerSettings;

/**
 * The engine settings a factory derives from the default configuration, for the benchmarks that sit in an engine
 * package to reach what is package-private there: {@link EngineSettings}, which does the mapping, is package-private
 * here, and they should measure the very settings a factory gives, not a copy of that mapping.
 */
public final class FactorySettings {
    private FactorySettings() {}

    /** What a factory with the default configuration gives its {@code RangeCoalescer}. */
    public static CoalescerSettings defaultCoalescer() {
        return EngineSettings.coalescer(StreamConfig.defaults());
    }
}
