package io.rangefetch.benchmarks.listing;

import io.rangefetch.benchmarks.data.StoredObject;
import io.rangefetch.benchmarks.readers.S3Target;
import io.rangefetch.benchmarks.readers.SdkClients;
import java.util.List;
import java.util.TreeSet;
import java.util.stream.Stream;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The wanted directories' common prefix (the table's directory) listed page by page, 1,000 keys a page, keeping
 * the keys under a wanted directory: as many calls as the table has keys / 1,000, however few are wanted.
 */
final class CommonPrefixListing implements ListingStrategy {

    @Override
    public String name() {
        return "common prefix";
    }

    @Override
    public String description() {
        return "ListObjectsV2 over the wanted directories' common prefix page by page (1,000 keys a page), keeping "
                + "the keys under a wanted directory; the SDK's default sync client";
    }

    @Override
    public Lister open(S3Target target) {
        S3Client s3 = SdkClients.syncWithDefaults(target);
        return new Lister() {
            @Override
            public List<StoredObject> list(List<String> directories) {
                TreeSet<String> wanted = new TreeSet<>(directories);
                String prefix = WantedSet.commonPrefix(directories);
                return page(s3, target.bucket(), prefix)
                        .filter(object -> WantedSet.isUnder(wanted, object.key()))
                        .toList();
            }

            @Override
            public void close() {
                s3.close();
            }
        };
    }

    /** Every object under {@code prefix}, in key order, one ListObjectsV2 page after another as read. */
    static Stream<StoredObject> page(S3Client s3, String bucket, String prefix) {
        return s3.listObjectsV2Paginator(request -> request.bucket(bucket).prefix(prefix)).contents().stream()
                .map(object -> new StoredObject(object.key(), object.size(), object.eTag()));
    }
}
