package io.rangefetch.it.proxy;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * An HTTP/1.1 reverse proxy on 127.0.0.1 in front of an S3 server, modelling S3's network for tests and
 * benchmarks: each response's first byte waits for a delay, downloads are capped per connection and in
 * total ({@link NetworkModel}), and a {@link ProxyLedger} counts requests and bytes whatever the client
 * (SDK interceptors never see what the CRT sends). Faults can be injected into the next GETs ({@link
 * #failNext(Fault)}).
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
 * models; and a thread per connection is what lets each connection be paced on its own. {@link #close()} closes the listener and every connection and returns once all those threads
 * have ended. Thread-safe.
 */
public final class ShapingProxy implements AutoCloseable {

  /** Name prefix of every thread a proxy starts, for {@code ThreadLeakChecker}. */
  public static final String THREAD_NAME_PREFIX = "shaping-proxy-";

  private static final System.Logger LOG = System.getLogger(ShapingProxy.class.getName());
  private static final Duration STOP_TIMEOUT = Duration.ofSeconds(10);

  private final URI upstream;
  private final InetSocketAddress upstreamAddress;
  private final ServerSocketChannel listener;
  private final int port;
  private final URI endpoint;
  private final ProxyLedger ledger = new ProxyLedger();
  private final Queue<Fault> faults = new ConcurrentLinkedQueue<>();
  private final Thread acceptor;
  private volatile Shaping shaping;

  // guarded by this
  private final Set<ProxyConnection> connections = new HashSet<>();
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
   * order. Other methods are never failed. A response without a body cannot be cut: a cutting fault
   * drawn by one passes it unharmed.
   */
  public void failNext(Fault fault) {
    faults.add(requireNonNull(fault, "fault is null"));
  }

  /** Faults queued by {@link #failNext(Fault)} that no GET has drawn yet. */
  public int pendingFaults() {
    return faults.size();
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
        throw new IllegalStateException(
            "shaping proxy at " + endpoint + ": thread " + thread.getName() + " still alive " + STOP_TIMEOUT
                + " after close");
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

  Fault takeFault() {
    return faults.poll();
  }

  synchronized void connectionEnded(ProxyConnection connection) {
    connections.remove(connection);
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
