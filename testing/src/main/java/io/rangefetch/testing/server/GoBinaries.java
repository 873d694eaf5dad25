package io.rangefetch.testing.server;

import static java.nio.charset.StandardCharsets.UTF_8;
import static java.util.Objects.requireNonNull;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Finds the Go programs the fixtures run ({@code minio}, {@code rangefetch-minio-admin}) where a developer or CI put
 * them: the file an environment variable names, else the program on the {@code PATH}, else {@code $(go env
 * GOPATH)/bin}, where {@code go install} (and {@code .ci/run}'s build of {@code rangefetch-minio-admin}) writes
 * without touching the {@code PATH}.
 */
final class GoBinaries {

    private GoBinaries() {}

    /**
     * The executable {@code $variable} names if set (and nothing if that is not an executable file),
     * else {@code name} on the {@code PATH}, else in {@code $(go env GOPATH)/bin}.
     */
    static Optional<Path> find(String name, String variable) {
        requireNonNull(name, "name is null");
        requireNonNull(variable, "variable is null");
        String configured = System.getenv(variable);
        if (configured != null && !configured.isBlank()) {
            Path path = Path.of(configured);
            return isExecutableFile(path) ? Optional.of(path) : Optional.empty();
        }
        String pathVariable = System.getenv("PATH");
        if (pathVariable != null) {
            for (String dir : pathVariable.split(File.pathSeparator)) {
                if (!dir.isEmpty() && isExecutableFile(Path.of(dir, name))) {
                    return Optional.of(Path.of(dir, name));
                }
            }
        }
        return goPath().map(dir -> dir.resolve("bin").resolve(name)).filter(GoBinaries::isExecutableFile);
    }

    private static boolean isExecutableFile(Path path) {
        return Files.isRegularFile(path) && Files.isExecutable(path);
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
}
