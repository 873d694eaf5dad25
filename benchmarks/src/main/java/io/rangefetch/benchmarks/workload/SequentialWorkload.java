package io.rangefetch.benchmarks.workload;

import static java.util.Objects.requireNonNull;

import io.rangefetch.benchmarks.data.StoredObject;
import io.rangefetch.benchmarks.data.TextSpec;
import io.rangefetch.benchmarks.readers.BenchmarkStream;
import io.rangefetch.benchmarks.readers.ReaderSession;
import java.io.IOException;
import java.util.zip.CRC32C;

/**
 * A text object read from start to end in small {@code read} calls, as a line reader or a CSV/JSON scan does:
 * whatever the reader does to prefetch is all that stands between the caller and a round trip per call.
 * The bytes are checked by a CRC32C taken as they arrive, against the generator's.
 */
public final class SequentialWorkload implements Workload {

    public static final int READ_SIZE = 8 * 1024;

    private final StoredObject object;
    private final long expectedChecksum;

    public SequentialWorkload(TextSpec spec, StoredObject object) {
        requireNonNull(spec, "spec is null");
        this.object = requireNonNull(object, "object is null");
        this.expectedChecksum = spec.checksum(); // once, outside every timed run
    }

    @Override
    public String name() {
        return "sequential";
    }

    @Override
    public String description() {
        return String.format(
                "%s (%.0f MB) read start to end with %d KiB read() calls on one stream",
                object.key(), object.length() / 1e6, READ_SIZE / 1024);
    }

    @Override
    public LowerBound lowerBound() {
        return LowerBound.parallel(1);
    }

    @Override
    public Outcome run(ReaderSession session) throws IOException {
        CRC32C checksum = new CRC32C();
        byte[] buffer = new byte[READ_SIZE];
        long total = 0;
        try (BenchmarkStream in = Workloads.open(session, object)) {
            for (int n = in.read(buffer, 0, buffer.length); n != -1; n = in.read(buffer, 0, buffer.length)) {
                if (n == 0) {
                    throw new IOException("read returned 0 bytes at position " + total + " of " + object.key());
                }
                checksum.update(buffer, 0, n);
                total += n;
            }
        }
        if (total != object.length() || checksum.getValue() != expectedChecksum) {
            throw new WrongBytesException(String.format(
                    "%s: read %d bytes with CRC32C %08x, expected %d with %08x",
                    object.key(), total, checksum.getValue(), object.length(), expectedChecksum));
        }
        return Outcome.needed(total);
    }
}
