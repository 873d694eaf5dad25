package io.rangefetch.testing.proxy;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Queue;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;

/**
 * An HTTP/1.1 reverse proxy on 127.0.0.1 in front of an S3 server, modelling S3's network for tests and
 * benchmarks: each response's first byte waits for a delay, downloads are capped per connection and in
 * total ({@link NetworkModel}), and a {@link ProxyLedger} counts requests and bytes whatever the client
 * (SDK interceptors never see what the CRT sends).
 *
 * <p>Faults ({@link Fault}) fail GETs the way S3 and the network do: queued for the next GETs ({@link
 * #failNext(Fault)}), or drawn at random for every other GET from a seeded plan ({@link
 * #setRandomFaults(RandomFaults)}), so a seed and an order of requests reproduce a run. A request-rate
 * limit ({@link #setRequestRateLimit(double, int)}) refuses GETs and HEADs beyond it with {@code 503
 * SlowDown}, as S3 does per prefix. {@link #injectedFaults()} counts every fault applied, and {@link
 * #openConnections()} the client connections still open, to check a soak leaked none.
 *
 * <p>Tests and benchmarks put it in front of an S3 server through {@link io.rangefetch.testing.ProxiedS3}; on its
 * own, in front of any HTTP server:
 *
 * <pre>{@code
 * try (ShapingProxy proxy = ShapingProxy.start(server.endpoint(), NetworkModel.s3InRegion())) {
 *   S3AsyncClient s3 = ... endpointOverride(proxy.endpoint()) ...;
 *   ...
 *   assertThat(proxy.ledger().gets()).isEqualTo(1);
 * }
 * }</pre>
 *
 * <p>Design: one platform daemon thread accepts; each client connection gets its own thread that
 * serves it with blocking I/O and one server connection of its own, opened at the first request (see
 * {@link ProxyConnection}). Threads are named {@value #THREAD_NAME_PREFIX}{@code <port>-...}. Blocking
 * channels into direct buffers moved 1.0 to 1.7 GB/s through one unshaped connection on loopback (a
 * busy 2-core machine, where a direct connection did 1.7 to 2.2 GB/s), far above any rate a benchmark
 * models; and a thread per connection is what lets each connection be paced on its own. {@link
 * #close()} closes the listener and every connection and returns once all those threads have ended.
 *
 * <p>Thread-safe. Connections, fault counts and the random draws are guarded by the proxy's lock, which
 * is also the monitor state changes are announced on (connections ending, heads held), so tests wait
 * <p><b>Why one file.</b> The proxy's state (connections, fault counts, held heads, the ledger's totals) changes under
 * its one lock, which is also what tests wait on; how one connection's bytes are shaped and copied is in
 * {@link ProxyConnection}, {@link BodyCopier} and {@link Shaping}.
 *
 * for them without sleeping.
 */
public final class ShapingProxy implements AutoCloseable {

    /** Name prefix of every thread a proxy starts, for {@code ThreadLeakChecker}. */
    public static final String THREAD_NAME_PREFIX = "shaping-proxy-";

    private static final System.Logger LOG = System.getLogger(ShapingProxy.class.getName());
    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(10);
    private static final Duration DEFAULT_FAULT_FIRST_BYTE_DELAY = Duration.ofSeconds(2);

    private final URI upstream;
    private final InetSocketAddress upstreamAddress;
    private final ServerSocketChannel listener;
    private final int port;
    private final URI endpoint;
    private final ProxyLedger ledger = new ProxyLedger();
    private final Queue<Fault> faults = new ConcurrentLinkedQueue<>();
    private final Thread acceptor;
    private volatile Shaping shaping;
    private volatile RequestRateLimit rateLimit; // null: no limit

    // guarded by this
    private final Set<ProxyConnection> connections = new HashSet<>();
    private final Map<Fault, Long> injected = new EnumMap<>(Fault.class);
    private final Set<Selector> heldHeads = new HashSet<>(); // one per head held by FIRST_BYTE_DELAY
    private Duration faultFirstByteDelay = DEFAULT_FAULT_FIRST_BYTE_DELAY;
    private RandomFaults randomFaults; // null: none
    private Random random; // randomFaults' draws, from its seed
    private long rateLimited;
    private long connectionsStarted;
    private boolean closed;

    private ShapingProxy(
            URI upstream,
            InetSocketAddress upstreamAddress,
            ServerSocketChannel listener,
            int port,
            NetworkModel model) {
        this.upstream = upstream;
        this.upstreamAddress = upstreamAddress;
        this.listener = listener;
        this.port = port;
        this.endpoint = URI.create("http://127.0.0.1:" + port);
        this.shaping = Shaping.of(model);
        this.acceptor = new Thread(this::acceptLoop, threadName("accept"));
        acceptor.setDaemon(true);
        for (Fault fault : Fault.values()) {
            injected.put(fault, 0L);
        }
    }

    /**
     * Starts a proxy on a free port of 127.0.0.1 that forwards to {@code upstream} (an {@code http://}
     * URI; only its host and port are used) and returns once it accepts connections.
     */
    public static ShapingProxy start(URI upstream, NetworkModel model) throws IOException {
        requireNonNull(upstream, "upstream is null");
        requireNonNull(model, "model is null");
        InetSocketAddress upstreamAddress = socketAddress(upstream);
        ServerSocketChannel listener = ServerSocketChannel.open();
        int port;
        try {
            // an explicit IPv4 loopback: tests promise 127.0.0.1, whatever the JVM prefers
            listener.bind(new InetSocketAddress(InetAddress.getByAddress(new byte[] {127, 0, 0, 1}), 0), 128);
            port = ((InetSocketAddress) listener.getLocalAddress()).getPort();
        } catch (IOException e) {
            listener.close();
            throw e;
        }
        ShapingProxy proxy = new ShapingProxy(upstream, upstreamAddress, listener, port, model);
        proxy.acceptor.start();
        return proxy;
    }

    /** Where clients connect: {@code http://127.0.0.1:<port>}. */
    public URI endpoint() {
        return endpoint;
    }

    /** The server this proxy forwards to. */
    public URI upstream() {
        return upstream;
    }

    public NetworkModel model() {
        return shaping.model();
    }

    /**
     * Shapes responses with {@code model} from now on. A response takes the model in force when its
     * request arrives: responses already under way keep theirs.
     */
    public synchronized void setModel(NetworkModel model) {
        requireNonNull(model, "model is null");
        shaping = shaping.next(model);
    }

    public ProxyLedger ledger() {
        return ledger;
    }

    /**
     * Makes the next GET that arrives fail with {@code fault}; calls queue up, one fault per GET, in
     * order, and go before any random fault. Other methods are never failed, nor GETs the rate limit
     * refuses. A response without a body cannot be cut: a cutting fault drawn by one passes it unharmed
     * (and is not counted in {@link #injectedFaults()}).
     */
    public void failNext(Fault fault) {
        faults.add(requireNonNull(fault, "fault is null"));
    }

    /** Faults queued by {@link #failNext(Fault)} that no GET has drawn yet. */
    public int pendingFaults() {
        return faults.size();
    }

    /**
     * Fails GETs at random with {@code plan} from now on, or stops if null: every GET without a queued
     * fault ({@link #failNext(Fault)}) draws at most one fault. Draws come from a {@code new
     * Random(plan.seed())} made by this call, one per GET in the order the GETs arrive, so the same seed
     * and the same order of requests give the same faults.
     */
    public synchronized void setRandomFaults(RandomFaults plan) {
        randomFaults = plan;
        random = plan == null ? null : new Random(plan.seed());
    }

    /** Stops random faults; the same as {@code setRandomFaults(null)}. */
    public void clearRandomFaults() {
        setRandomFaults(null);
    }

    /** The random fault plan in force, or null. */
    public synchronized RandomFaults randomFaults() {
        return randomFaults;
    }

    /**
     * How long {@link Fault#FIRST_BYTE_DELAY} holds a response head back (2 s unless set). Heads already
     * held wait for the new delay, counted from when they were held: one that has waited that long is
     * released at once.
     *
     * @throws IllegalArgumentException if {@code delay} is negative
     */
    public void setFaultFirstByteDelay(Duration delay) {
        requireNonNull(delay, "delay is null");
        if (delay.isNegative()) {
            throw new IllegalArgumentException("the fault first-byte delay must not be negative: " + delay);
        }
        synchronized (this) {
            faultFirstByteDelay = delay;
            heldHeads.forEach(Selector::wakeup);
        }
    }

    public synchronized Duration faultFirstByteDelay() {
        return faultFirstByteDelay;
    }

    /**
     * Limits GETs and HEADs together to {@code requestsPerSecond}, with a burst of {@code burst}, as S3
     * limits a prefix: a bucket of {@code burst} tokens, full now, refilled at {@code requestsPerSecond};
     * every GET and HEAD takes one as it arrives, and one that finds none is answered {@code 503
     * SlowDown} by the proxy without reaching the server (and takes no token). Refusals count in {@link
     * #rateLimitedRequests()} and as {@link Fault#SLOW_DOWN_503} in {@link #injectedFaults()}. A rate of 0
     * or less turns the limit off; a new limit replaces the old one with a full bucket.
     *
     * @throws IllegalArgumentException if the limit is on and {@code requestsPerSecond} is more than a
     *     million or NaN, or {@code burst} is not in 1..1,000,000
     */
    public void setRequestRateLimit(double requestsPerSecond, int burst) {
        setRequestRateLimit(requestsPerSecond, burst, System::nanoTime);
    }

    /** Turns the request-rate limit off. */
    public void clearRequestRateLimit() {
        rateLimit = null;
    }

    /** Requests the rate limit refused with {@code 503 SlowDown} since the proxy started. */
    public synchronized long rateLimitedRequests() {
        return rateLimited;
    }

    /**
     * How many times each fault was applied since the proxy started, every {@link Fault} included (0 for
     * those never applied): queued, random, and the rate limit's refusals (as {@link
     * Fault#SLOW_DOWN_503}). A fault counts when it is applied, before the client can see it: an answer
     * of the proxy's own or a held head at once, a cut when the body is cut; a cutting fault that finds
     * no body to cut does not count. An immutable copy.
     */
    public synchronized Map<Fault, Long> injectedFaults() {
        return Collections.unmodifiableMap(new EnumMap<>(injected));
    }

    /**
     * Client connections open now: accepted and not yet ended. A connection ends on the proxy's side a
     * moment after its client closes it; {@link #awaitOpenConnections(int, Duration)} waits for that.
     */
    public synchronized int openConnections() {
        return connections.size();
    }

    /**
     * Waits until exactly {@code count} client connections are open, or {@code timeout} passes; returns
     * whether they are.
     */
    public boolean awaitOpenConnections(int count, Duration timeout) throws InterruptedException {
        return await(() -> connections.size() == count, timeout);
    }

    /**
     * Stops accepting, closes every client and server connection (responses under way are cut), and
     * returns once every thread the proxy started has ended.
     */
    @Override
    public void close() {
        List<ProxyConnection> open;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            open = new ArrayList<>(connections);
        }
        try {
            listener.close();
        } catch (IOException e) {
            LOG.log(Level.DEBUG, "closing the listener failed", e);
        }
        open.forEach(ProxyConnection::close);
        long deadline = System.nanoTime() + STOP_TIMEOUT.toNanos();
        List<Thread> threads = new ArrayList<>();
        threads.add(acceptor);
        open.forEach(connection -> threads.add(connection.thread()));
        for (Thread thread : threads) {
            if (!join(thread, deadline)) {
                throw new IllegalStateException("shaping proxy at " + endpoint + ": thread " + thread.getName()
                        + " still alive " + STOP_TIMEOUT + " after close");
            }
        }
    }

    @Override
    public String toString() {
        return "shaping proxy " + endpoint + " -> " + upstream + " (" + model().describe() + ")";
    }

    InetSocketAddress upstreamAddress() {
        return upstreamAddress;
    }

    Shaping shaping() {
        return shaping;
    }

    /** The fault a GET is to fail with: the next queued one, else a random draw; null for none. */
    Fault takeFault() {
        Fault queued = faults.poll();
        if (queued != null) {
            return queued;
        }
        synchronized (this) {
            return randomFaults == null ? null : randomFaults.draw(random);
        }
    }

    /** Whether the rate limit lets a GET or HEAD through; a refusal is counted here. */
    boolean admitRequest() {
        RequestRateLimit limit = rateLimit;
        if (limit == null || limit.tryAcquire()) {
            return true;
        }
        synchronized (this) {
            rateLimited++;
            injected.merge(Fault.SLOW_DOWN_503, 1L, Long::sum);
        }
        return false;
    }

    synchronized void faultApplied(Fault fault) {
        injected.merge(fault, 1L, Long::sum);
    }

    /** The request-rate limit on {@code nanoClock}, so tests move time by hand. */
    void setRequestRateLimit(double requestsPerSecond, int burst, LongSupplier nanoClock) {
        requireNonNull(nanoClock, "nanoClock is null");
        if (requestsPerSecond <= 0) {
            rateLimit = null;
            return;
        }
        rateLimit = new RequestRateLimit(requestsPerSecond, burst, nanoClock);
    }

    synchronized long faultFirstByteDelayNanos() {
        try {
            return faultFirstByteDelay.toNanos();
        } catch (ArithmeticException beyondALong) {
            return Long.MAX_VALUE; // nearly three centuries: for ever
        }
    }

    /** A connection holds a head back, waiting in {@code selector}; a delay change wakes it. */
    synchronized void headHeld(Selector selector) {
        heldHeads.add(selector);
        notifyAll();
    }

    synchronized void headReleased(Selector selector) {
        heldHeads.remove(selector);
        notifyAll();
    }

    /** Response heads {@link Fault#FIRST_BYTE_DELAY} holds back now. */
    public synchronized int heldHeads() {
        return heldHeads.size();
    }

    /** Waits until exactly {@code count} heads are held, or {@code timeout} passes; returns whether they are. */
    public boolean awaitHeldHeads(int count, Duration timeout) throws InterruptedException {
        return await(() -> heldHeads.size() == count, timeout);
    }

    synchronized void connectionEnded(ProxyConnection connection) {
        connections.remove(connection);
        notifyAll();
    }

    /** Waits on this proxy's monitor until {@code condition} (read under the lock) holds or time is up. */
    private synchronized boolean await(BooleanSupplier condition, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return false;
            }
            // every change a waiter may wait for calls notifyAll; the timeout only bounds a wait that fails
            wait(Math.max(1, left / 1_000_000));
        }
        return true;
    }

    private void acceptLoop() {
        while (true) {
            SocketChannel client;
            try {
                client = listener.accept();
            } catch (IOException e) {
                if (!isClosed()) {
                    LOG.log(Level.ERROR, "shaping proxy at " + endpoint + " stopped accepting connections", e);
                }
                return;
            }
            ledger.connectionOpened();
            startConnection(client);
        }
    }

    private void startConnection(SocketChannel client) {
        try {
            synchronized (this) {
                if (closed) {
                    client.close();
                    return;
                }
                String name = threadName(String.valueOf(++connectionsStarted));
                ProxyConnection connection = new ProxyConnection(this, client, name);
                connections.add(connection);
                notifyAll();
                connection.start();
            }
        } catch (IOException e) {
            LOG.log(Level.WARNING, "could not serve a connection to " + endpoint, e);
            try {
                client.close();
            } catch (IOException closing) {
                e.addSuppressed(closing);
            }
        }
    }

    private synchronized boolean isClosed() {
        return closed;
    }

    private String threadName(String role) {
        return THREAD_NAME_PREFIX + port + "-" + role;
    }

    /**
     * Joins {@code thread} until {@code deadline}; an interrupted caller stops waiting (keeping its
     * interrupt) and is told the thread ended, since it asked to stop waiting.
     */
    private static boolean join(Thread thread, long deadline) {
        try {
            long millis = Math.max(1, (deadline - System.nanoTime()) / 1_000_000);
            thread.join(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return true;
        }
        return !thread.isAlive();
    }

    private static InetSocketAddress socketAddress(URI upstream) {
        String scheme = upstream.getScheme() == null ? "" : upstream.getScheme().toLowerCase(Locale.ROOT);
        if (!scheme.equals("http") || upstream.getHost() == null) {
            throw new IllegalArgumentException("upstream must be an http:// URI with a host: " + upstream);
        }
        return new InetSocketAddress(upstream.getHost(), upstream.getPort() == -1 ? 80 : upstream.getPort());
    }
}
