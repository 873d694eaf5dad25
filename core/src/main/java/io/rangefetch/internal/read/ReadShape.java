package io.rangefetch.internal.read;

import static java.util.Objects.requireNonNull;

import io.rangefetch.internal.plan.AccessHint;
import io.rangefetch.internal.plan.RangeCoalescer;
import io.rangefetch.internal.plan.ReadPlanner;
import io.rangefetch.internal.plan.VectoredPlanner;
import java.nio.ByteBuffer;
import java.util.function.LongUnaryOperator;

/**
 * How one stream's reads are planned, as its format policy shaped them: the access pattern, the offset sequential
 * prefetch stops at, where the format's structure holding a position ends (a streaming read's prefetch stops there
 * too), and the planner (the factory's, or one reading fewer objects whole).
 *
 * <p>Immutable: a stream holds one and replaces it whole, before it is handed out, so every read plans with the
 * four parts of one decision.
 *
 * @param prefetchEnd the offset sequential prefetch never goes past, or {@code Long.MAX_VALUE}
 * @param structureEnd where the format's structure holding a position ends, or {@code Long.MAX_VALUE}
 */
record ReadShape(AccessHint hint, long prefetchEnd, LongUnaryOperator structureEnd, ReadPlanner planner) {
    private static final LongUnaryOperator NO_STRUCTURE = position -> Long.MAX_VALUE;

    ReadShape {
        requireNonNull(hint, "hint is null");
        requireNonNull(structureEnd, "structureEnd is null");
        requireNonNull(planner, "planner is null");
    }

    /** The shape of a stream no format policy shaped: prefetch may reach the object's end. */
    static ReadShape unshaped(AccessHint hint, ReadPlanner planner) {
        return new ReadShape(hint, Long.MAX_VALUE, NO_STRUCTURE, planner);
    }

    /**
     * The request that learns the version, for {@code length} bytes at {@code position} (or the last ones,
     * {@code tail}), written at {@code index} of {@code buffer} when a reader waits for them there ({@code null}:
     * nobody does).
     */
    FirstFetch.Shape firstFetch(long position, int length, boolean tail, ByteBuffer buffer, int index) {
        return new FirstFetch.Shape(position, length, tail, hint, prefetchEnd, planner, buffer, index);
    }

    /** The planner of vectored reads and prefetches, with this shape's planner. */
    VectoredPlanner vectoredPlanner(RangeCoalescer coalescer) {
        return new VectoredPlanner(planner, coalescer);
    }
}
