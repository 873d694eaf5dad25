package io.rangefetch.internal.read;

import static java.util.Objects.requireNonNull;

import io.rangefetch.client.ByteRange;
import io.rangefetch.client.ObjectContent;
import io.rangefetch.client.RangeGetRequest;
import io.rangefetch.internal.cache.Block;
import io.rangefetch.internal.fetch.FetchAbort;
import io.rangefetch.internal.stats.StatisticsCounter;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * One GET of a range of a pinned object version, run by the scheduler, and where its bytes go: into claimed
 * cache blocks, and straight into callers' buffers where the cache had no room. Bytes between targets are read
 * and dropped. Every GET of a block load, a vectored read or a prefetch is one of these.
 *
 * <p>Targets are added on the planning thread before the fetch is submitted; {@link #run} and {@link #fail} run
 * once, on a scheduler thread (or on the submitting thread, if the scheduler refuses the fetch).
 */
final class RangeFetch {
    private final ObjectReader reader;
    private final ReaderContext context;
    private final String pinned;
    private final StatisticsCounter statistics;
    private final ByteRange bytes;
    private final boolean prefetch;
    private final List<Target> targets = new ArrayList<>();
    private final List<Block> filled = new ArrayList<>();
    private final CompletableFuture<Void> directWrites = new CompletableFuture<>();

    RangeFetch(ObjectReader reader, ReaderContext context, String pinned, StatisticsCounter statistics,
            ByteRange bytes, boolean prefetch) {
        this.reader = requireNonNull(reader, "reader is null");
        this.context = requireNonNull(context, "context is null");
        this.pinned = requireNonNull(pinned, "pinned is null");
        this.statistics = requireNonNull(statistics, "statistics is null");
        this.bytes = requireNonNull(bytes, "bytes is null");
        this.prefetch = prefetch;
    }

    /** The blocks this GET fills. */
    List<Block> filled() {
        return filled;
    }

    /** Completes once the bytes written straight into callers' buffers are all there. */
    CompletableFuture<Void> directWrites() {
        return directWrites;
    }

    void fill(Block block) {
        filled.add(block);
        targets.add(new Target(block.range(), block, null));
    }

    /**
     * Writes {@code segment} straight into {@code range}'s buffer; {@code true} if it is the first segment of that
     * range this GET carries (so its reader should wait for {@link #directWrites()} once).
     */
    boolean direct(VectoredRange range, ByteRange segment) {
        boolean first = targets.stream().noneMatch(target -> target.range() == range);
        targets.add(new Target(segment, null, range));
        return first;
    }

    /** Runs on a scheduler thread. */
    void run(FetchAbort abort) {
        targets.sort(Comparator.comparingLong(target -> target.bytes().start()));
        RangeGetRequest request = RangeGetRequest.of(reader.address(), bytes, pinned);
        List<byte[]> arrays = new ArrayList<>(filled.size());
        try (ObjectContent content = context.client().get(request)) {
            abort.attach(content);
            ObjectVersion.checkEtag(request, content.metadata().etag());
            Bodies.checkRange(request, content, bytes);
            long cursor = bytes.start();
            for (Target target : targets) {
                Bodies.skip(request, content, target.bytes().start() - cursor);
                int length = (int) target.bytes().length();
                if (target.block() != null) {
                    byte[] data = context.cache().bufferFor(target.block());
                    Bodies.fill(request, content, data, 0, length);
                    arrays.add(data);
                } else {
                    Bodies.fill(request, content, target.range().buffer(),
                            target.range().indexOf(target.bytes().start()), length);
                }
                cursor = target.bytes().end();
            }
            statistics.getSent(bytes.length(), prefetch);
        } catch (IOException | RuntimeException e) {
            statistics.failedGetSent();
            fail(Bodies.abortedOr(abort, request, e));
            return;
        } catch (Error e) {
            fail(e);
            throw e;
        }
        int next = 0;
        for (Target target : targets) {
            if (target.block() != null) {
                context.cache().complete(target.block(), arrays.get(next++));
            }
        }
        directWrites.complete(null);
    }

    /** The GET failed, or never ran: its blocks leave the cache, and its ranges learn why. */
    void fail(Throwable cause) {
        filled.forEach(block -> context.cache().fail(block, cause));
        directWrites.completeExceptionally(cause);
    }

    /** Where bytes of the GET go: a block's array, or a caller's buffer. */
    private record Target(ByteRange bytes, Block block, VectoredRange range) {}
}
