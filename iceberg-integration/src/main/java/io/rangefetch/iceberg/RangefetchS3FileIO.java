package io.rangefetch.iceberg;

import static java.util.Objects.requireNonNull;

import io.rangefetch.OpenOptions;
import io.rangefetch.SharedFactories;
import io.rangefetch.StreamConfig;
import io.rangefetch.StreamFactory;
import io.rangefetch.StreamStatistics;
import io.rangefetch.client.S3Location;
import io.rangefetch.client.SseCustomerKey;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.UUID;
import java.util.function.Supplier;
import org.apache.iceberg.aws.s3.S3FileIO;
import org.apache.iceberg.aws.s3.S3FileIOProperties;
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
 * by every copy of this FileIO (same properties, same storage credentials: the same identity), leased from
 * Rangefetch's registry ({@link SharedFactories}) and closed {@code rangefetch.factory.linger} after the last copy
 * closed or was collected without being closed: an executor that deserializes the FileIO for every task keeps one
 * cache budget and one pool, not one per copy, and keeps them warm from one query to the next
 * ({@link SharedClients}). Their clients are a FileIO of their own with the same properties, since a copy's clients
 * close with the copy.
 *
 * <p><b>SSE-C.</b> With {@code s3.sse.type=custom}, every GET and HEAD carries {@code s3.sse.key} as S3FileIO's own
 * reads do ({@code s3.sse.md5}, when given, must be that key's MD5: a mistake fails {@link #initialize}, naming the
 * property, not every read). The key is part of the streams' identity: nothing read with one key is served to a
 * FileIO with another or none. SSE-S3 and SSE-KMS need nothing on a GET.
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
    // the SSE-C key every read carries (s3.sse.type=custom), as base64; null for none
    private volatile String sseCustomerKey;

    // Rebuilt lazily after deserialization (both null then); guarded by this.
    private transient StreamConfig config;
    private transient SharedFactories.Lease<SharedClients> lease; // taken at the first read
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
        String sseKey = sseCustomerKey(properties);
        synchronized (this) {
            this.sseCustomerKey = sseKey;
            this.enabled = enable;
            this.rangefetchProperties = Map.copyOf(streamProperties);
            this.config = parsed;
            this.metrics = context;
        }
    }

    /**
     * The SSE-C key of {@code s3.sse.type=custom}, read as S3FileIO reads its properties, checked against
     * {@code s3.sse.md5} when that is given; {@code null} for any other type.
     */
    private static String sseCustomerKey(Map<String, String> properties) {
        S3FileIOProperties s3 = new S3FileIOProperties(properties);
        if (!S3FileIOProperties.SSE_TYPE_CUSTOM.equalsIgnoreCase(s3.sseType())) {
            return null;
        }
        String key = s3.sseKey();
        if (key == null || key.isBlank()) {
            throw new IllegalArgumentException(S3FileIOProperties.SSE_TYPE + "=custom needs the key in "
                    + S3FileIOProperties.SSE_KEY + " (base64 of 32 bytes)");
        }
        SseCustomerKey parsed;
        try {
            parsed = SseCustomerKey.ofBase64(key);
        } catch (IllegalArgumentException e) {
            // the message names no part of the key
            throw new IllegalArgumentException("Invalid " + S3FileIOProperties.SSE_KEY + ": " + e.getMessage(), e);
        }
        String md5 = s3.sseMd5();
        if (md5 != null && !md5.isBlank() && !md5.equals(parsed.base64KeyMd5())) {
            throw new IllegalArgumentException(S3FileIOProperties.SSE_MD5 + " is not the MD5 of "
                    + S3FileIOProperties.SSE_KEY + " (base64 of the MD5 of the key's 32 bytes); leave it out and it is"
                    + " computed");
        }
        return key;
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
        return new RangefetchInputFile(path, location, length, factoryFor(path), baseOptions(), metrics, this);
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

    /** What every stream of this FileIO is opened with: the SSE-C key, if any. */
    private OpenOptions baseOptions() {
        String key = sseCustomerKey;
        return key == null
                ? OpenOptions.defaults()
                : OpenOptions.builder().sseCustomerKey(key).build();
    }

    /** The shared factory for the client of {@code path}, leasing the shared factories at the first read. */
    private StreamFactory factoryFor(String path) {
        SharedFactories.Lease<SharedClients> current;
        synchronized (this) {
            checkOpen(path);
            if (lease == null) {
                StreamConfig streamConfig = config();
                Supplier<S3FileIO> clients = sharedClientsSource();
                SharedFactories.Key key = SharedClients.key(properties(), credentials(), clientLineage);
                lease = SharedFactories.lease(
                        this,
                        key,
                        streamConfig.get(StreamConfig.FACTORY_LINGER),
                        () -> new SharedClients(key.toString(), clients, streamConfig));
            }
            current = lease;
        }
        return current.value().factoryFor(path);
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
        return lease == null ? List.of() : lease.value().factories();
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
     * Gives back this copy's lease on the shared factories (after the last copy's, and the linger, their fetches and
     * threads stop, then their clients close), then closes Iceberg's part and its clients. While other copies are open, this
     * copy's streams still open keep reading; after the last, they fail their next read that needs a request.
     * Idempotent.
     */
    @Override
    public void close() {
        SharedFactories.Lease<SharedClients> toRelease;
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
