package io.rangefetch;

import static java.util.Objects.requireNonNull;

import io.rangefetch.client.ListedObject;
import io.rangefetch.client.S3Location;
import io.rangefetch.internal.fetch.FetchScheduler;
import io.rangefetch.internal.list.ListingSettings;
import io.rangefetch.internal.list.ParallelListing;
import io.rangefetch.internal.time.TimeSource;
import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.CharsetEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Optional;
import java.util.Spliterator;
import java.util.Spliterators;
import java.util.function.Consumer;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;

/**
 * The objects under many locations, from {@link StreamFactory#list}: in key order (buckets in name order, then
 * keys in UTF-8 binary order, as S3 lists them), each once, read lazily. Its LIST requests run in the background,
 * a page or so ahead of the reader; {@link #close()} stops them and drops what they hold, so close a listing read
 * only in part (try-with-resources). A listing ends, too, when its factory closes: its next read then fails.
 *
 * <p>Not for sharing between threads: one reader reads it (its background work is the factory's).
 */
public final class ObjectListing implements Closeable {
    /** S3's longest key, in bytes of UTF-8. */
    private static final int MAX_KEY_BYTES = 1024;

    private final ParallelListing listing;

    /**
     * Starts listing {@code locations} (see {@link StreamFactory#list}): checks every location, groups the keys by
     * bucket, and hands them to a {@link ParallelListing} whose pages {@code sender} sends and whose finds go to
     * {@code learned}.
     *
     * @throws IllegalArgumentException if a location is null, or its key is longer than S3 allows or not valid
     *     Unicode
     */
    static ObjectListing start(
            Collection<S3Location> locations,
            ListingSettings settings,
            FetchScheduler scheduler,
            TimeSource time,
            ParallelListing.PageSender sender,
            Consumer<ListedObject> learned) {
        Map<String, List<String>> keysByBucket = new HashMap<>();
        for (S3Location location : locations) {
            if (location == null) {
                throw new IllegalArgumentException("A location to list is null: " + locations);
            }
            checkListableKey(location);
            keysByBucket
                    .computeIfAbsent(location.bucket(), bucket -> new ArrayList<>())
                    .add(location.key());
        }
        return new ObjectListing(ParallelListing.start(keysByBucket, settings, scheduler, time, sender, learned));
    }

    private static void checkListableKey(S3Location location) {
        String key = location.key();
        CharsetEncoder encoder = StandardCharsets.UTF_8.newEncoder();
        if (!encoder.canEncode(key)) {
            throw new IllegalArgumentException("Cannot list " + location + ": its key is not valid Unicode");
        }
        int bytes = key.getBytes(StandardCharsets.UTF_8).length;
        if (bytes > MAX_KEY_BYTES) {
            throw new IllegalArgumentException("Cannot list " + location + ": its key is " + bytes
                    + " bytes of UTF-8, longer than S3 allows (" + MAX_KEY_BYTES + ")");
        }
    }

    ObjectListing(ParallelListing listing) {
        this.listing = requireNonNull(listing, "listing is null");
    }

    /**
     * The next object, or empty at the end. Waits for the page that holds it, no longer than {@code read.deadline};
     * fails with an {@link IOException} naming the bucket and prefix whose listing failed (a missing bucket:
     * {@link java.io.FileNotFoundException}), or {@link java.io.InterruptedIOException} when interrupted.
     */
    public Optional<ListedObject> next() throws IOException {
        return Optional.ofNullable(listing.next());
    }

    /** Reads the rest of the listing. */
    public List<ListedObject> toList() throws IOException {
        List<ListedObject> all = new ArrayList<>();
        for (Optional<ListedObject> next = next(); next.isPresent(); next = next()) {
            all.add(next.get());
        }
        return all;
    }

    /**
     * The rest of the listing as a lazy stream, for pipelines. As with {@code Files.lines}, a failure comes as an
     * {@link UncheckedIOException} whose cause is the {@link IOException} {@link #next()} would throw; closing
     * the stream closes this listing.
     */
    public Stream<ListedObject> stream() {
        Iterator<ListedObject> iterator = new Iterator<>() {
            private Optional<ListedObject> ahead;

            @Override
            public boolean hasNext() {
                if (ahead == null) {
                    try {
                        ahead = ObjectListing.this.next();
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                }
                return ahead.isPresent();
            }

            @Override
            public ListedObject next() {
                if (!hasNext()) {
                    throw new NoSuchElementException("The listing has ended");
                }
                ListedObject next = ahead.get();
                ahead = null;
                return next;
            }
        };
        return StreamSupport.stream(
                        Spliterators.spliteratorUnknownSize(
                                iterator, Spliterator.ORDERED | Spliterator.DISTINCT | Spliterator.NONNULL),
                        false)
                .onClose(this::close);
    }

    /** Stops the listing's requests and drops the pages it holds. Idempotent; never throws. */
    @Override
    public void close() {
        listing.close();
    }
}
