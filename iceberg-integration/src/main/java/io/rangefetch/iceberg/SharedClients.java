package io.rangefetch.iceberg;

import static java.util.Objects.requireNonNull;

import io.rangefetch.SharedFactories;
import io.rangefetch.StreamConfig;
import io.rangefetch.StreamFactory;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;
import org.apache.iceberg.aws.s3.S3FileIO;
import org.apache.iceberg.io.StorageCredential;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The S3 clients and stream factories every copy of one FileIO reads through in this JVM: the value a FileIO leases
 * from Rangefetch's registry of shared factories ({@link SharedFactories}), one per {@link #key}.
 *
 * <p><b>What is shared.</b> Copies share when they have the same properties (S3 client settings, credentials, SSE-C
 * key and {@code rangefetch.} settings alike), the same storage credentials and, for a FileIO built from a caller's
 * client supplier, the same lineage the original minted, since two suppliers cannot be compared. Two FileIOs a catalog
 * made with the same properties share too: they would read through equal clients with equal settings. Anything that
 * differs (another user's keys, vended credentials of another table, another SSE-C key) is another value, so bytes one
 * identity read are never served to another; the factories key what they hold by identity too.
 *
 * <p><b>Clients.</b> The value owns the clients its factories send through: an {@link S3FileIO} of its own, with the
 * identity's properties and credentials, whose {@code client(path)} picks the client for a path as the copy's would
 * (per-prefix storage credentials, endpoints). It cannot borrow a copy's clients, since {@code S3FileIO} closes those
 * with the copy while other copies still read. Each distinct client gets one factory, made at its first read.
 *
 * <p><b>Closing.</b> The registry closes it after the last copy let go and the linger ran out: factories first (their
 * fetches and threads stop while the clients they send through are still open), then the clients.
 *
 * <p><b>Locks.</b> Its monitor guards the factory map, the clients and the closed flag. Thread-safe.
 */
final class SharedClients implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(SharedClients.class);
    private static final String SCOPE = "iceberg-s3-fileio";

    private final String description;
    private final Supplier<S3FileIO> clientSource;
    private final StreamConfig config;
    // guarded by this
    private S3FileIO clients;
    private final Map<S3Client, StreamFactory> factories = new IdentityHashMap<>();
    private boolean closed;

    SharedClients(String description, Supplier<S3FileIO> clientSource, StreamConfig config) {
        this.description = requireNonNull(description, "description is null");
        this.clientSource = requireNonNull(clientSource, "clientSource is null");
        this.config = requireNonNull(config, "config is null");
    }

    /**
     * The key copies of a FileIO share under: its properties, its storage credentials (each one's prefix and
     * settings) and, for a caller's client supplier, its lineage ({@code null} otherwise). Secrets are digested by the
     * key, never kept.
     */
    static SharedFactories.Key key(
            Map<String, String> properties, List<StorageCredential> credentials, String clientLineage) {
        Map<String, String> settings = new TreeMap<>();
        properties.forEach((name, value) -> settings.put("property " + name, value));
        for (int i = 0; i < credentials.size(); i++) {
            StorageCredential credential = credentials.get(i);
            settings.put("credential " + i + " prefix", credential.prefix());
            int index = i;
            credential.config().forEach((name, value) -> settings.put("credential " + index + " " + name, value));
        }
        settings.put("client lineage", String.valueOf(clientLineage));
        return SharedFactories.Key.of(SCOPE, settings);
    }

    /** The factory for the client the shared FileIO gives {@code path}. */
    synchronized StreamFactory factoryFor(String path) {
        if (closed) {
            // a lease is held while this is called, so only a bug reaches here
            throw new IllegalStateException("Rangefetch's shared stream factories are closed; cannot open " + path);
        }
        if (clients == null) {
            clients = clientSource.get();
        }
        S3Client client = requireNonNull(clients.client(path), "client is null");
        return factories.computeIfAbsent(client, c -> StreamFactory.create(c, config));
    }

    synchronized List<StreamFactory> factories() {
        return List.copyOf(factories.values());
    }

    @Override
    public void close() {
        List<StreamFactory> toClose;
        S3FileIO toCloseClients;
        synchronized (this) {
            closed = true;
            toClose = new ArrayList<>(factories.values());
            factories.clear();
            toCloseClients = clients;
            clients = null;
        }
        // factories first: their fetches stop while the clients they send through are still open
        for (StreamFactory factory : toClose) {
            try {
                factory.close();
            } catch (RuntimeException e) {
                LOG.warn("Failed to close a Rangefetch stream factory of {}", description, e);
            }
        }
        if (toCloseClients != null) {
            try {
                toCloseClients.close();
            } catch (RuntimeException e) {
                LOG.warn("Failed to close the S3 clients of {}", description, e);
            }
        }
    }

    @Override
    public String toString() {
        return description;
    }
}
