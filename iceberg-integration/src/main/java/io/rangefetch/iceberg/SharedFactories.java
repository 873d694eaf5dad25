package io.rangefetch.iceberg;

import static java.util.Objects.requireNonNull;

import io.rangefetch.StreamConfig;
import io.rangefetch.StreamFactory;
import java.lang.ref.Cleaner;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.apache.iceberg.aws.s3.S3FileIO;
import org.apache.iceberg.io.StorageCredential;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The stream factories of one FileIO, shared in this JVM by all its copies.
 *
 * <p><b>Why.</b> Iceberg ships a FileIO to every task by serialization, so an executor holds copies by the hundred
 * over its life, and closes few of them. A factory per copy would be a block-cache budget ({@code cache.max-memory})
 * and a set of threads per copy. Instead every copy of one FileIO leases one {@link Holder}: one budget, one pool.
 *
 * <p><b>Identity.</b> Copies share a holder when they have the same {@link Identity}: their properties (S3 client
 * settings and {@code rangefetch.} settings alike), their storage credentials, and, for a FileIO built from a
 * caller's client supplier, the lineage the original minted, since two suppliers cannot be compared. Two FileIOs a
 * catalog made with the same properties share too: they would read through equal clients with equal settings.
 *
 * <p><b>Clients.</b> A holder owns the clients its factories send through: an {@link S3FileIO} of its own, with the
 * identity's properties and credentials, whose {@code client(path)} picks the client for a path as the copy's
 * would. It cannot borrow a copy's clients, since {@code S3FileIO} closes those with the copy while other copies
 * still read.
 *
 * <p><b>Leases.</b> A copy takes a lease at its first read and gives it back when it closes or, never closed, when
 * it is collected ({@link Cleaner}): input files and streams hold their FileIO, so a copy with a stream still open
 * is never collected. The last lease of a holder closes its factories (fetches and threads stop while the clients
 * are open), then its clients. There is no eviction: a holder in use is never closed (unlike a bounded cache of
 * factories, which can close one still read, apache/iceberg#17485). A holder whose copies live but are idle keeps
 * at most its cache's budget and no thread: the factories' pools let idle threads go.
 *
 * <p><b>Locks.</b> The registry's monitor guards the map and every holder's lease count; a holder's own monitor
 * guards its factory map and its closed flag. Order: registry, then holder; clients and factories are closed
 * outside the registry's monitor.
 */
final class SharedFactories {
    private static final Logger LOG = LoggerFactory.getLogger(SharedFactories.class);
    // one daemon thread for the whole JVM, started at the first lease; named by the JDK (not rangefetch-)
    private static final Cleaner COPIES_COLLECTED = Cleaner.create();
    private static final Map<Identity, Holder> HOLDERS = new HashMap<>(); // guarded by HOLDERS

    private SharedFactories() {}

    /**
     * What makes two FileIOs read alike: equal properties, equal storage credentials and, for a FileIO built from a
     * caller's supplier, the same lineage ({@code null} otherwise).
     */
    record Identity(Map<String, String> properties, List<StorageCredential> credentials, String clientLineage) {
        Identity {
            properties = Map.copyOf(properties);
            credentials = List.copyOf(credentials);
        }

        @Override
        public String toString() {
            // properties hold secrets: name only what cannot leak one
            return "Identity{" + properties.size() + " properties, " + credentials.size() + " credentials"
                    + (clientLineage == null ? "" : ", client lineage " + clientLineage) + "}";
        }
    }

    /**
     * Leases the holder for {@code identity}, making it (with {@code clients} and {@code config}) when no copy holds
     * one; the lease ends when {@code copy} is collected if {@link Lease#release} did not end it first.
     */
    static Lease lease(Object copy, Identity identity, Supplier<S3FileIO> clients, StreamConfig config) {
        requireNonNull(copy, "copy is null");
        Holder holder;
        synchronized (HOLDERS) {
            holder = HOLDERS.computeIfAbsent(identity, key -> new Holder(key, clients, config));
            holder.leases++;
        }
        // the action refers to the holder, never to the copy, or the copy could not be collected
        return new Lease(holder, COPIES_COLLECTED.register(copy, () -> returned(holder)));
    }

    /** How many holders are open in this JVM (for tests). */
    static int openHolders() {
        synchronized (HOLDERS) {
            return HOLDERS.size();
        }
    }

    /** Waits up to {@code timeoutMillis} for no more than {@code count} to be open; whether they are (for tests). */
    static boolean awaitOpenHolders(int count, long timeoutMillis) throws InterruptedException {
        long deadline = System.nanoTime() + timeoutMillis * 1_000_000;
        synchronized (HOLDERS) {
            for (long left = timeoutMillis;
                    HOLDERS.size() > count && left > 0;
                    left = (deadline - System.nanoTime()) / 1_000_000) {
                HOLDERS.wait(left);
            }
            return HOLDERS.size() <= count;
        }
    }

    private static void returned(Holder holder) {
        boolean last;
        synchronized (HOLDERS) {
            last = --holder.leases == 0;
            if (last) {
                HOLDERS.remove(holder.identity);
                HOLDERS.notifyAll();
            }
        }
        if (last) {
            holder.close();
        }
    }

    /** One copy's share of a holder; ended once, by {@link #release} or by the copy's collection. */
    static final class Lease {
        private final Holder holder;
        private final Cleaner.Cleanable cleanable; // its action gives the lease back, at most once

        private Lease(Holder holder, Cleaner.Cleanable cleanable) {
            this.holder = holder;
            this.cleanable = cleanable;
        }

        /** The factory for the client the holder's FileIO gives {@code path}. */
        StreamFactory factoryFor(String path) {
            return holder.factoryFor(path);
        }

        List<StreamFactory> factories() {
            return holder.factories();
        }

        /** Gives the lease back (the last one closes the holder); later calls do nothing. */
        void release() {
            cleanable.clean(); // the Cleaner runs the action at most once: now, or already at collection
        }
    }

    /** The clients and factories of one identity. */
    private static final class Holder {
        private final Identity identity;
        private final Supplier<S3FileIO> clientSource;
        private final StreamConfig config;
        private int leases; // guarded by HOLDERS
        // guarded by this
        private S3FileIO clients;
        private final Map<S3Client, StreamFactory> factories = new IdentityHashMap<>();
        private boolean closed;

        Holder(Identity identity, Supplier<S3FileIO> clientSource, StreamConfig config) {
            this.identity = identity;
            this.clientSource = clientSource;
            this.config = config;
        }

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

        void close() {
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
                    LOG.warn("Failed to close a Rangefetch stream factory of {}", identity, e);
                }
            }
            if (toCloseClients != null) {
                try {
                    toCloseClients.close();
                } catch (RuntimeException e) {
                    LOG.warn("Failed to close the S3 clients of {}", identity, e);
                }
            }
        }
    }
}
