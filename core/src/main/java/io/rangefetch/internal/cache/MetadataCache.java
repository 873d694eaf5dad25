package io.rangefetch.internal.cache;

import static java.util.Objects.requireNonNull;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Ticker;
import io.rangefetch.client.ObjectClient.ObjectMetadata;
import io.rangefetch.internal.identity.AccessIdentity;
import java.time.Duration;
import java.util.Optional;

/**
 * Lengths and ETags learned from earlier requests, trusted for a limited time, so that a stream opened again on
 * the same object needs no request to learn them and finds the cached bytes of that version. A stale entry
 * costs at most one 412, after which the stream moves to the new version. What one identity learned is told to that
 * identity only: a stream of another (other credentials, another SSE-C key or none) learns the object's length and
 * ETag from its own request, which S3 may refuse. Maintenance runs on the calling
 * thread, never on the common pool; time comes from the injected ticker.
 *
 * <p><b>Public because</b> {@code io.rangefetch.StreamFactory} makes it and looks objects up in it, and
 * {@code internal.read.ObjectVersion} stores and drops what it learns of an object.
 */
public final class MetadataCache {
    private final Cache<Key, ObjectMetadata> entries;

    public MetadataCache(Duration ttl, int maxEntries, Ticker ticker) {
        this.entries = Caffeine.newBuilder()
                .expireAfterWrite(ttl)
                .maximumSize(maxEntries)
                .ticker(ticker)
                .executor(Runnable::run)
                .build();
    }

    public Optional<ObjectMetadata> get(String bucket, String key, String versionId, AccessIdentity identity) {
        return Optional.ofNullable(entries.getIfPresent(new Key(bucket, key, versionId, identity)));
    }

    public void put(String bucket, String key, String versionId, AccessIdentity identity, ObjectMetadata metadata) {
        entries.put(new Key(bucket, key, versionId, identity), metadata);
    }

    public void invalidate(String bucket, String key, String versionId, AccessIdentity identity) {
        entries.invalidate(new Key(bucket, key, versionId, identity));
    }

    public void clear() {
        entries.invalidateAll();
    }

    private record Key(String bucket, String key, String versionId, AccessIdentity identity) {
        Key {
            requireNonNull(identity, "identity is null");
        }
    }
}
