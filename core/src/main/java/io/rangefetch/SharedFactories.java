package io.rangefetch;

import static java.util.Objects.requireNonNull;

import io.rangefetch.internal.identity.Fingerprints;
import java.lang.ref.Cleaner;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Stream factories shared in this JVM by everything that reads alike: the one registry the adapters lease their
 * factories from (S3A's file systems, Iceberg's FileIOs and their deserialized copies), and that an application
 * sharing factories between components of its own may use too.
 *
 * <p><b>Why.</b> Engines make readers by the hundred and close few: Hadoop makes a file system per task when its cache
 * is off, Iceberg ships a FileIO to every task by serialization. A factory per reader would be a cache budget and a
 * pool of threads per reader. Instead everything with the same {@link Key} leases one shared value (a
 * {@link StreamFactory}, or an adapter's holder of factories and the clients they send through): one budget, one pool.
 *
 * <p><b>Identity and settings.</b> A key is a scope (which adapter, which kind of value), every setting the value is
 * made from (S3 client settings, credentials and where they come from, SSE-C keys, Rangefetch's settings), and the
 * objects that must be the very same for two readers to share (Hadoop's user, whose credentials and delegation tokens
 * are its own). Readers whose credentials, keys or any other setting differ never share a factory, so nothing one
 * identity fetched is served to another through a shared factory; within a factory the engine keys everything by
 * identity too. The settings are kept as a SHA-256 digest, never as text: the registry holds no secret, and a key's
 * {@code toString} names its scope and a tag only.
 *
 * <p><b>Leases and linger.</b> A reader leases the value when it starts and gives the lease back when it closes or,
 * never closed, when it is collected ({@link Cleaner}; the cleaning action refers to the entry, never to the reader).
 * There is no eviction: a value leased is never closed. When the last lease is given back the value lingers
 * ({@code factory.linger}, 5 minutes by default) and is closed then, unless a new lease comes first and takes it as it
 * is, its cache warm: an executor whose queries each deserialize their own FileIO copies keeps one factory across
 * queries. A linger of zero closes at once. Lingering values hold their cache but no thread (the factories' pools let
 * idle threads go); the one timer thread that closes them ends when nothing lingers, and is a daemon: a JVM whose
 * work is done exits, and nothing it left lingering is left running. {@link #closeIdle()} closes every lingering value
 * now.
 *
 * <p><b>Locks.</b> The registry's monitor guards the map and every entry's lease count and linger; values are made
 * under it (making a factory starts no thread) and closed outside it. Thread-safe.
 */
public final class SharedFactories {
    private static final Logger LOG = LoggerFactory.getLogger(SharedFactories.class);

    private static final SharedFactories JVM = new SharedFactories(null);

    // one daemon thread for the whole JVM, started at the first lease; named by the JDK (not rangefetch-)
    private final Cleaner collected = Cleaner.create();
    private final Map<Key, Entry> entries = new HashMap<>(); // guarded by this
    // the timer that closes lingering values: given (tests), else made when something starts to linger and shut down
    // when nothing lingers any more, so its thread is alive exactly while a value lingers
    private final ScheduledExecutorService givenTimer;
    private ScheduledThreadPoolExecutor ownTimer; // guarded by this

    SharedFactories(ScheduledExecutorService timer) {
        this.givenTimer = timer;
    }

    /** The registry of this JVM. */
    static SharedFactories jvm() {
        return JVM;
    }

    /**
     * Leases the value for {@code key} in this JVM's registry, making it with {@code make} when none is open (nor
     * lingering); the lease ends when {@code owner} is collected if {@link Lease#release} did not end it first.
     *
     * @param linger how long the value stays open after its last lease ends ({@code factory.linger})
     * @throws ClassCastException if the value of {@code key} is not of the type {@code make} makes: give each kind of
     *     value a scope of its own
     */
    public static <T extends AutoCloseable> Lease<T> lease(
            Object owner, Key key, Duration linger, Supplier<? extends T> make) {
        return JVM.leaseOf(owner, key, linger, make);
    }

    /** How many shared values are open in this JVM, lingering ones included. */
    public static int openCount() {
        return JVM.open();
    }

    /** Closes every shared value of this JVM that no lease holds now (those lingering), without waiting. */
    public static void closeIdle() {
        JVM.closeLingering();
    }

    /**
     * Waits up to {@code timeout} until at most {@code count} shared values are open in this JVM (an application
     * shutting down, a test); whether they are.
     */
    public static boolean awaitOpenCount(int count, Duration timeout) throws InterruptedException {
        return JVM.awaitOpen(count, timeout.toMillis());
    }

    <T extends AutoCloseable> Lease<T> leaseOf(Object owner, Key key, Duration linger, Supplier<? extends T> make) {
        requireNonNull(owner, "owner is null");
        requireNonNull(key, "key is null");
        requireNonNull(linger, "linger is null");
        requireNonNull(make, "make is null");
        if (linger.isNegative()) {
            throw new IllegalArgumentException("linger must not be negative, got " + linger);
        }
        Entry entry;
        synchronized (this) {
            entry = entries.get(key);
            if (entry == null) {
                entry = new Entry(key, requireNonNull(make.get(), "make gave null"), linger);
                entries.put(key, entry);
            }
            entry.leases++;
            if (entry.lingering != null) {
                entry.lingering.cancel(false);
                entry.lingering = null; // a task already running finds it replaced and leaves the value open
                stopTimerIfIdle();
            }
        }
        @SuppressWarnings("unchecked")
        T value = (T) entry.value;
        Entry leased = entry;
        return new Lease<>(value, collected.register(owner, () -> returned(leased)));
    }

    synchronized int open() {
        return entries.size();
    }

    /** Waits up to {@code timeoutMillis} for no more than {@code count} to be open; whether they are (for tests). */
    synchronized boolean awaitOpen(int count, long timeoutMillis) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        for (long left = timeoutMillis;
                entries.size() > count && left > 0;
                left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())) {
            wait(left);
        }
        return entries.size() <= count;
    }

    void closeLingering() {
        List<Entry> idle = new ArrayList<>();
        synchronized (this) {
            for (Entry entry : List.copyOf(entries.values())) {
                if (entry.leases == 0) {
                    if (entry.lingering != null) {
                        entry.lingering.cancel(false);
                        entry.lingering = null;
                    }
                    entries.remove(entry.key);
                    idle.add(entry);
                }
            }
            stopTimerIfIdle();
            notifyAll();
        }
        idle.forEach(SharedFactories::close);
    }

    private void returned(Entry entry) {
        synchronized (this) {
            if (--entry.leases > 0) {
                return;
            }
            if (!entry.linger.isZero()) {
                ScheduledFuture<?>[] task = new ScheduledFuture<?>[1];
                task[0] =
                        timer().schedule(() -> lingered(entry, task[0]), entry.linger.toNanos(), TimeUnit.NANOSECONDS);
                entry.lingering = task[0];
                return;
            }
            entries.remove(entry.key);
            notifyAll();
        }
        close(entry);
    }

    /** The linger of {@code entry} ran out: closes it unless a lease came meanwhile (or a newer linger began). */
    private void lingered(Entry entry, ScheduledFuture<?> task) {
        synchronized (this) {
            if (entry.leases > 0 || entry.lingering == null || entry.lingering != task) {
                return;
            }
            entry.lingering = null;
            entries.remove(entry.key);
            stopTimerIfIdle();
            notifyAll();
        }
        close(entry);
    }

    private synchronized ScheduledExecutorService timer() {
        if (givenTimer != null) {
            return givenTimer;
        }
        if (ownTimer == null) {
            ownTimer = new ScheduledThreadPoolExecutor(1, runnable -> {
                Thread thread = new Thread(runnable, "rangefetch-linger");
                thread.setDaemon(true);
                return thread;
            });
            ownTimer.setRemoveOnCancelPolicy(true);
        }
        return ownTimer;
    }

    /**
     * Shuts the timer this registry made down once no value lingers: its thread ends now rather than idling. A task
     * running at that moment (the one that found nothing lingers) still completes.
     */
    private void stopTimerIfIdle() {
        assert Thread.holdsLock(this);
        if (ownTimer == null || entries.values().stream().anyMatch(entry -> entry.lingering != null)) {
            return;
        }
        ownTimer.shutdown();
        ownTimer = null;
    }

    private static void close(Entry entry) {
        try {
            entry.value.close();
        } catch (Exception e) {
            LOG.warn("Failed to close the shared Rangefetch factory of {}", entry.key, e);
        }
    }

    /** One shared value, its leases and its linger; all but the value guarded by the registry. */
    private static final class Entry {
        final Key key;
        final AutoCloseable value;
        final Duration linger;
        int leases;
        ScheduledFuture<?> lingering;

        Entry(Key key, AutoCloseable value, Duration linger) {
            this.key = key;
            this.value = value;
            this.linger = linger;
        }
    }

    /**
     * What makes two readers share: a scope, the settings their value is made from (digested), and the objects that
     * must be the same (compared with {@code equals}: a Hadoop {@code UserGroupInformation} is equal only to itself
     * and to one of the same login). Immutable.
     */
    public static final class Key {
        private final String scope;
        private final byte[] settings;
        private final List<Object> sameObjects;
        private final int hash;

        private Key(String scope, byte[] settings, List<Object> sameObjects) {
            this.scope = scope;
            this.settings = settings;
            this.sameObjects = sameObjects;
            this.hash = (scope.hashCode() * 31 + Arrays.hashCode(settings)) * 31 + sameObjects.hashCode();
        }

        /**
         * The key of {@code scope} with {@code settings} (order does not matter; secrets among them are digested, never
         * kept) and {@code sameObjects}.
         */
        public static Key of(String scope, Map<String, String> settings, Object... sameObjects) {
            requireNonNull(scope, "scope is null");
            requireNonNull(settings, "settings is null");
            List<String> parts = new ArrayList<>(settings.size() * 2);
            for (Map.Entry<String, String> setting : new TreeMap<>(settings).entrySet()) {
                parts.add(setting.getKey());
                parts.add(setting.getValue());
            }
            return new Key(scope, Fingerprints.settings(scope, parts), List.of(sameObjects));
        }

        @Override
        public boolean equals(Object other) {
            return other instanceof Key key
                    && key.scope.equals(scope)
                    && Arrays.equals(key.settings, settings)
                    && key.sameObjects.equals(sameObjects);
        }

        @Override
        public int hashCode() {
            return hash;
        }

        /** The scope and a tag that tells keys apart in this JVM's logs; never a setting. */
        @Override
        public String toString() {
            return scope + " " + Fingerprints.tag(settings);
        }
    }

    /** One reader's share of a value; ended once, by {@link #release} or by the reader's collection. */
    public static final class Lease<T> {
        private final T value;
        private final Cleaner.Cleanable cleanable; // its action gives the lease back, at most once

        private Lease(T value, Cleaner.Cleanable cleanable) {
            this.value = value;
            this.cleanable = cleanable;
        }

        /** The shared value; open as long as this lease is held. */
        public T value() {
            return value;
        }

        /** Gives the lease back (the last one starts the value's linger); later calls do nothing. */
        public void release() {
            cleanable.clean(); // the Cleaner runs the action at most once: now, or already at collection
        }
    }
}
