package io.rangefetch.it.server;

import static java.nio.charset.StandardCharsets.UTF_8;
import static java.util.Objects.requireNonNull;

import java.io.File;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.net.HttpURLConnection;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * A real MinIO server: the {@code minio} binary run as a child process on 127.0.0.1, with its data in a
 * temporary directory. Nothing needs Docker; {@code .ci/run} builds the binary with {@code go install}.
 *
 * <p>The binary is {@code $MINIO_BINARY} if set, else {@code minio} on the {@code PATH}, else
 * {@code $(go env GOPATH)/bin/minio}, where {@code go install} puts it.
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

    private final Process process;
    private final Path workDir;
    private final URI endpoint;
    private final Thread shutdownHook;

    private MinioServer(Process process, Path workDir, URI endpoint) {
        this.process = process;
        this.workDir = workDir;
        this.endpoint = endpoint;
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
        String configured = System.getenv("MINIO_BINARY");
        if (configured != null && !configured.isBlank()) {
            Path path = Path.of(configured);
            return isExecutableFile(path) ? Optional.of(path) : Optional.empty();
        }
        String pathVariable = System.getenv("PATH");
        if (pathVariable != null) {
            for (String dir : pathVariable.split(File.pathSeparator)) {
                if (!dir.isEmpty() && isExecutableFile(Path.of(dir, "minio"))) {
                    return Optional.of(Path.of(dir, "minio"));
                }
            }
        }
        return goPath().map(dir -> dir.resolve("bin").resolve("minio")).filter(MinioServer::isExecutableFile);
    }

    private static boolean isExecutableFile(Path path) {
        return Files.isRegularFile(path) && Files.isExecutable(path);
    }

    /** Starts MinIO and returns once it answers ready; fails if there is no binary. */
    public static MinioServer start() throws IOException {
        return start(Optional.empty());
    }

    /**
     * Starts MinIO on {@code dataDirectory} (created if missing), which {@link #close()} leaves in place:
     * objects written in one run are there in the next, so large generated data sets are made once. Only
     * one server at a time may use a directory.
     */
    public static MinioServer start(Path dataDirectory) throws IOException {
        requireNonNull(dataDirectory, "dataDirectory is null");
        return start(Optional.of(Files.createDirectories(dataDirectory)));
    }

    private static MinioServer start(Optional<Path> keptData) throws IOException {
        Path binary = findBinary()
                .orElseThrow(() ->
                        new IOException("no minio binary: set MINIO_BINARY, put minio on the PATH or run `go install"
                                + " github.com/minio/minio@<version>` (see .ci/run)"));
        IOException failure = null;
        for (int attempt = 1; attempt <= START_ATTEMPTS; attempt++) {
            try {
                return startOnce(binary, keptData);
            } catch (PortTakenException e) {
                failure = e; // someone took a port between our probe and MinIO's bind: try fresh ones
            }
        }
        throw failure;
    }

    private static MinioServer startOnce(Path binary, Optional<Path> keptData) throws IOException {
        // the log (and, unless the caller keeps the data, the data) lives in a directory close() deletes
        Path workDir = Files.createTempDirectory("rangefetch-minio-");
        Path dataDir = keptData.isPresent() ? keptData.get() : Files.createDirectory(workDir.resolve("data"));
        Path log = workDir.resolve("minio.log");
        int[] ports = freeLoopbackPorts(2);
        URI endpoint = URI.create("http://127.0.0.1:" + ports[0]);

        ProcessBuilder builder = new ProcessBuilder(
                        binary.toString(),
                        "server",
                        dataDir.toString(),
                        "--address",
                        "127.0.0.1:" + ports[0],
                        "--console-address",
                        "127.0.0.1:" + ports[1])
                .redirectErrorStream(true)
                .redirectOutput(log.toFile());
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
        MinioServer server = new MinioServer(process, workDir, endpoint);
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
            if (answersOk(ready)) {
                return;
            }
            if (System.nanoTime() > deadline) {
                throw new IOException(
                        "minio not ready at " + ready + " after " + READY_TIMEOUT + ":\n" + readQuietly(log));
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

    private static boolean answersOk(URI uri) {
        HttpURLConnection connection = null;
        try {
            connection = (HttpURLConnection) uri.toURL().openConnection();
            connection.setConnectTimeout(1_000);
            connection.setReadTimeout(1_000);
            // no keep-alive: a cached connection would start the JDK's Keep-Alive-Timer thread, which
            // outlives the check and shows up in thread-leak checks
            connection.setRequestProperty("Connection", "close");
            return connection.getResponseCode() == 200;
        } catch (IOException notYet) {
            return false;
        } finally {
            if (connection != null) {
                connection.disconnect();
            }
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
     * directory; a kept data directory stays.
     */
    @Override
    public void close() {
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

    private static Optional<Path> goPath() {
        try {
            Process go = new ProcessBuilder("go", "env", "GOPATH")
                    .redirectErrorStream(true)
                    .start();
            String out = new String(go.getInputStream().readAllBytes(), UTF_8).trim();
            if (go.waitFor(30, TimeUnit.SECONDS) && go.exitValue() == 0 && !out.isEmpty()) {
                // GOPATH may list several directories; go install writes to the first
                return Optional.of(Path.of(out.split(File.pathSeparator)[0]));
            }
            go.destroyForcibly();
        } catch (IOException noGo) {
            // no go on the PATH: fall back to its documented default
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
        String gopath = System.getenv("GOPATH");
        if (gopath != null && !gopath.isBlank()) {
            return Optional.of(Path.of(gopath.split(File.pathSeparator)[0]));
        }
        return Optional.of(Path.of(System.getProperty("user.home"), "go"));
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

    /** MinIO could not bind a port that was free a moment earlier. */
    private static final class PortTakenException extends IOException {
        PortTakenException(String message) {
            super(message);
        }
    }
}
