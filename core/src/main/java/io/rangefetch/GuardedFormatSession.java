package io.rangefetch;

import static java.util.Objects.requireNonNull;

import io.rangefetch.OpenOptions.ReadPolicy;
import io.rangefetch.client.ByteRange;
import io.rangefetch.format.FormatPolicy;
import io.rangefetch.format.FormatPolicy.FormatSession;
import io.rangefetch.format.FormatPolicy.FormatStream;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A format session that cannot hurt its stream: the first exception (or linkage error, as when a policy's
 * library is missing from the class path) it throws turns it off for the stream, with one warning, and every
 * later call does nothing. The read that called it has its bytes already.
 */
final class GuardedFormatSession implements FormatSession {
    private static final Logger LOG = LoggerFactory.getLogger(GuardedFormatSession.class);

    private final String policy;
    // the stream's s3://bucket/key, for the warning
    private final String uri;
    private final FormatSession session;
    private final AtomicBoolean off = new AtomicBoolean();

    private GuardedFormatSession(String policy, String uri, FormatSession session) {
        this.policy = policy;
        this.uri = uri;
        this.session = session;
    }

    /** Opens {@code policy}'s session on {@code stream}; a policy that throws here gives no session. */
    static FormatSession open(FormatPolicy policy, FormatStream stream) {
        requireNonNull(policy, "policy is null");
        GuardedFormatSession guard = new GuardedFormatSession(policy.name(), stream.uri(), FormatSession.NONE);
        FormatSession opened = guard.call(() -> policy.open(stream), FormatSession.NONE);
        return opened == null || opened == FormatSession.NONE
                ? FormatSession.NONE
                : new GuardedFormatSession(policy.name(), stream.uri(), opened);
    }

    boolean isOff() {
        return off.get();
    }

    @Override
    public ReadPolicy readPolicy() {
        ReadPolicy policy = call(session::readPolicy, ReadPolicy.AUTO);
        return policy == null ? ReadPolicy.AUTO : policy;
    }

    @Override
    public long openTailSize() {
        Long size = call(session::openTailSize, 0L);
        return size == null || size < 0 ? 0 : size;
    }

    @Override
    public OptionalLong smallObjectSize() {
        OptionalLong size = call(session::smallObjectSize, OptionalLong.empty());
        return size == null || size.orElse(0) < 0 ? OptionalLong.empty() : size;
    }

    @Override
    public long prefetchEnd() {
        return call(session::prefetchEnd, Long.MAX_VALUE);
    }

    // Called before planned streaming reads: no lambda, so no allocation per read. A bound at or before the
    // position would stop nothing a read needs, and says the session is confused: no bound then.
    @Override
    public long structureEnd(long position) {
        if (off.get()) {
            return Long.MAX_VALUE;
        }
        try {
            long end = session.structureEnd(position);
            return end > position ? end : Long.MAX_VALUE;
        } catch (RuntimeException | LinkageError e) {
            turnOff(e);
            return Long.MAX_VALUE;
        }
    }

    @Override
    public void opened() {
        run(session::opened);
    }

    // Called after every streaming read: no lambda, so no allocation per read.
    @Override
    public void afterRead(long position, long length) {
        if (off.get()) {
            return;
        }
        try {
            session.afterRead(position, length);
        } catch (RuntimeException | LinkageError e) {
            turnOff(e);
        }
    }

    @Override
    public void afterVectoredRead(List<ByteRange> ranges) {
        run(() -> session.afterVectoredRead(ranges));
    }

    @Override
    public void close() {
        run(session::close);
    }

    private void run(Runnable call) {
        call(
                () -> {
                    call.run();
                    return null;
                },
                null);
    }

    private <T> T call(Supplier<T> call, T otherwise) {
        if (off.get()) {
            return otherwise;
        }
        try {
            return call.get();
        } catch (RuntimeException | LinkageError e) {
            turnOff(e);
            return otherwise;
        }
    }

    private void turnOff(Throwable failure) {
        if (off.compareAndSet(false, true)) {
            LOG.warn(
                    "Format policy '{}' failed on {} and is off for this stream; reads go on without it",
                    policy,
                    uri,
                    failure);
        }
    }
}
