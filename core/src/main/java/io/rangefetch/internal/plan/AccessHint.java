package io.rangefetch.internal.plan;

/** The caller's hint, as the planner needs it. */
public enum AccessHint {
    /** Detect sequential access from the reads. */
    DETECT,
    /** Sequential from the first read. */
    SEQUENTIAL,
    /** Never prefetch. */
    RANDOM
}
