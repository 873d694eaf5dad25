package io.rangefetch.format;

/**
 * How a format session wants its stream's streaming reads shaped ({@link FormatSession#accessPattern()}). A
 * policy knows the format, so it can say up front what the stream would otherwise learn from the reads: a text
 * file is read front to back, and waiting for a few reads to prove it costs round trips.
 *
 * <p>Only the three shapes the stream can act on: which format reads a stream is chosen before its session
 * exists, so the caller's hints that name a format have no place here.
 */
public enum AccessPattern {
    /** No opinion: the stream watches the reads and prefetches once they prove sequential. */
    AUTO,
    /** Front to back: streaming reads prefetch from the first one on. */
    SEQUENTIAL,
    /** Scattered: never prefetch, and fetch no more than the minimum request around a read. */
    RANDOM
}
