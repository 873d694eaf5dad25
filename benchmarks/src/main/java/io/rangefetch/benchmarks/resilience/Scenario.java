package io.rangefetch.benchmarks.resilience;

import static java.util.Objects.requireNonNull;

import io.rangefetch.StreamConfig;
import io.rangefetch.benchmarks.readers.RangefetchReader;
import io.rangefetch.benchmarks.readers.ReaderUnderTest;
import io.rangefetch.benchmarks.run.FaultPlan;
import io.rangefetch.benchmarks.run.FaultPlan.RateLimit;
import io.rangefetch.testing.proxy.Fault;
import java.util.Arrays;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/**
 * The resilience rows of issue 12: workloads run again under faults the proxy injects, each measured beside
 * the same reader's clean run. Rangefetch runs twice, with the feature that answers the fault on and off
 * ({@link #feature()}); every other reader once, as its users run it.
 *
 * <p>The targets are what Rangefetch (its feature on) is held to; the report says for each whether it was met.
 * They are figures to report, never asserted in a test: a busy machine misses them without a bug.
 */
public enum Scenario {
    THROTTLE_10(
            "throttle-10",
            "10% of GETs answered 503 SlowDown",
            List.of("projection", "sequential"),
            StreamConfig.THROTTLE_ENABLED.key(),
            "every run completes with the right bytes, in at most 1.3× the clean time",
            limit -> FaultPlan.random(Fault.SLOW_DOWN_503, 0.10)),

    THROTTLE_50(
            "throttle-50",
            "50% of GETs answered 503 SlowDown",
            List.of("projection", "sequential"),
            StreamConfig.THROTTLE_ENABLED.key(),
            "every run completes with the right bytes, in at most 3× the clean time",
            limit -> FaultPlan.random(Fault.SLOW_DOWN_503, 0.50)),

    RATE_LIMIT(
            "rate-limit",
            "8 concurrent readers against a request-rate limit",
            List.of("random"),
            StreamConfig.THROTTLE_ENABLED.key(),
            "with the governor, at least 80% fewer 503s received than without it, in at most 1.1× its time",
            FaultPlan::rateLimited),

    SLOW_FIRST_BYTE(
            "slow-first-byte",
            "2% of GETs held back 2 s before their first byte",
            List.of("random"),
            StreamConfig.HEDGE_ENABLED.key(),
            "with hedging, at most 1.3× the clean time, and a p99 read latency at most 3× the median",
            limit -> FaultPlan.random(Fault.FIRST_BYTE_DELAY, 0.02));

    private final String id;
    private final String title;
    private final List<String> workloads;
    private final String feature;
    private final String target;
    private final Function<RateLimit, FaultPlan> faults;

    Scenario(
            String id,
            String title,
            List<String> workloads,
            String feature,
            String target,
            Function<RateLimit, FaultPlan> faults) {
        this.id = id;
        this.title = title;
        this.workloads = workloads;
        this.feature = feature;
        this.target = target;
        this.faults = faults;
    }

    /** What the proxy injects; {@code rateLimit} is the limit {@code --rate-limit} chose. */
    public FaultPlan faults(RateLimit rateLimit) {
        return faults.apply(requireNonNull(rateLimit, "rateLimit is null"));
    }

    /** The name {@code --scenarios} takes and the reports show. */
    public String id() {
        return id;
    }

    public String title() {
        return title;
    }

    /** The workloads it runs, by name, in report order. */
    public List<String> workloads() {
        return workloads;
    }

    /** The {@link StreamConfig} flag Rangefetch runs with on and with off. */
    public String feature() {
        return feature;
    }

    /** What Rangefetch with {@link #feature()} on is to reach, in words. */
    public String target() {
        return target;
    }

    /**
     * What to run for {@code reader}: Rangefetch with the feature on, then off; any other reader as it is.
     */
    public List<Variant> variants(ReaderUnderTest reader) {
        requireNonNull(reader, "reader is null");
        if (reader instanceof RangefetchReader rangefetch) {
            return List.of(
                    new Variant(rangefetch.withSetting(feature, "true"), Optional.of("true")),
                    new Variant(rangefetch.withSetting(feature, "false"), Optional.of("false")));
        }
        return List.of(new Variant(reader, Optional.empty()));
    }

    /**
     * A reader as a scenario runs it.
     *
     * @param feature the scenario's feature setting, for Rangefetch; empty for other readers
     */
    public record Variant(ReaderUnderTest reader, Optional<String> feature) {
        public Variant {
            requireNonNull(reader, "reader is null");
            requireNonNull(feature, "feature is null");
        }
    }

    /** Every id, in report order. */
    public static List<String> ids() {
        return Arrays.stream(values()).map(Scenario::id).toList();
    }

    /** The scenario {@code id} names. */
    public static Scenario byId(String id) {
        return Arrays.stream(values())
                .filter(scenario -> scenario.id.equals(id))
                .findFirst()
                .orElseThrow(() -> new IllegalArgumentException(
                        "unknown scenario '" + id + "'; known: " + String.join(", ", ids())));
    }

    /** The named scenarios in report order, without repeats. */
    public static List<Scenario> select(Collection<String> ids) {
        Set<Scenario> wanted = new LinkedHashSet<>();
        ids.forEach(id -> wanted.add(byId(id)));
        return Arrays.stream(values()).filter(wanted::contains).toList();
    }
}
