package io.rangefetch.benchmarks.run;

/**
 * Sets up what the proxy does to requests during a timed run ({@link FaultPlan}) and takes it away after.
 * The runner applies a plan just before it starts the clock and clears it as soon as the workload returns, so
 * neither a reader's session setup nor its closing meets a fault.
 */
public interface FaultInjector {

    /** From now on, treat requests as {@code plan} says, from the start of its seeded draws. */
    void apply(FaultPlan plan);

    /** From now on, no faults and no rate limit. */
    void clear();

    /** For runs with no proxy to inject anything: refuses any plan but {@link FaultPlan#NONE}. */
    static FaultInjector none() {
        return new FaultInjector() {
            @Override
            public void apply(FaultPlan plan) {
                if (!plan.isNone()) {
                    throw new IllegalArgumentException("faults need the shaping proxy, which runs only in front "
                            + "of an embedded server (not with --endpoint or --bucket): " + plan.describe());
                }
            }

            @Override
            public void clear() {}
        };
    }
}
