package io.rangefetch.internal.plan;

/**
 * The caller's hint, as the planner needs it.
 *
 * <p><b>Public because</b> {@code io.rangefetch.FormatPolicies} maps a read policy to it, and {@code internal.read}
 * hands it to the planners.
 */
public enum AccessHint {
    /** Detect sequential access from the reads. */
    DETECT,
    /** Sequential from the first read. */
    SEQUENTIAL,
    /** Never prefetch. */
    RANDOM
}
