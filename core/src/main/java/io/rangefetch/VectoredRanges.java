package io.rangefetch;

import static java.util.Objects.requireNonNull;

import io.rangefetch.SeekableS3InputStream.FileRange;
import io.rangefetch.client.S3Location;
import io.rangefetch.internal.read.VectoredRange;
import java.io.EOFException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.IntFunction;

/** The checks a vectored read makes before it sends anything, and the allocation of its buffers. */
final class VectoredRanges {
    private VectoredRanges() {}

    /**
     * The ranges by offset, once each is known to be well formed and none overlaps another (empty ranges hold
     * no bytes, so overlap nothing).
     */
    static List<FileRange> checkedInOrder(List<FileRange> ranges, S3Location location) throws EOFException {
        Map<FileRange, Boolean> seen = new IdentityHashMap<>();
        List<FileRange> sorted = new ArrayList<>(ranges.size());
        for (FileRange range : ranges) {
            requireNonNull(range, "range is null");
            if (range.offset() < 0) {
                throw new EOFException("Cannot read " + range + " of " + location + ": negative offset");
            }
            if (range.length() < 0) {
                throw new IllegalArgumentException("Cannot read " + range + " of " + location + ": negative length");
            }
            if (range.offset() > Long.MAX_VALUE - range.length()) {
                throw new EOFException("Cannot read " + range + " of " + location + ": it ends past any object");
            }
            if (seen.put(range, Boolean.TRUE) != null || range.data().isDone()) {
                throw new IllegalArgumentException("Cannot read " + range + " of " + location
                        + " again: a FileRange is read once; make a new one");
            }
            sorted.add(range);
        }
        sorted.sort(Comparator.comparingLong(FileRange::offset).thenComparingInt(FileRange::length));
        FileRange previous = null;
        for (FileRange range : sorted) {
            if (range.length() == 0) {
                continue;
            }
            if (previous != null && range.offset() < previous.end()) {
                throw new IllegalArgumentException("Vectored ranges overlap in " + location + ": " + previous + " and "
                        + range + "; ask for the union once instead");
            }
            previous = range;
        }
        return sorted;
    }

    static void checkWithin(List<FileRange> ranges, long objectLength, S3Location location) throws EOFException {
        for (FileRange range : ranges) {
            if (range.end() > objectLength) {
                throw new EOFException(
                        "Cannot read " + range + " of " + location + ": past the end (length " + objectLength + ")");
            }
        }
    }

    /**
     * Allocates every range's buffer, giving them all back if one allocation fails or is unusable. Each range's
     * caller future completes from the engine's, its failure translated by {@code errors}.
     */
    static List<VectoredRange> allocate(
            List<FileRange> ranges, IntFunction<ByteBuffer> allocate, Consumer<ByteBuffer> release, ReadErrors errors) {
        List<VectoredRange> allocated = new ArrayList<>(ranges.size());
        try {
            for (FileRange range : ranges) {
                ByteBuffer buffer = allocate.apply(range.length());
                if (buffer == null || buffer.isReadOnly() || buffer.remaining() < range.length()) {
                    if (buffer != null) {
                        release.accept(buffer);
                    }
                    throw new IllegalArgumentException("The allocator answered " + buffer + " for " + range
                            + "; it must return a writable buffer with at least " + range.length()
                            + " bytes remaining");
                }
                CompletableFuture<ByteBuffer> engine = new CompletableFuture<>();
                CompletableFuture<ByteBuffer> caller = range.data();
                engine.whenComplete((bytes, failure) -> {
                    if (failure == null) {
                        caller.complete(bytes);
                    } else {
                        caller.completeExceptionally(errors.translate(failure));
                    }
                });
                allocated.add(new VectoredRange(range.offset(), range.length(), buffer, engine, release));
            }
        } catch (RuntimeException | Error e) {
            allocated.forEach(range -> release.accept(range.buffer()));
            throw e;
        }
        return allocated;
    }
}
