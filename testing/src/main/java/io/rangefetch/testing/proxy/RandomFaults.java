package io.rangefetch.testing.proxy;

import static java.util.Objects.requireNonNull;

import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;
import java.util.Random;

/**
 * A plan of faults a {@link ShapingProxy} draws at random, one draw per GET ({@link
 * ShapingProxy#setRandomFaults(RandomFaults)}): each fault has its probability, and with what is left
 * (one minus their sum) the GET is not failed.
 *
 * <pre>{@code
 * proxy.setRandomFaults(RandomFaults.seeded(42).with(Fault.SLOW_DOWN_503, 0.05).with(Fault.RESET_MID_BODY, 0.01));
 * }</pre>
 *
 * <p>A draw takes exactly one {@code nextDouble()} from the proxy's {@code new Random(seed)} and maps it
 * onto the faults in their declaration order, whatever order they were added in: so a seed and an order
 * of requests always give the same faults. Immutable.
 *
 * @param seed the seed of the proxy's {@link Random}
 * @param probabilities each fault's probability per GET; unmodifiable, in {@link Fault} order
 */
public record RandomFaults(long seed, Map<Fault, Double> probabilities) {

    // sums of decimal fractions miss 1 by an ulp or two (0.1 + 0.2 + 0.7 > 1): such a plan is meant
    private static final double SUM_TOLERANCE = 1e-9;

    /** Validates and copies {@code probabilities}: each in [0, 1], their sum at most 1. */
    public RandomFaults {
        requireNonNull(probabilities, "probabilities is null");
        EnumMap<Fault, Double> copy = new EnumMap<>(Fault.class);
        double sum = 0;
        for (Map.Entry<Fault, Double> entry : probabilities.entrySet()) {
            Fault fault = requireNonNull(entry.getKey(), "a fault is null");
            double probability = requireNonNull(entry.getValue(), "the probability of " + fault + " is null");
            if (!(probability >= 0 && probability <= 1)) {
                throw new IllegalArgumentException(
                        "the probability of " + fault + " must be in [0, 1]: " + probability);
            }
            copy.put(fault, probability);
            sum += probability;
        }
        if (sum > 1 + SUM_TOLERANCE) {
            throw new IllegalArgumentException(
                    "fault probabilities must add up to at most 1, these add up to " + sum + ": " + copy);
        }
        probabilities = Collections.unmodifiableMap(copy);
    }

    /** A plan with no fault yet, drawn from {@code new Random(seed)}. */
    public static RandomFaults seeded(long seed) {
        return new RandomFaults(seed, Map.of());
    }

    /**
     * This plan and {@code fault} with {@code probability} per GET.
     *
     * @throws IllegalArgumentException if {@code probability} is not in [0, 1], if the sum of all would
     *     pass 1, or if the plan already has {@code fault}
     */
    public RandomFaults with(Fault fault, double probability) {
        requireNonNull(fault, "fault is null");
        if (probabilities.containsKey(fault)) {
            throw new IllegalArgumentException(
                    fault + " is already in the plan with probability " + probabilities.get(fault) + ": " + this);
        }
        EnumMap<Fault, Double> more = new EnumMap<>(Fault.class);
        more.putAll(probabilities);
        more.put(fault, probability);
        return new RandomFaults(seed, more);
    }

    /** One GET's fault, or null for none; takes one double from {@code random}. */
    Fault draw(Random random) {
        double value = random.nextDouble();
        double bound = 0;
        for (Map.Entry<Fault, Double> entry : probabilities.entrySet()) {
            bound += entry.getValue();
            if (value < bound) {
                return entry.getKey();
            }
        }
        return null;
    }

    @Override
    public String toString() {
        return "RandomFaults{seed " + seed + ", " + probabilities + "}";
    }
}
