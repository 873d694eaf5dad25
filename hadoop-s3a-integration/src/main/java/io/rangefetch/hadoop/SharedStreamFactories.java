package io.rangefetch.hadoop;

import static java.util.Objects.requireNonNull;

import io.rangefetch.StreamConfig;
import io.rangefetch.StreamFactory;
import io.rangefetch.client.ObjectClient;
import java.io.IOException;
import java.lang.ref.Cleaner;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.security.UserGroupInformation;

/**
 * The Rangefetch factories of S3A file systems that read alike, shared in this JVM.
 *
 * <p><b>Why.</b> S3A makes one stream factory per file system, and Hadoop caches one file system per bucket and
 * user. With {@code fs.s3a.impl.disable.cache=true} every {@code FileSystem.get} makes a new file system, and
 * engines make one per task and seldom close it. A Rangefetch factory per file system would then be a cache budget
 * and a pool of threads per task. Instead the file systems of one {@link Identity} lease one {@link Holder}: one
 * budget, one pool.
 *
 * <p><b>Identity.</b> The user (Hadoop's file system cache compares the same {@link UserGroupInformation}) and every
 * {@code fs.s3a.} setting, Rangefetch's among them: file systems whose credentials, endpoint or any other S3A setting
 * differ never share a factory, so bytes one credential read are never served to a reader holding another. Each GET
 * goes out through the callbacks of a stream open on that object ({@link StreamCallbacksS3Client}), so a shared
 * factory sends every request through an S3A file system with those settings.
 *
 * <p><b>Leases.</b> A file system's factory takes its lease when S3A starts it and gives it back when S3A stops it
 * (the file system's close) or, never closed, when it is collected ({@link Cleaner}); a stream holds its factory,
 * so a file system dropped with a stream still open is not collected under it. The last lease closes the
 * Rangefetch factory. There is no eviction: a factory in use is never closed.
 *
 * <p><b>Locks.</b> The registry's monitor guards the map and every holder's lease count; the factory is closed
 * outside it.
 */
final class SharedStreamFactories {
    // one daemon thread for the whole JVM, started at the first lease; named by the JDK (not rangefetch-)
    private static final Cleaner FILE_SYSTEMS_COLLECTED = Cleaner.create();
    private static final Map<Identity, Holder> HOLDERS = new HashMap<>(); // guarded by HOLDERS

    private SharedStreamFactories() {}

    /** What makes two S3A file systems read alike. */
    record Identity(UserGroupInformation user, Map<String, String> s3aSettings) {
        Identity {
            requireNonNull(user, "user is null");
            s3aSettings = Map.copyOf(s3aSettings);
        }

        /** The current user's identity for a file system's configuration (bucket overrides already folded in). */
        static Identity of(Configuration conf) throws IOException {
            return new Identity(
                    UserGroupInformation.getCurrentUser(), new TreeMap<>(conf.getPropsWithPrefix("fs.s3a.")));
        }

        @Override
        public String toString() {
            // the settings hold secrets: name only what cannot leak one
            return "Identity{user=" + user.getShortUserName() + ", " + s3aSettings.size() + " fs.s3a settings}";
        }
    }

    /**
     * Leases the shared factory for {@code identity}, making it with {@code config} when no file system holds one;
     * the lease ends when {@code owner} is collected if {@link Lease#release} did not end it first.
     */
    static Lease lease(Object owner, Identity identity, StreamConfig config) {
        requireNonNull(owner, "owner is null");
        requireNonNull(config, "config is null");
        Holder holder;
        synchronized (HOLDERS) {
            holder = HOLDERS.computeIfAbsent(identity, key -> new Holder(key, config));
            holder.leases++;
        }
        // the action refers to the holder, never to the owner, or the owner could not be collected
        return new Lease(holder, FILE_SYSTEMS_COLLECTED.register(owner, () -> returned(holder)));
    }

    /** How many shared factories are open in this JVM (for tests). */
    static int openFactories() {
        synchronized (HOLDERS) {
            return HOLDERS.size();
        }
    }

    /** Waits up to {@code timeoutMillis} for no more than {@code count} to be open; whether they are (for tests). */
    static boolean awaitOpenFactories(int count, long timeoutMillis) throws InterruptedException {
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
            holder.factory.close();
        }
    }

    /** One file system's share of a factory; ended once, by {@link #release} or by its owner's collection. */
    static final class Lease {
        private final Holder holder;
        private final Cleaner.Cleanable cleanable; // its action gives the lease back, at most once

        private Lease(Holder holder, Cleaner.Cleanable cleanable) {
            this.holder = holder;
            this.cleanable = cleanable;
        }

        StreamFactory factory() {
            return holder.factory;
        }

        StreamCallbacksS3Client requests() {
            return holder.requests;
        }

        /** Gives the lease back (the last one closes the factory); later calls do nothing. */
        void release() {
            cleanable.clean(); // the Cleaner runs the action at most once: now, or already at collection
        }
    }

    /** One identity's factory and the registry its GETs go out through. */
    private static final class Holder {
        private final Identity identity;
        private final StreamCallbacksS3Client requests = new StreamCallbacksS3Client();
        private final StreamFactory factory;
        private int leases; // guarded by HOLDERS

        Holder(Identity identity, StreamConfig config) {
            this.identity = identity;
            // makes no thread until the first fetch: cheap enough under the registry's monitor
            this.factory = StreamFactory.create(ObjectClient.of(requests), config);
        }
    }
}
