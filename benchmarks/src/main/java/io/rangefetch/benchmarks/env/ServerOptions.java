package io.rangefetch.benchmarks.env;

import io.rangefetch.testing.server.ExternalS3Endpoint;
import java.nio.file.Path;
import java.util.Optional;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** The options both commands share for where to run: which server, which network, or which real endpoint. */
public final class ServerOptions {

    @Option(
            names = "--server",
            paramLabel = "minio|s3proxy",
            description = "Embedded server (default: minio when its binary is found, else s3proxy).")
    ServerKind server;

    @Mixin
    NetworkOptions network = new NetworkOptions();

    @Mixin
    EndpointOptions endpoint = new EndpointOptions();

    /**
     * The real endpoint the options name, else the chosen embedded server with the modelled network.
     *
     * @param minioData where MinIO keeps its data between runs; empty for a temporary directory
     */
    public BenchEnvironment start(Optional<Path> minioData, String bucket) throws Exception {
        Optional<ExternalS3Endpoint> external = endpoint.external();
        if (external.isPresent()) {
            return BenchEnvironment.external(external.get());
        }
        return BenchEnvironment.local(
                server != null ? server : ServerKind.preferred(), minioData, network.model(), bucket);
    }
}
