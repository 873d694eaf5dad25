package io.rangefetch.benchmarks.listing;

import io.rangefetch.benchmarks.data.StoredObject;
import io.rangefetch.benchmarks.readers.S3Target;
import io.rangefetch.benchmarks.readers.SdkClients;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * One ListObjectsV2 listing per wanted directory (its prefix, paged with continuation tokens), {@value #THREADS}
 * directories at a time, as Spark's parallel partition discovery, Hive and Trino list partitions: each directory
 * costs at least one call.
 */
final class PerLocationListing implements ListingStrategy {

    static final int THREADS = 8;

    @Override
    public String name() {
        return "per location (" + THREADS + " threads)";
    }

    @Override
    public String description() {
        return "one ListObjectsV2 listing per wanted directory (its prefix, paged), " + THREADS + " directories at a "
                + "time, as Spark, Hive and Trino list partitions; the SDK's default sync client";
    }

    @Override
    public Lister open(S3Target target) {
        S3Client s3 = SdkClients.syncWithDefaults(target);
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        return new Lister() {
            @Override
            public List<StoredObject> list(List<String> directories) throws IOException {
                List<Future<List<StoredObject>>> listings = new ArrayList<>(directories.size());
                for (String directory : directories) {
                    listings.add(pool.submit(() -> CommonPrefixListing.page(s3, target.bucket(), directory)
                            .toList()));
                }
                List<StoredObject> found = new ArrayList<>();
                try {
                    for (Future<List<StoredObject>> listing : listings) {
                        found.addAll(listing.get());
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new InterruptedIOException("interrupted listing " + directories.size() + " directories");
                } catch (ExecutionException e) {
                    throw new IOException("a listing failed: " + e.getCause(), e.getCause());
                }
                return found;
            }

            @Override
            public void close() {
                pool.shutdownNow();
                s3.close();
            }
        };
    }
}
