package io.rangefetch.testing;

import static io.rangefetch.StreamConfig.CACHE_MAX_MEMORY;
import static io.rangefetch.StreamConfig.FORMAT_EXTENSIONS;
import static java.util.Objects.requireNonNull;

import io.rangefetch.OpenOptions.ReadPolicy;
import io.rangefetch.StreamConfig;
import io.rangefetch.client.ByteRange;
import io.rangefetch.format.FormatPolicy;
import io.rangefetch.format.FormatPolicy.FormatSession;
import io.rangefetch.format.FormatPolicy.FormatStream;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A format policy that asks for a given open fetch, records every call its sessions get, and can throw from one
 * of them: for tests of what a stream does with a policy, not of any format. Thread-safe.
 */
public final class RecordingPolicy implements FormatPolicy {
    private static final long WAIT_SECONDS = 20;

    /** The calls a policy and its sessions get. */
    public enum Call {
        OPEN,
        READ_POLICY,
        OPEN_TAIL_SIZE,
        PREFETCH_END,
        OPENED,
        AFTER_READ,
        AFTER_VECTORED_READ,
        CLOSE
    }

    private final String name;
    private final long openTailSize;
    private final Call failIn;
    private final Throwable failure;
    private final List<Call> calls = new CopyOnWriteArrayList<>();
    private final List<ByteRange> reads = new CopyOnWriteArrayList<>();
    private final CountDownLatch opened = new CountDownLatch(1);

    private RecordingPolicy(String name, long openTailSize, Call failIn, Throwable failure) {
        this.name = requireNonNull(name, "name is null");
        this.openTailSize = openTailSize;
        this.failIn = failIn;
        this.failure = failure;
    }

    /**
     * A factory's settings (with a 256 MiB cache) under which keys ending in {@code .rec} are read by the policy
     * named {@code rec}.
     */
    public static StreamConfig recConfig() {
        return StreamConfig.builder()
                .set(CACHE_MAX_MEMORY, 256L * StreamFixture.MIB)
                .set(FORMAT_EXTENSIONS, Map.of("rec", List.of("rec")))
                .build();
    }

    /** A policy named {@code name} that asks for the last {@code openTailSize} bytes at open and never throws. */
    public static RecordingPolicy fetching(String name, long openTailSize) {
        return new RecordingPolicy(name, openTailSize, null, null);
    }

    /** The same policy, throwing {@code thrown} (a runtime exception or an error) whenever {@code call} comes. */
    public RecordingPolicy failingIn(Call call, Throwable thrown) {
        if (!(thrown instanceof RuntimeException) && !(thrown instanceof Error)) {
            throw new IllegalArgumentException("Only unchecked throwables can be thrown, not " + thrown);
        }
        return new RecordingPolicy(name, openTailSize, requireNonNull(call, "call is null"), thrown);
    }

    /** How many times {@code call} came, over every stream. */
    public long count(Call call) {
        return calls.stream().filter(call::equals).count();
    }

    /** The ranges {@code afterRead} reported, in order. */
    public List<ByteRange> reads() {
        return List.copyOf(reads);
    }

    /** Waits (bounded) until some session's {@code opened()} has returned. */
    public boolean awaitOpened() throws InterruptedException {
        return opened.await(WAIT_SECONDS, TimeUnit.SECONDS);
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public FormatSession open(FormatStream stream) {
        record(Call.OPEN);
        return new FormatSession() {
            @Override
            public ReadPolicy readPolicy() {
                record(Call.READ_POLICY);
                return ReadPolicy.AUTO;
            }

            @Override
            public long openTailSize() {
                record(Call.OPEN_TAIL_SIZE);
                return openTailSize;
            }

            @Override
            public long prefetchEnd() {
                record(Call.PREFETCH_END);
                return Long.MAX_VALUE;
            }

            @Override
            public void opened() {
                record(Call.OPENED);
                opened.countDown();
            }

            @Override
            public void afterRead(long position, long length) {
                record(Call.AFTER_READ);
                reads.add(ByteRange.ofLength(position, length));
            }

            @Override
            public void afterVectoredRead(List<ByteRange> ranges) {
                record(Call.AFTER_VECTORED_READ);
            }

            @Override
            public void close() {
                record(Call.CLOSE);
            }
        };
    }

    private void record(Call call) {
        calls.add(call);
        if (call == failIn) {
            if (failure instanceof RuntimeException runtime) {
                throw runtime;
            }
            throw (Error) failure;
        }
    }
}
