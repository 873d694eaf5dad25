package io.rangefetch.benchmarks.readers;

import java.io.IOException;

/**
 * One way of reading S3 objects that the runner measures: Rangefetch, or a stream users run today,
 * configured as its users run it by default. Implementations are stateless; every measured run opens a fresh
 * {@link ReaderSession}, so no run profits from a cache an earlier run filled.
 */
public interface ReaderUnderTest {

    /** The short name in tables and charts, e.g. {@code "S3A classic"}. */
    String name();

    /** One line on how this reader is configured, for the report. */
    String configuration();

    /**
     * Whether this reader is an Iceberg FileIO, whose sessions answer {@link ReaderSession#icebergFileIO()}: the
     * workloads that read an Iceberg table run only on those.
     */
    default boolean isIcebergFileIO() {
        return false;
    }

    /**
     * Whether this reader's sessions answer {@link ReaderSession#rangefetch()}: the workloads of Rangefetch's own
     * features (listing, then opening what was listed) run only on those.
     */
    default boolean isRangefetch() {
        return false;
    }

    /** Creates this reader's clients (and caches, pools) for one run against {@code target}. */
    ReaderSession openSession(S3Target target) throws IOException;
}
