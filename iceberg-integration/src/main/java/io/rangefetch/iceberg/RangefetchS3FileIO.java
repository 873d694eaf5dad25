package io.rangefetch.iceberg;

import static java.util.Objects.requireNonNull;

import io.rangefetch.StreamConfig;
import io.rangefetch.StreamFactory;
import io.rangefetch.StreamStatistics;
import io.rangefetch.client.S3Location;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.UUID;
import java.util.function.Supplier;
import org.apache.iceberg.aws.s3.S3FileIO;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.StorageCredential;
import org.apache.iceberg.metrics.MetricsContext;
import org.apache.iceberg.util.SerializableSupplier;
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
 * <p><b>Clients and factories.</b> Reads go through the client {@code client(path)} gives for the path, so
 * per-prefix credentials and endpoints keep working. Each distinct client gets one {@link StreamFactory} (its
 * block cache, learned metadata and fetch threads), made at the first read. The factories are shared in the JVM
 * by every copy of this FileIO (same properties, same storage credentials), counted by reference and closed with
 * the last copy, or when the last copy is collected without being closed: an executor that deserializes the
 * FileIO for every task keeps one cache budget and one pool, not one per copy ({@link SharedFactories}). Their
 * clients are a FileIO of their own with the same properties, since a copy's clients close with the copy.
 *
 * <p><b>Serialization.</b> Iceberg ships FileIOs to workers (Java serialization or Kryo). A copy starts open and
 * leases the shared factories at its first read.
 *
 * <p>Thread-safe, as a FileIO must be.
 */
public class RangefetchS3FileIO extends S3FileIO {
    /** The prefix of every Rangefetch catalog property. */
    public static final String PREFIX = "rangefetch.";
    /** Catalog property: {@code false} gives Iceberg's own input files and streams. Default {@code true}. */
    public static final String ENABLED = PREFIX + "enabled";

    private static final long serialVersionUID = 1L;

    // null: the context the properties name, as S3FileIO loads it; else a test's own
    private final MetricsContext metricsOverride;
    // The caller's client supplier and the lineage minted with it (copies share both), or both null when Iceberg
    // builds the clients from the properties: a supplier cannot be compared, so its copies are known by lineage.
    private final SerializableSupplier<S3Client> clientSupplier;
    private final String clientLineage;
    // Set by initialize, serialized with the FileIO (the config is rebuilt from the properties); volatile because
    // an engine may hand the FileIO to other threads without a lock.
    private volatile boolean enabled = true;
    private volatile Map<String, String> rangefetchProperties = Map.of();
    private volatile MetricsContext metrics = MetricsContext.nullMetrics();

    // Rebuilt lazily after deserialization (both null then); guarded by this.
    private transient StreamConfig config;
    private transient SharedFactories.Lease lease; // taken at the first read
    private transient volatile boolean closed;

    /** What a catalog calls (through {@code io-impl}), followed by {@link #initialize}. */
    public RangefetchS3FileIO() {
        this.metricsOverride = null;
        this.clientSupplier = null;
        this.clientLineage = null;
    }

    /** With a client of the caller's, as {@link S3FileIO#S3FileIO(SerializableSupplier)}. */
    public RangefetchS3FileIO(SerializableSupplier<S3Client> s3) {
        this(s3, null);
    }

    /** For tests: a metrics context of their own ({@code null}: the one the properties name). */
    RangefetchS3FileIO(SerializableSupplier<S3Client> s3, MetricsContext metrics) {
        super(s3);
        this.metricsOverride = metrics;
        this.clientSupplier = requireNonNull(s3, "s3 is null");
        this.clientLineage = UUID.randomUUID().toString();
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
        return new RangefetchInputFile(path, location, length, factoryFor(path), metrics, this);
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

    /** The shared factory for the client of {@code path}, leasing the shared factories at the first read. */
    private StreamFactory factoryFor(String path) {
        SharedFactories.Lease current;
        synchronized (this) {
            checkOpen(path);
            if (lease == null) {
                SharedFactories.Identity identity =
                        new SharedFactories.Identity(properties(), credentials(), clientLineage);
                lease = SharedFactories.lease(this, identity, sharedClientsSource(), config());
            }
            current = lease;
        }
        return current.factoryFor(path);
    }

    /**
     * The clients the shared factories send through: a plain {@link S3FileIO} like this one (same properties,
     * credentials and supplier), closed with the last copy. It must not capture this copy, which may close first.
     */
    private Supplier<S3FileIO> sharedClientsSource() {
        SerializableSupplier<S3Client> supplier = clientSupplier;
        Map<String, String> properties = Map.copyOf(properties());
        List<StorageCredential> credentials = List.copyOf(credentials());
        return () -> {
            S3FileIO clients = supplier == null ? new S3FileIO() : new S3FileIO(supplier);
            clients.initialize(properties);
            if (!credentials.isEmpty()) {
                clients.setCredentials(credentials);
            }
            return clients;
        };
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

    /** The stream factories this FileIO reads through now, shared with its copies (none before its first read). */
    synchronized List<StreamFactory> factories() {
        return lease == null ? List.of() : lease.factories();
    }

    /**
     * What reading through this FileIO has cost so far: one entry per stream factory (one per distinct S3 client it
     * read through), its copies' reads in this JVM included, since they share the factories.
     */
    public List<StreamStatistics> statistics() {
        return factories().stream().map(StreamFactory::statistics).toList();
    }

    /** Bytes the caches of this FileIO's stream factories hold now (for tests). */
    long cacheMemoryBytes() {
        return factories().stream().mapToLong(StreamFactory::cacheMemoryBytes).sum();
    }

    /** The sum of the peaks of this FileIO's factories' caches: at least their peak together (for tests). */
    long peakCacheMemoryBytes() {
        return factories().stream()
                .mapToLong(StreamFactory::peakCacheMemoryBytes)
                .sum();
    }

    /** How many stream factories (one per client handed out for a path) this FileIO reads through now. */
    int factoryCount() {
        return factories().size();
    }

    /**
     * Gives back this copy's lease on the shared factories (the last copy's close stops their fetches and threads,
     * then closes their clients), then closes Iceberg's part and its clients. While other copies are open, this
     * copy's streams still open keep reading; after the last, they fail their next read that needs a request.
     * Idempotent.
     */
    @Override
    public void close() {
        SharedFactories.Lease toRelease;
        synchronized (this) {
            closed = true;
            toRelease = lease;
            lease = null;
        }
        if (toRelease != null) {
            toRelease.release();
        }
        super.close();
    }
}
