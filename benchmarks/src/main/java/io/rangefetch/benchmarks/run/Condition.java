package io.rangefetch.benchmarks.run;

import static java.util.Objects.requireNonNull;

/**
 * The conditions a row runs under: a name for tables and JSON ({@code "clean"}, {@code "throttle-10"}) and
 * what the proxy injects.
 */
public record Condition(String name, FaultPlan faults) {

    /** No faults: the network model alone. */
    public static final Condition CLEAN = new Condition("clean", FaultPlan.NONE);

    public Condition {
        requireNonNull(name, "name is null");
        requireNonNull(faults, "faults is null");
    }

    public boolean isClean() {
        return faults.isNone();
    }
}
