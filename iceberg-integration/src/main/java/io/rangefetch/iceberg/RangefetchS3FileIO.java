package io.rangefetch.iceberg;

import static java.util.Objects.requireNonNull;

import io.rangefetch.S3Location;
import io.rangefetch.StreamConfig;
import io.rangefetch.StreamFactory;
import io.rangefetch.StreamStatistics;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.apache.iceberg.aws.s3.S3FileIO;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.metrics.MetricsContext;
import org.apache.iceberg.util.SerializableSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Iceberg's {@link S3FileIO} with every read served by Rangefetch: select it with the catalog property
 * {@code io-impl=io.rangefetch.iceberg.RangefetchS3FileIO}. Everything that is not reading (writes, deletes,
 * listing, credentials, per-prefix storage credentials, SSE, access points, endpoints, path style) stays
 * Iceberg's own.
 *
 * <p><b>Settings.</b> Catalog properties under {@code rangefetch.} are {@link StreamConfig} keys (with units);
 * a bad one fails {@link #initialize} with an {@link IllegalArgumentException} naming it.
 * {@value #ENABLED}{@code =false} turns Rangefetch off: {@code newInputFile} then returns exactly what
 * {@code S3FileIO} returns.
 *
 * <p><b>Clients and factories.</b> Reads go through the client {@link S3FileIO#client(String)} gives for the
 * path, so per-prefix credentials and endpoints keep working. Each distinct client gets one
 * {@link StreamFactory} (its block cache, learned metadata and fetch threads), created on first use and closed
 * with this FileIO. There is no JVM-wide cache whose eviction could close a factory still being read: a
 * factory lives exactly as long as the FileIO that made it. Rangefetch never closes a client; Iceberg does.
 *
 * <p><b>Serialization.</b> Iceberg ships FileIOs to workers (Java serialization or Kryo). The factories are
 * transient: a copy rebuilds them lazily, like {@code S3FileIO} rebuilds its clients, and starts open.
 *
 * <p>Thread-safe, as a FileIO must be.
 */
public class RangefetchS3FileIO extends S3FileIO {
    /** The prefix of every Rangefetch catalog property. */
    public static final String PREFIX = "rangefetch.";
    /** Catalog property: {@code false} gives Iceberg's own input files and streams. Default {@code true}. */
    public static final String ENABLED = PREFIX + "enabled";

    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(RangefetchS3FileIO.class);

    // null: the context the properties name, as S3FileIO loads it; else a test's own
    private final MetricsContext metricsOverride;
    // Set by initialize, serialized with the FileIO (the config is rebuilt from the properties); volatile because
    // an engine may hand the FileIO to other threads without a lock.
    private volatile boolean enabled = true;
    private volatile Map<String, String> rangefetchProperties = Map.of();
    private volatile MetricsContext metrics = MetricsContext.nullMetrics();

    // Rebuilt lazily after deserialization (both null then); guarded by this.
    private transient StreamConfig config;
    private transient Map<S3Client, StreamFactory> factories;
    private transient volatile boolean closed;

    /** What a catalog calls (through {@code io-impl}), followed by {@link #initialize}. */
    public RangefetchS3FileIO() {
        this.metricsOverride = null;
    }

    /** With a client of the caller's, as {@link S3FileIO#S3FileIO(SerializableSupplier)}. */
    public RangefetchS3FileIO(SerializableSupplier<S3Client> s3) {
        super(s3);
        this.metricsOverride = null;
    }

    /** For tests: a metrics context of their own instead of the one the properties name. */
    RangefetchS3FileIO(SerializableSupplier<S3Client> s3, MetricsContext metrics) {
        super(s3);
        this.metricsOverride = requireNonNull(metrics, "metrics is null");
    }

    @Override
    public void initialize(Map<String, String> properties) {
        super.initialize(properties);
        Map<String, String> streamProperties = new HashMap<>();
        boolean enable = true;
        for (Map.Entry<String, String> entry : properties.entrySet()) {
            if (entry.getKey().equals(ENABLED)) {
                enable = parseEnabled(entry.getValue());
            } else if (entry.getKey().startsWith(PREFIX)) {
                streamProperties.put(entry.getKey(), entry.getValue());
            }
        }
        // parsed now so that a bad value fails here, naming the property, not at the first read on a worker
        StreamConfig parsed = StreamConfig.fromProperties(streamProperties, PREFIX);
        MetricsContext context = metricsOverride != null ? metricsOverride : IcebergMetrics.load(properties);
        synchronized (this) {
            this.enabled = enable;
            this.rangefetchProperties = Map.copyOf(streamProperties);
            this.config = parsed;
            this.metrics = context;
        }
    }

    private static boolean parseEnabled(String value) {
        if ("true".equalsIgnoreCase(value)) {
            return true;
        }
        if ("false".equalsIgnoreCase(value)) {
            return false;
        }
        throw new IllegalArgumentException("Invalid setting " + ENABLED + "=" + value + ": expected true or false");
    }

    @Override
    public InputFile newInputFile(String path) {
        if (!enabled) {
            return super.newInputFile(path);
        }
        return newRangefetchInputFile(path, OptionalLong.empty());
    }

    @Override
    public InputFile newInputFile(String path, long length) {
        if (!enabled) {
            return super.newInputFile(path, length);
        }
        if (length < 0) {
            throw new IllegalArgumentException("Negative length " + length + " given for " + path);
        }
        return newRangefetchInputFile(path, OptionalLong.of(length));
    }

    private InputFile newRangefetchInputFile(String path, OptionalLong length) {
        S3Location location = parseLocation(path);
        checkOpen(path); // before asking the closed S3FileIO for a client; factoryFor checks again under the lock
        return new RangefetchInputFile(path, location, length, factoryFor(client(path), path), metrics);
    }

    /**
     * Reads {@code s3://bucket/key}, {@code s3a://} and {@code s3n://}: the schemes {@code S3FileIO} accepts.
     *
     * @throws IllegalArgumentException naming the location when it is not one of them or lacks a bucket or key
     */
    static S3Location parseLocation(String location) {
        requireNonNull(location, "location is null");
        try {
            return S3Location.parse(location);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(
                    "RangefetchS3FileIO cannot read '" + location + "': " + e.getMessage(), e);
        }
    }

    /** The factory for a client, created on first use; one per distinct client (by identity). */
    private synchronized StreamFactory factoryFor(S3Client client, String path) {
        requireNonNull(client, "client is null");
        checkOpen(path);
        if (factories == null) {
            factories = new IdentityHashMap<>();
        }
        return factories.computeIfAbsent(client, c -> StreamFactory.create(c, config()));
    }

    private synchronized StreamConfig config() {
        if (config == null) {
            // after deserialization: the same properties parsed before, so this cannot fail
            config = StreamConfig.fromProperties(rangefetchProperties, PREFIX);
        }
        return config;
    }

    private void checkOpen(String what) {
        if (closed) {
            throw new IllegalStateException("RangefetchS3FileIO is closed; cannot open " + what);
        }
    }

    /** Whether Rangefetch serves reads ({@value #ENABLED}). */
    public boolean rangefetchEnabled() {
        return enabled;
    }

    /** The stream settings the {@code rangefetch.} properties gave. */
    public StreamConfig streamConfig() {
        return config();
    }

    /** What each stream factory this FileIO holds has cost so far (for tests and the benchmark runner). */
    synchronized List<StreamStatistics> factoryStatistics() {
        return factories == null ? List.of() : factories.values().stream().map(StreamFactory::statistics).toList();
    }

    /** Bytes the caches of this FileIO's stream factories hold now (for tests). */
    synchronized long cacheMemoryBytes() {
        return factories == null ? 0 : factories.values().stream().mapToLong(StreamFactory::cacheMemoryBytes).sum();
    }

    /** The sum of the peaks of this FileIO's factories' caches: at least their peak together (for tests). */
    synchronized long peakCacheMemoryBytes() {
        return factories == null ? 0
                : factories.values().stream().mapToLong(StreamFactory::peakCacheMemoryBytes).sum();
    }

    /** How many stream factories (one per client handed out for a path) this FileIO holds now. */
    synchronized int factoryCount() {
        return factories == null ? 0 : factories.size();
    }

    /**
     * Closes the stream factories first (stopping their fetches and threads while the clients they use are
     * still open, so nothing in flight fails for a closed client), then Iceberg's part, which closes the
     * clients. Streams still open fail their next read that needs a request. Idempotent.
     */
    @Override
    public void close() {
        List<StreamFactory> toClose;
        synchronized (this) {
            closed = true;
            toClose = factories == null ? List.of() : new ArrayList<>(factories.values());
            factories = null;
        }
        for (StreamFactory factory : toClose) {
            try {
                factory.close();
            } catch (RuntimeException e) {
                LOG.warn("Failed to close a Rangefetch stream factory", e);
            }
        }
        super.close();
    }
}
