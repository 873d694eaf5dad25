package io.rangefetch.it.server;

import io.rangefetch.testing.server.MinioServer;
import io.rangefetch.testing.server.S3Server;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.MinIOContainer;
import org.testcontainers.utility.DockerImageName;

/**
 * MinIO in a container, for machines that have a Docker engine but no {@code minio} binary. {@link
 * S3Servers#minio()} prefers the binary, which starts in about a second and needs no image pull.
 *
 * <p>{@link #dockerAvailable()} first looks for any sign of an engine (a {@code DOCKER_HOST}, a known
 * socket, a Testcontainers config file) and asks Testcontainers only when it finds one: Testcontainers'
 * own probe tries every strategy and logs each failure with a stack trace, which on our Docker-less
 * build machines would be noise on every run.
 */
public final class TestcontainersMinioServer implements S3Server {

    // Docker Hub stopped serving minio/minio; quay.io carries the same images.
    private static final DockerImageName IMAGE = DockerImageName.parse(
                    "quay.io/minio/minio:RELEASE.2025-09-07T16-13-09Z")
            .asCompatibleSubstituteFor("minio/minio");

    private final MinIOContainer container;
    private final URI endpoint;

    private TestcontainersMinioServer(MinIOContainer container) {
        this.container = container;
        this.endpoint = URI.create(container.getS3URL());
    }

    /** Whether a Docker engine answers; costs a few file checks when there is clearly none. */
    public static boolean dockerAvailable() {
        return engineHinted() && DockerClientFactory.instance().isDockerAvailable();
    }

    /** Starts the container (pulling the image if needed) and returns once MinIO answers. */
    public static TestcontainersMinioServer start() {
        MinIOContainer container =
                new MinIOContainer(IMAGE).withUserName(MinioServer.ACCESS_KEY).withPassword(MinioServer.SECRET_KEY);
        container.start();
        return new TestcontainersMinioServer(container);
    }

    private static boolean engineHinted() {
        if (System.getenv("DOCKER_HOST") != null) {
            return true;
        }
        String home = System.getProperty("user.home");
        List<Path> hints = new ArrayList<>();
        hints.add(Path.of("/var/run/docker.sock"));
        hints.add(Path.of(home, ".docker", "run", "docker.sock"));
        hints.add(Path.of(home, ".docker", "desktop", "docker.sock"));
        hints.add(Path.of(home, ".testcontainers.properties"));
        String runtimeDir = System.getenv("XDG_RUNTIME_DIR");
        if (runtimeDir != null) {
            hints.add(Path.of(runtimeDir, "docker.sock"));
            hints.add(Path.of(runtimeDir, "podman", "podman.sock"));
        }
        return hints.stream().anyMatch(Files::exists);
    }

    @Override
    public URI endpoint() {
        return endpoint;
    }

    @Override
    public String accessKey() {
        return container.getUserName();
    }

    @Override
    public String secretKey() {
        return container.getPassword();
    }

    @Override
    public String name() {
        return "minio";
    }

    /** Stops and removes the container. */
    @Override
    public void close() {
        container.stop();
    }

    @Override
    public String toString() {
        return "minio (container) at " + endpoint;
    }
}
