package io.rangefetch.testing.server;

import static java.nio.charset.StandardCharsets.US_ASCII;
import static java.nio.charset.StandardCharsets.UTF_8;
import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;
import software.amazon.awssdk.auth.credentials.AwsSessionCredentials;

/**
 * A real MinIO server: the {@code minio} binary run as a child process on 127.0.0.1, with its data in a
 * temporary directory. Nothing needs Docker; {@code .ci/run} builds the binary with {@code go install}.
 *
 * <p>The binary is {@code $MINIO_BINARY} if set, else {@code minio} on the {@code PATH}, else
 * {@code $(go env GOPATH)/bin/minio}, where {@code go install} puts it.
 *
 * <p>{@link #startTls()} serves {@code https} with a certificate made for that start ({@link
 * LoopbackCertificate}), which is how MinIO serves SSE-C at all; clients trust that one certificate
 * through {@link #trustManagers()} ({@link S3Clients} does so by itself), {@link #sslContext()} or
 * {@link #trustStore()}, never by trusting everything. {@link #addUser} makes users who may read only
 * some buckets, through this repository's {@code rangefetch-minio-admin} ({@link MinioAdmin}; found as {@code
 * minio} is, from {@code $MINIO_ADMIN_BINARY}); {@link #assumeRole} gets a user temporary credentials from MinIO's
 * STS API.
 *
 * <p>Ports are picked free just before the start, so another process can take one in between; a
 * start that dies is therefore retried a couple of times with fresh ports before it fails. The
 * server's output goes to a log file beside the data (a pipe nobody reads would stall it once full)
 * and is quoted in the exception when a start fails.
 */
public final class MinioServer implements S3Server {

    public static final String ACCESS_KEY = "minioadmin";
    public static final String SECRET_KEY = "minioadmin-secret";

    private static final Duration READY_TIMEOUT = Duration.ofSeconds(60);
    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(10);
    private static final int START_ATTEMPTS = 3;
    private static final Duration CERTIFICATE_VALIDITY = Duration.ofDays(1);
    // guards only the integrity of a file that holds no private key: no secret
    private static final String TRUST_STORE_PASSWORD = "rangefetch";

    private final Process process;
    private final Path workDir;
    private final URI endpoint;
    private final Optional<Tls> tls;
    private final Thread shutdownHook;
    // made on first use, guarded by this
    private MinioAdmin admin;
    private JvmDefaultTrust jvmDefaultTrust;

    private MinioServer(Process process, Path workDir, URI endpoint, Optional<Tls> tls) {
        this.process = process;
        this.workDir = workDir;
        this.endpoint = endpoint;
        this.tls = tls;
        // A JVM that exits without close() (a failed fork, ^C) must not leave MinIO running.
        this.shutdownHook = new Thread(this::stopProcess, "minio-server-shutdown");
        Runtime.getRuntime().addShutdownHook(shutdownHook);
    }

    /** Whether a {@code minio} binary can be found; cheap enough to call per test class. */
    public static boolean binaryAvailable() {
        return findBinary().isPresent();
    }

    /** The {@code minio} binary this class would run, if there is one. */
    public static Optional<Path> findBinary() {
        return GoBinaries.find("minio", "MINIO_BINARY");
    }

    /** Whether a {@code rangefetch-minio-admin} binary can be found, which {@link #addUser} needs. */
    public static boolean adminAvailable() {
        return findAdminBinary().isPresent();
    }

    /**
     * The {@code rangefetch-minio-admin} binary {@link #addUser} would run ({@code testing/minio-admin}, which
     * {@code .ci/run} builds): {@code $MINIO_ADMIN_BINARY} if set, else {@code rangefetch-minio-admin} on the {@code
     * PATH}, else in {@code $(go env GOPATH)/bin}.
     */
    public static Optional<Path> findAdminBinary() {
        return GoBinaries.find(MinioAdmin.HELPER, "MINIO_ADMIN_BINARY");
    }

    /** Starts MinIO and returns once it answers ready; fails if there is no binary. */
    public static MinioServer start() throws IOException {
        return start(Optional.empty(), false);
    }

    /**
     * Starts MinIO serving {@code https://127.0.0.1:PORT} with a self-signed certificate made for this
     * start (valid for a day, for {@code 127.0.0.1} and {@code localhost}; its files are in {@code
     * certs/} of the {@linkplain #workDirectory() work directory}), and returns once it answers ready
     * over TLS. Only over TLS does MinIO accept SSE-C requests.
     */
    public static MinioServer startTls() throws IOException {
        return start(Optional.empty(), true);
    }

    /**
     * Starts MinIO on {@code dataDirectory} (created if missing), which {@link #close()} leaves in place:
     * objects written in one run are there in the next, so large generated data sets are made once. Only
     * one server at a time may use a directory.
     */
    public static MinioServer start(Path dataDirectory) throws IOException {
        requireNonNull(dataDirectory, "dataDirectory is null");
        return start(Optional.of(Files.createDirectories(dataDirectory)), false);
    }

    private static MinioServer start(Optional<Path> keptData, boolean withTls) throws IOException {
        Path binary = findBinary()
                .orElseThrow(() ->
                        new IOException("no minio binary: set MINIO_BINARY, put minio on the PATH or run `go install"
                                + " github.com/minio/minio@<version>` (see .ci/run)"));
        IOException failure = null;
        for (int attempt = 1; attempt <= START_ATTEMPTS; attempt++) {
            try {
                return startOnce(binary, keptData, withTls);
            } catch (PortTakenException e) {
                failure = e; // someone took a port between our probe and MinIO's bind: try fresh ones
            }
        }
        throw failure;
    }

    private static MinioServer startOnce(Path binary, Optional<Path> keptData, boolean withTls) throws IOException {
        // the log (and, unless the caller keeps the data, the data) lives in a directory close() deletes
        Path workDir = Files.createTempDirectory("rangefetch-minio-");
        Optional<Tls> tls;
        try {
            tls = withTls ? Optional.of(Tls.create(workDir)) : Optional.empty();
        } catch (IOException | RuntimeException e) {
            deleteRecursively(workDir);
            throw e;
        }
        Path dataDir = keptData.isPresent() ? keptData.get() : Files.createDirectory(workDir.resolve("data"));
        Path log = workDir.resolve("minio.log");
        int[] ports = freeLoopbackPorts(2);
        URI endpoint = URI.create((withTls ? "https" : "http") + "://127.0.0.1:" + ports[0]);

        List<String> command = new ArrayList<>(List.of(
                binary.toString(),
                "server",
                dataDir.toString(),
                "--address",
                "127.0.0.1:" + ports[0],
                "--console-address",
                "127.0.0.1:" + ports[1]));
        tls.ifPresent(it -> command.addAll(List.of("--certs-dir", it.certsDir().toString())));
        ProcessBuilder builder =
                new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
        Map<String, String> env = builder.environment();
        // Settings from the caller's shell (another MinIO's credentials, a remote KMS) would change behaviour.
        env.keySet().removeIf(name -> name.startsWith("MINIO_"));
        env.put("MINIO_ROOT_USER", ACCESS_KEY);
        env.put("MINIO_ROOT_PASSWORD", SECRET_KEY);
        env.put("MINIO_BROWSER", "off");
        env.put("MINIO_UPDATE", "off"); // never phone home from a test

        Process process;
        try {
            process = builder.start();
        } catch (IOException e) {
            deleteRecursively(workDir);
            throw e;
        }
        MinioServer server = new MinioServer(process, workDir, endpoint, tls);
        try {
            server.awaitReady(log);
            return server;
        } catch (IOException | RuntimeException | Error e) {
            server.close();
            throw e;
        }
    }

    private void awaitReady(Path log) throws IOException {
        URI ready = endpoint.resolve("/minio/health/ready");
        long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
        while (true) {
            if (!process.isAlive()) {
                String output = readQuietly(log);
                String message = "minio exited with " + process.exitValue() + " before it was ready:\n" + output;
                throw output.contains("already in use") ? new PortTakenException(message) : new IOException(message);
            }
            String answer = probe(ready, tls.map(Tls::sslContext));
            if (answer.startsWith("HTTP/1.1 200 ")) {
                return;
            }
            if (System.nanoTime() > deadline) {
                throw new IOException("minio not ready at " + ready + " after " + READY_TIMEOUT + " (last answer: "
                        + answer + "):\n" + readQuietly(log));
            }
            try {
                // doubles as the pause between polls and as the earliest notice that the process died
                process.waitFor(100, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new InterruptedIOException("interrupted waiting for minio to start");
            }
        }
    }

    /**
     * The status line {@code uri} answers a GET with, or why there is none. A socket of our own, and no
     * keep-alive (a cached connection would start the JDK's Keep-Alive-Timer thread, which outlives the
     * check and shows up in thread-leak checks): an {@code HttpsURLConnection} makes the JVM's default
     * TLS context as it is created, even one then given another socket factory, which would fix the
     * default trust before {@link #trustInJvmDefaults()} could change it.
     */
    private static String probe(URI uri, Optional<SSLContext> sslContext) {
        try (Socket socket =
                sslContext.isPresent() ? sslContext.get().getSocketFactory().createSocket() : new Socket()) {
            if (socket instanceof SSLSocket tls) {
                SSLParameters parameters = tls.getSSLParameters();
                parameters.setEndpointIdentificationAlgorithm("HTTPS"); // check the host name, as clients do
                tls.setSSLParameters(parameters);
            }
            socket.connect(new InetSocketAddress(uri.getHost(), uri.getPort()), 1_000);
            socket.setSoTimeout(1_000);
            OutputStream out = socket.getOutputStream();
            out.write(("GET " + uri.getRawPath() + " HTTP/1.1\r\nHost: " + uri.getRawAuthority()
                            + "\r\nConnection: close\r\n\r\n")
                    .getBytes(US_ASCII));
            out.flush();
            InputStream in = socket.getInputStream();
            StringBuilder statusLine = new StringBuilder();
            for (int b = in.read(); b != -1 && b != '\n' && statusLine.length() < 200; b = in.read()) {
                statusLine.append((char) b);
            }
            return statusLine.toString().strip();
        } catch (IOException notYet) {
            return notYet.toString();
        }
    }

    @Override
    public URI endpoint() {
        return endpoint;
    }

    @Override
    public String accessKey() {
        return ACCESS_KEY;
    }

    @Override
    public String secretKey() {
        return SECRET_KEY;
    }

    @Override
    public String name() {
        return "minio";
    }

    /** For a {@link #startTls()} server, trust managers that accept its certificate and nothing else. */
    @Override
    public Optional<TrustManager[]> trustManagers() {
        return tls.map(it -> it.certificate().trustManagers());
    }

    /**
     * The certificate of a {@link #startTls()} server.
     *
     * @throws IllegalStateException if this server serves plain HTTP
     */
    public X509Certificate certificate() {
        return requireTls().certificate().certificate();
    }

    /**
     * A TLS context, for clients that take one, trusting this {@link #startTls()} server's certificate
     * and nothing else.
     *
     * @throws IllegalStateException if this server serves plain HTTP
     */
    public SSLContext sslContext() {
        return requireTls().sslContext();
    }

    /**
     * A {@code PKCS12} trust store file holding this {@link #startTls()} server's certificate alone, for
     * clients configured with a file and a password (Hadoop's {@code ssl-client.xml}, a child JVM's
     * {@code -Djavax.net.ssl.trustStore}); deleted by {@link #close()}.
     *
     * @throws IllegalStateException if this server serves plain HTTP
     */
    public TrustStore trustStore() {
        return requireTls().trustStore();
    }

    /**
     * Makes this JVM's default TLS trust accept this {@link #startTls()} server's certificate, for
     * clients that cannot be handed a trust manager (Hadoop S3A, Iceberg's {@code S3FileIO}, anything
     * that builds its own SDK client): sets {@code javax.net.ssl.trustStore}, {@code
     * javax.net.ssl.trustStorePassword} and {@code javax.net.ssl.trustStoreType} to {@link
     * #trustStore()}.
     *
     * <p>Caveats. Only TLS contexts made afterwards read the properties: a client built before the call
     * (its TLS context made then) still rejects the certificate, and so does anything on {@code
     * SSLContext.getDefault()} or {@code HttpsURLConnection}'s default socket factory once the JVM has
     * made them. While set, the JVM's default trust is this one certificate: clients made meanwhile
     * without trust managers of their own trust no public authority. The properties are JVM-wide, so
     * tests that rely on them must not run in parallel with other TLS tests.
     *
     * <p>What it leaves behind: {@link #close()} puts the three properties back as they were before the
     * call (unset, if they were), unless another call changed them since; TLS contexts made in between
     * keep trusting this certificate, whose trust store file is then gone.
     *
     * @throws IllegalStateException if this server serves plain HTTP
     */
    public synchronized void trustInJvmDefaults() {
        TrustStore trustStore = requireTls().trustStore();
        if (jvmDefaultTrust != null) {
            jvmDefaultTrust.restore(); // a second call: what close() restores stays what the first call found
        }
        jvmDefaultTrust = JvmDefaultTrust.install(trustStore);
    }

    /**
     * Adds a user who may read exactly {@code readableBuckets} (list them, find their region, GET and HEAD their
     * objects) and nothing else, through {@code rangefetch-minio-admin}: a read-only policy per set of buckets is made
     * the first time and attached to the user. With no buckets the user gets no policy and may do nothing. Buckets
     * need not exist yet.
     *
     * @throws IOException if there is no {@code rangefetch-minio-admin} binary, or one of its commands fails (its
     *     output is quoted, secret keys replaced by {@value MinioAdmin#REDACTED})
     * @throws IllegalArgumentException if MinIO would refuse the keys (access key under 3 characters,
     *     secret key under 8) or a bucket name is not one
     */
    public synchronized void addUser(String accessKey, String secretKey, List<String> readableBuckets)
            throws IOException {
        requireNonNull(accessKey, "accessKey is null");
        requireNonNull(secretKey, "secretKey is null");
        requireNonNull(readableBuckets, "readableBuckets is null");
        if (admin == null) {
            Path helper = findAdminBinary()
                    .orElseThrow(() -> new IOException("no " + MinioAdmin.HELPER + " binary: set MINIO_ADMIN_BINARY,"
                            + " or build it from testing/minio-admin onto the PATH or into $(go env GOPATH)/bin"
                            + " (see .ci/run)"));
            admin = MinioAdmin.connect(
                    helper, workDir.resolve("admin"), endpoint, ACCESS_KEY, SECRET_KEY, tls.map(Tls::certificate));
        }
        admin.addUser(accessKey, secretKey, List.copyOf(readableBuckets));
    }

    /**
     * Temporary credentials for the user {@code accessKey} from MinIO's STS {@code AssumeRole}: a new
     * access key, secret key and session token, valid for {@code duration}, that may do what the user's
     * policy lets it and no more. Root's credentials work too and may then do anything.
     *
     * @throws IllegalArgumentException if {@code duration} is under 15 minutes, which MinIO refuses
     * @throws software.amazon.awssdk.services.sts.model.StsException if MinIO refuses the request (an
     *     unknown user, a wrong secret key, a duration beyond its maximum)
     */
    public AwsSessionCredentials assumeRole(String accessKey, String secretKey, Duration duration) {
        return MinioSts.assumeRole(this, accessKey, secretKey, duration, Optional.empty());
    }

    /**
     * {@link #assumeRole(String, String, Duration)} narrowed further by {@code sessionPolicy}, an IAM
     * policy in JSON: the credentials may do only what both it and the user's policy allow.
     */
    public AwsSessionCredentials assumeRole(
            String accessKey, String secretKey, Duration duration, String sessionPolicy) {
        requireNonNull(sessionPolicy, "sessionPolicy is null");
        return MinioSts.assumeRole(this, accessKey, secretKey, duration, Optional.of(sessionPolicy));
    }

    /** Whether the MinIO process is still running; false once {@link #close()} returned. */
    public boolean isRunning() {
        return process.isAlive();
    }

    /**
     * The temporary directory holding the log (and the data, unless started on a kept data directory);
     * gone after {@link #close()}.
     */
    public Path workDirectory() {
        return workDir;
    }

    /**
     * Stops MinIO (SIGTERM, then SIGKILL after 10 s), waits for it to exit, deletes its temporary
     * directory; a kept data directory stays. Puts back the JVM's trust store properties if {@link
     * #trustInJvmDefaults()} set them and nobody changed them since.
     */
    @Override
    public void close() {
        synchronized (this) {
            if (jvmDefaultTrust != null) {
                jvmDefaultTrust.restore();
                jvmDefaultTrust = null;
            }
        }
        stopProcess();
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException shuttingDown) {
            // the hook is running or has run: nothing left to undo
        }
        try {
            deleteRecursively(workDir);
        } catch (IOException e) {
            throw new UncheckedIOException("could not delete " + workDir, e);
        }
    }

    private void stopProcess() {
        process.destroy();
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    if (!process.waitFor(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                        process.destroyForcibly();
                        process.waitFor(); // SIGKILL cannot be ignored
                    }
                    return;
                } catch (InterruptedException e) {
                    interrupted = true; // finish stopping first: a leaked server outlives this test run
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public String toString() {
        return "minio at " + endpoint;
    }

    private static int[] freeLoopbackPorts(int count) throws IOException {
        List<ServerSocket> sockets = new ArrayList<>();
        try {
            int[] ports = new int[count];
            for (int i = 0; i < count; i++) {
                // all held open together so the two ports differ
                ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
                sockets.add(socket);
                ports[i] = socket.getLocalPort();
            }
            return ports;
        } finally {
            for (ServerSocket socket : sockets) {
                socket.close();
            }
        }
    }

    private static String readQuietly(Path file) {
        try {
            return Files.readString(file, UTF_8);
        } catch (IOException e) {
            return "(no output: " + e + ")";
        }
    }

    static void deleteRecursively(Path root) throws IOException {
        requireNonNull(root, "root is null");
        if (!Files.exists(root)) {
            return;
        }
        try (var paths = Files.walk(root)) {
            List<Path> deepestFirst =
                    paths.sorted((a, b) -> b.getNameCount() - a.getNameCount()).toList();
            for (Path path : deepestFirst) {
                Files.deleteIfExists(path);
            }
        }
    }

    private Tls requireTls() {
        return tls.orElseThrow(() -> new IllegalStateException(this + " serves plain HTTP: start it with startTls()"));
    }

    /**
     * A trust store file, of type {@code PKCS12}. Its password guards only the file's integrity (it holds
     * no private key), so it is no secret.
     */
    public record TrustStore(Path path, String password) {
        public TrustStore {
            requireNonNull(path, "path is null");
            requireNonNull(password, "password is null");
        }

        public String type() {
            return LoopbackCertificate.TRUST_STORE_TYPE;
        }
    }

    /** What a TLS start made: the certificate, MinIO's certs directory, a trust store and a context. */
    private record Tls(LoopbackCertificate certificate, Path certsDir, TrustStore trustStore, SSLContext sslContext) {

        static Tls create(Path workDir) throws IOException {
            LoopbackCertificate certificate = LoopbackCertificate.create(CERTIFICATE_VALIDITY);
            Path certsDir = Files.createDirectory(workDir.resolve("certs"));
            certificate.writeServerFiles(certsDir.resolve("public.crt"), certsDir.resolve("private.key"));
            TrustStore trustStore = new TrustStore(workDir.resolve("truststore.p12"), TRUST_STORE_PASSWORD);
            certificate.writeTrustStore(trustStore.path(), trustStore.password().toCharArray());
            return new Tls(certificate, certsDir, trustStore, certificate.sslContext());
        }
    }

    /** MinIO could not bind a port that was free a moment earlier. */
    private static final class PortTakenException extends IOException {
        PortTakenException(String message) {
            super(message);
        }
    }
}
