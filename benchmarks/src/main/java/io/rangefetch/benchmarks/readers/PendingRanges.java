package io.rangefetch.benchmarks.readers;

import static java.util.Objects.requireNonNull;

import io.rangefetch.benchmarks.readers.BenchmarkStream.Span;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * A vectored read's ranges in a reader's own range type, each carrying a future the reader completes, and
 * those futures in the ranges' order: for the readers whose vectored API takes the caller's futures (Iceberg's
 * {@code FileRange}, the analytics accelerator's {@code ObjectRange}).
 */
record PendingRanges<R>(List<R> ranges, List<CompletableFuture<ByteBuffer>> results) {

    /** A reader's range constructor: {@code (result, offset, length)}. */
    @FunctionalInterface
    interface RangeFactory<R> {
        R create(CompletableFuture<ByteBuffer> result, long offset, int length);
    }

    PendingRanges {
        ranges = List.copyOf(ranges);
        results = List.copyOf(results);
    }

    static <R> PendingRanges<R> of(List<Span> spans, RangeFactory<R> factory) {
        requireNonNull(spans, "spans is null");
        requireNonNull(factory, "factory is null");
        List<R> ranges = new ArrayList<>(spans.size());
        List<CompletableFuture<ByteBuffer>> results = new ArrayList<>(spans.size());
        for (Span span : spans) {
            CompletableFuture<ByteBuffer> result = new CompletableFuture<>();
            ranges.add(factory.create(result, span.offset(), span.length()));
            results.add(result);
        }
        return new PendingRanges<>(ranges, results);
    }
}
