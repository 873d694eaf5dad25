package io.rangefetch;

import io.rangefetch.client.S3Location;
import io.rangefetch.testing.InMemoryObjectClient;
import java.io.IOException;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * Reads served wholly from the block cache: what a stream costs when the network is out of the picture (a
 * footer read again, a column chunk another reader already fetched). The object is read once in setup; a
 * trial that sent any GET after that fails at teardown, since it would have measured the wrong path.
 *
 * <p>The object is served by core's in-memory test client: its request log only grows during the warm-up,
 * since the measured reads send nothing.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(
        value = 1,
        jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class CachedReadBenchmark {
    private static final int OBJECT_SIZE = 32 << 20;
    private static final int WARM_CHUNK = 1 << 20;
    private static final int POSITIONS = 1024;

    private StreamFactory factory;
    private SeekableS3InputStream stream;
    private long getsAfterWarmUp;
    private final byte[] small = new byte[8 << 10];
    private final byte[] large = new byte[1 << 20];
    private final long[] positions = new long[POSITIONS];
    private int next;

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        SplittableRandom random = new SplittableRandom(42);
        byte[] data = new byte[OBJECT_SIZE];
        for (int i = 0; i < data.length; i += 8) {
            long value = random.nextLong();
            for (int b = 0; b < 8; b++) {
                data[i + b] = (byte) (value >>> (8 * b));
            }
        }
        InMemoryObjectClient client = new InMemoryObjectClient();
        String etag = client.put("bench", "cached.bin", data);
        factory = StreamFactory.create(
                client,
                StreamConfig.builder()
                        .set(StreamConfig.CACHE_MAX_MEMORY, 256L << 20)
                        .build());
        stream = factory.open(
                new S3Location("bench", "cached.bin"),
                OpenOptions.builder().length(OBJECT_SIZE).etag(etag).build());
        for (long position = 0; position < OBJECT_SIZE; position += WARM_CHUNK) {
            stream.readFully(position, large, 0, WARM_CHUNK);
        }
        getsAfterWarmUp = factory.statistics().getRequests();
        for (int i = 0; i < POSITIONS; i++) {
            // unaligned on purpose: most reads span two cached blocks
            positions[i] = random.nextLong(OBJECT_SIZE - large.length);
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        long gets = factory.statistics().getRequests() - getsAfterWarmUp;
        stream.close();
        factory.close();
        if (gets != 0) {
            throw new IllegalStateException(gets + " GETs after warm-up: the benchmark did not read from the cache");
        }
    }

    /** A streaming read at the position, as a decoder pulling bytes; wraps to the start at the end. */
    @Benchmark
    public int streamingRead8KiB() throws IOException {
        if (stream.getPos() >= OBJECT_SIZE) {
            stream.seek(0);
        }
        return stream.read(small, 0, small.length);
    }

    /** A positioned read of a column-chunk-sized range anywhere in the object. */
    @Benchmark
    public byte positionedRead1MiB() throws IOException {
        long position = positions[next++ & (POSITIONS - 1)];
        stream.readFully(position, large, 0, large.length);
        return large[large.length - 1];
    }
}
