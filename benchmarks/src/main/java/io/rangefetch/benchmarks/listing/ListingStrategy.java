package io.rangefetch.benchmarks.listing;

import io.rangefetch.benchmarks.data.StoredObject;
import io.rangefetch.benchmarks.readers.S3Target;
import java.io.IOException;
import java.util.List;

/** One way to find the objects under many partition directories, measured by the listing workload. */
public interface ListingStrategy {

    /** The row name in reports, e.g. {@code "Rangefetch"}. */
    String name();

    /** One line on how it lists, for the report. */
    String description();

    /** Creates this strategy's clients for one run against {@code target}; not timed. */
    Lister open(S3Target target) throws IOException;

    /** A strategy's clients for one run. Closing releases every client and thread it created. */
    interface Lister extends AutoCloseable {

        /**
         * The objects under {@code directories} (in key order, no repeats), in key order, with their lengths and
         * ETags as the listing gave them.
         */
        List<StoredObject> list(List<String> directories) throws IOException;

        @Override
        void close() throws IOException;
    }

    /** Rangefetch's, one listing per directory on 8 threads, and the common prefix paged through; in report order. */
    static List<ListingStrategy> all() {
        return List.of(new RangefetchListing(), new PerLocationListing(), new CommonPrefixListing());
    }
}
