package io.rangefetch.benchmarks.listing;

import static java.util.Objects.requireNonNull;

/**
 * One (wanted set, strategy) row of the listing results: medians over the measured runs. Boxed fields are null
 * where a figure does not exist: every figure of a FAILED row, the counts where no proxy counted.
 *
 * @param set the wanted set's id
 * @param lists ListObjectsV2 calls the proxy counted
 * @param gets object GETs the proxy counted (a listing sends none)
 * @param objects the objects listed, every one checked
 * @param vsRangefetch median time over Rangefetch's on the same set
 * @param target the verdict on the targets, for Rangefetch's rows; null for the others
 */
public record ListingRow(String set, String strategy, String status, String failure, int runs, Double seconds,
        Long lists, Long gets, Long objects, Double vsRangefetch, String target) {

    public static final String OK = "OK";
    public static final String FAILED = "FAILED";

    public ListingRow {
        requireNonNull(set, "set is null");
        requireNonNull(strategy, "strategy is null");
        requireNonNull(status, "status is null");
    }

    public boolean failed() {
        return FAILED.equals(status);
    }

    ListingRow withTarget(String verdict) {
        return new ListingRow(set, strategy, status, failure, runs, seconds, lists, gets, objects, vsRangefetch,
                verdict);
    }
}
