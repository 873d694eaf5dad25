package io.rangefetch.benchmarks.data;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.ObjectIdentifier;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * Makes sure the server holds a {@link ListingLayout}'s objects and nothing else under its root, writing only
 * what it lacks. Checking tens of thousands of objects one HEAD at a time would take longer than measuring, so
 * the root is listed once: a key with the expected length is kept, a missing one is PUT (many at once: the
 * objects are tiny), and any other key under the root is deleted, since it would be listed too. Straight to the
 * server, not through the shaping proxy.
 */
public final class ListingPreparer {

    private static final int PARALLEL_PUTS = 16;
    private static final int DELETE_BATCH = 1_000; // DeleteObjects' most keys per request

    private final S3Client s3;
    private final String bucket;

    /** @param s3 a client that reaches the server directly; stays the caller's to close */
    public ListingPreparer(S3Client s3, String bucket) {
        this.s3 = requireNonNull(s3, "s3 is null");
        this.bucket = requireNonNull(bucket, "bucket is null");
    }

    /** Ensures the layout is stored; answers every object, in key order. */
    public List<StoredObject> ensure(ListingLayout layout) throws IOException {
        requireNonNull(layout, "layout is null");
        Map<String, S3Object> present = new HashMap<>();
        s3.listObjectsV2Paginator(request -> request.bucket(bucket).prefix(layout.root()))
                .contents()
                .forEach(object -> present.put(object.key(), object));
        List<String> keys = layout.keys();
        List<String> missing = new ArrayList<>();
        Map<String, StoredObject> stored = new HashMap<>();
        for (String key : keys) {
            S3Object object = present.remove(key);
            if (object != null && object.size() == ListingLayout.content(key).length) {
                stored.put(key, new StoredObject(key, object.size(), object.eTag()));
            } else {
                missing.add(key);
            }
        }
        deleteStrays(List.copyOf(present.keySet()));
        put(missing).forEach(object -> stored.put(object.key(), object));
        return keys.stream().map(stored::get).toList();
    }

    private void deleteStrays(List<String> strays) {
        for (int from = 0; from < strays.size(); from += DELETE_BATCH) {
            List<String> batch = strays.subList(from, Math.min(strays.size(), from + DELETE_BATCH));
            s3.deleteObjects(request -> request.bucket(bucket)
                    .delete(delete -> delete.objects(batch.stream()
                            .map(key -> ObjectIdentifier.builder().key(key).build())
                            .toList())));
        }
    }

    private List<StoredObject> put(List<String> keys) throws IOException {
        if (keys.isEmpty()) {
            return List.of();
        }
        ExecutorService pool = Executors.newFixedThreadPool(PARALLEL_PUTS);
        try (ProgressBar bar = new ProgressBarBuilder()
                .setTaskName("Generating " + keys.size() + " listing object(s)")
                .setInitialMax(keys.size())
                .setUnit(" objects", 1)
                .build()) {
            List<Future<StoredObject>> puts = new ArrayList<>(keys.size());
            for (String key : keys) {
                puts.add(pool.submit(() -> {
                    byte[] content = ListingLayout.content(key);
                    String etag = s3.putObject(
                                    request -> request.bucket(bucket).key(key), RequestBody.fromBytes(content))
                            .eTag();
                    bar.step();
                    return new StoredObject(key, content.length, etag);
                }));
            }
            List<StoredObject> stored = new ArrayList<>(keys.size());
            for (Future<StoredObject> put : puts) {
                stored.add(put.get());
            }
            return stored;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted writing the listing's objects");
        } catch (ExecutionException e) {
            throw new IOException("writing the listing's objects failed: " + e.getCause(), e.getCause());
        } finally {
            pool.shutdownNow();
        }
    }
}
