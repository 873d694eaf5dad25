package io.rangefetch.internal.format;

import io.rangefetch.Setting;
import io.rangefetch.client.ByteRange;
import io.rangefetch.format.FormatPolicy;
import io.rangefetch.format.FormatPolicy.FormatSession;
import io.rangefetch.format.FormatPolicy.FormatStream;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.OptionalLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * ORC files. An ORC reader starts at the file's tail: the last byte is the postscript's length, the postscript
 * gives the footer's and the metadata's lengths, and those three sections (the stripes' directory and
 * statistics) come before it. So opening fetches the last {@code orc.tail-size} bytes, in the request that also
 * learns the length and ETag; once they are in, the postscript is read from them and, when it says the
 * sections are larger than what was fetched, exactly the missing bytes are fetched, once. The reader then
 * finds its whole tail cached.
 *
 * <p>A tail that does not parse as ORC is left alone (one warning per stream): the reader reports a corrupt
 * file itself, and its reads return the right bytes.
 *
 * <p><b>Public because</b> {@code io.rangefetch.FormatPolicies} makes it, one of the built-in policies.
 */
public final class OrcFormatPolicy implements FormatPolicy {
    // ORC's footer and stripe statistics: tens of KiB typically, a few hundred for files of many stripes.
    public static final Setting<Long> TAIL_SIZE = Setting.requestSize(
            "orc.tail-size", "256KiB", 0, "Bytes of an ORC file's tail fetched when its stream opens.");

    private static final Logger LOG = LoggerFactory.getLogger(OrcFormatPolicy.class);

    /** The policy has no state: each factory makes one. */
    public OrcFormatPolicy() {}

    @Override
    public String name() {
        return "orc";
    }

    @Override
    public List<Setting<?>> settings() {
        return List.of(TAIL_SIZE);
    }

    @Override
    public FormatSession open(FormatStream stream) {
        long tailSize = stream.get(TAIL_SIZE);
        return new FormatSession() {
            @Override
            public long openTailSize() {
                return tailSize;
            }

            @Override
            public void opened() {
                OptionalLong length = stream.knownLength();
                // a tail size of 0 turns the tail fetch off; an empty object has no tail
                if (tailSize == 0 || length.isEmpty() || length.getAsLong() == 0) {
                    return;
                }
                long objectLength = length.getAsLong();
                ByteRange fetched =
                        new ByteRange(objectLength - Math.min(objectLength, Math.max(1, tailSize)), objectLength);
                stream.read(fetched).thenAccept(tail -> fetchRestOfTail(stream, objectLength, tail));
            }
        };
    }

    private static void fetchRestOfTail(FormatStream stream, long objectLength, ByteBuffer tail) {
        try {
            long needed = OrcPostScript.tailLength(tail);
            if (needed > objectLength) {
                throw new OrcPostScript.NotOrcException("its postscript describes a " + needed
                        + "-byte tail, longer than the file (" + objectLength + " bytes)");
            }
            if (needed > tail.remaining()) {
                stream.prefetch(List.of(new ByteRange(objectLength - needed, objectLength - tail.remaining())));
            }
        } catch (OrcPostScript.NotOrcException e) {
            LOG.warn("{} does not end like an ORC file ({}); its tail is not prefetched", stream.uri(), e.getMessage());
        }
    }
}
