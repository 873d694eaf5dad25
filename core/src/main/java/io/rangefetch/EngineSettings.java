package io.rangefetch;

import static io.rangefetch.StreamConfig.CONNECTION_BANDWIDTH;
import static io.rangefetch.StreamConfig.FETCH_MAX_CONCURRENCY;
import static io.rangefetch.StreamConfig.FIRST_BYTE_LATENCY;
import static io.rangefetch.StreamConfig.MAX_REQUEST_SIZE;
import static io.rangefetch.StreamConfig.MIN_REQUEST_SIZE;

import io.rangefetch.internal.fetch.ThrottleSettings;
import io.rangefetch.internal.list.ListingSettings;
import io.rangefetch.internal.plan.CoalescerSettings;
import io.rangefetch.internal.plan.PlannerSettings;
import io.rangefetch.internal.plan.RequestCostModel;
import io.rangefetch.internal.read.HedgeSettings;
import io.rangefetch.internal.read.Resilience;
import io.rangefetch.internal.read.RetrySettings;

/**
 * The engine's settings records, each built from a {@link StreamConfig} in one method here. The engine cannot
 * name the configuration (it sits below the API), and its records keep its unit tests simple: a test builds the
 * record it needs with the values it means. A setting the engine reads is therefore declared on
 * {@link StreamConfig} and read here, in the one method that builds its record.
 */
final class EngineSettings {
    private EngineSettings() {}

    /** The cost model the derived vectored sizes and the parallel part sizes follow from. */
    static RequestCostModel requestCostModel(StreamConfig config) {
        return new RequestCostModel(config.get(FIRST_BYTE_LATENCY), config.get(CONNECTION_BANDWIDTH));
    }

    /** How the engine tries a GET or HEAD again (see {@code retry.*}). */
    static RetrySettings retry(StreamConfig config) {
        return new RetrySettings(
                config.get(StreamConfig.RETRY_MAX_ATTEMPTS),
                config.get(StreamConfig.RETRY_BASE_DELAY),
                config.get(StreamConfig.RETRY_MAX_DELAY),
                config.get(StreamConfig.RETRY_DEADLINE));
    }

    /**
     * Retries, timeouts, the read deadline, the throttle governors and hedging. A governor starts at its ceiling or
     * at the factory's fetch concurrency, whichever is lower: the requests a factory sends at once.
     */
    static Resilience resilience(StreamConfig config) {
        return new Resilience(
                retry(config),
                config.get(StreamConfig.RETRY_FIRST_BYTE_TIMEOUT),
                config.get(StreamConfig.RETRY_BETWEEN_BYTES_TIMEOUT),
                config.get(StreamConfig.READ_DEADLINE),
                new ThrottleSettings(
                        config.get(StreamConfig.THROTTLE_ENABLED),
                        config.get(StreamConfig.THROTTLE_MIN_CONCURRENCY),
                        config.get(StreamConfig.THROTTLE_MAX_CONCURRENCY),
                        config.get(FETCH_MAX_CONCURRENCY),
                        config.get(StreamConfig.THROTTLE_INCREASE_STEP),
                        config.get(StreamConfig.THROTTLE_DECREASE_FACTOR),
                        config.get(StreamConfig.THROTTLE_NOISE_TEST)),
                new HedgeSettings(
                        config.get(StreamConfig.HEDGE_ENABLED),
                        config.get(StreamConfig.HEDGE_PERCENTILE),
                        config.get(StreamConfig.HEDGE_MIN_DELAY),
                        config.get(StreamConfig.HEDGE_MAX_FRACTION)));
    }

    /**
     * The planner's limits. A prefetch window is cut into as many parts as the fetch concurrency, each at least
     * one first-byte latency's worth of bytes ({@link RequestCostModel#minPartSize}).
     */
    static PlannerSettings planner(StreamConfig config) {
        return new PlannerSettings(
                config.get(MIN_REQUEST_SIZE),
                config.get(MAX_REQUEST_SIZE),
                config.get(StreamConfig.SMALL_OBJECT_SIZE),
                config.get(StreamConfig.SEQUENTIAL_READS),
                config.get(StreamConfig.PREFETCH_INITIAL_SIZE),
                config.get(StreamConfig.PREFETCH_MAX_SIZE),
                config.get(FETCH_MAX_CONCURRENCY),
                minPartSize(config),
                config.get(StreamConfig.SMALL_OBJECT_PART_SIZE));
    }

    /**
     * The coalescer's limits: merged requests are cut into parallel parts by the same rule as prefetch windows,
     * and split at gaps of at least the minimum request while connections would otherwise stay idle (a gap
     * below it costs less to read than the request skipping it).
     */
    static CoalescerSettings coalescer(StreamConfig config) {
        return new CoalescerSettings(
                config.get(StreamConfig.VECTORED_MIN_SEEK),
                config.get(StreamConfig.VECTORED_MAX_MERGED_SIZE),
                config.get(MAX_REQUEST_SIZE),
                config.get(StreamConfig.VECTORED_DISCARD_TOLERANCE),
                minPartSize(config),
                config.get(FETCH_MAX_CONCURRENCY),
                config.get(MIN_REQUEST_SIZE));
    }

    /** How a listing runs: {@code list.*}, and a reader waits for a page no longer than for a read. */
    static ListingSettings listing(StreamConfig config) {
        return new ListingSettings(
                config.get(StreamConfig.LIST_PAGE_SIZE),
                config.get(StreamConfig.LIST_CURSORS),
                config.get(StreamConfig.LIST_PARALLELISM),
                config.get(StreamConfig.READ_DEADLINE));
    }

    private static long minPartSize(StreamConfig config) {
        return requestCostModel(config).minPartSize(config.get(MIN_REQUEST_SIZE), config.get(MAX_REQUEST_SIZE));
    }
}
