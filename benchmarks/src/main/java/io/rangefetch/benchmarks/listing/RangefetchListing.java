package io.rangefetch.benchmarks.listing;

import io.rangefetch.ObjectListing;
import io.rangefetch.benchmarks.data.StoredObject;
import io.rangefetch.benchmarks.readers.RangefetchAccess;
import io.rangefetch.benchmarks.readers.RangefetchReader;
import io.rangefetch.benchmarks.readers.ReaderSession;
import io.rangefetch.benchmarks.readers.S3Target;
import io.rangefetch.client.ListedObject;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/** {@code StreamFactory.list} over every wanted directory at once, on the runner's Rangefetch reader's factory. */
final class RangefetchListing implements ListingStrategy {

    private final RangefetchReader reader = new RangefetchReader();

    @Override
    public String name() {
        return "Rangefetch";
    }

    @Override
    public String description() {
        return "StreamFactory.list with every wanted directory (cursors over common prefixes skipping with "
                + "StartAfter), on the factory of the reader " + reader.name() + " (" + reader.configuration() + ")";
    }

    @Override
    public Lister open(S3Target target) {
        ReaderSession session = reader.openSession(target);
        RangefetchAccess rangefetch = session.rangefetch();
        return new Lister() {
            @Override
            public List<StoredObject> list(List<String> directories) throws IOException {
                List<StoredObject> found = new ArrayList<>();
                try (ObjectListing listing = rangefetch
                        .factory()
                        .list(directories.stream().map(rangefetch::location).toList())) {
                    for (ListedObject object : listing.toList()) {
                        found.add(new StoredObject(object.location().key(), object.length(), object.etag()));
                    }
                }
                return found;
            }

            @Override
            public void close() throws IOException {
                session.close();
            }
        };
    }
}
