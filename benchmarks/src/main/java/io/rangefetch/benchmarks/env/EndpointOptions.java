package io.rangefetch.benchmarks.env;

import io.rangefetch.testing.server.ExternalS3Endpoint;
import java.net.URI;
import java.util.Map;
import java.util.Optional;
import picocli.CommandLine.Option;

/**
 * Options that point a run at an S3 endpoint this process does not start (S3 itself, or any compatible
 * store), with the standard AWS environment variables as fallbacks. Given {@code --bucket} or {@code
 * --endpoint}, the run uses that endpoint instead of an embedded server, and no proxy: requests then go
 * over the real network and are not counted.
 */
public final class EndpointOptions {

    @Option(
            names = "--endpoint",
            paramLabel = "URL",
            description = "S3 endpoint of an existing store (default with --bucket: https://s3.<region>.amazonaws.com,"
                    + " or $AWS_ENDPOINT_URL_S3 / $AWS_ENDPOINT_URL).")
    URI endpoint;

    @Option(
            names = "--bucket",
            paramLabel = "NAME",
            description = "Bucket on that endpoint to write the data to and read it from.")
    String bucket;

    @Option(
            names = "--region",
            paramLabel = "REGION",
            description = "Signing region (default: $AWS_REGION, $AWS_DEFAULT_REGION, us-east-1).")
    String region;

    @Option(names = "--access-key", paramLabel = "KEY", description = "Access key id (default: $AWS_ACCESS_KEY_ID).")
    String accessKey;

    @Option(
            names = "--secret-key",
            paramLabel = "SECRET",
            description = "Secret access key (default: $AWS_SECRET_ACCESS_KEY).")
    String secretKey;

    /** The endpoint the options name, if they name one. */
    public Optional<ExternalS3Endpoint> external() {
        return external(System.getenv());
    }

    Optional<ExternalS3Endpoint> external(Map<String, String> env) {
        if (bucket == null && endpoint == null) {
            return Optional.empty();
        }
        if (bucket == null) {
            throw new IllegalArgumentException("--endpoint needs --bucket: the bucket the data goes to");
        }
        String signingRegion = first(region, env.get("AWS_REGION"), env.get("AWS_DEFAULT_REGION"), "us-east-1");
        URI uri = endpoint != null
                ? endpoint
                : URI.create(first(
                        env.get("AWS_ENDPOINT_URL_S3"),
                        env.get("AWS_ENDPOINT_URL"),
                        "https://s3." + signingRegion + ".amazonaws.com"));
        String key = first(accessKey, env.get("AWS_ACCESS_KEY_ID"), null);
        String secret = first(secretKey, env.get("AWS_SECRET_ACCESS_KEY"), null);
        if (key == null || secret == null) {
            throw new IllegalArgumentException("credentials needed for " + uri
                    + ": --access-key and --secret-key, or AWS_ACCESS_KEY_ID and " + "AWS_SECRET_ACCESS_KEY");
        }
        return Optional.of(ExternalS3Endpoint.of(uri, key, secret, signingRegion, Optional.of(bucket)));
    }

    private static String first(String... candidates) {
        for (String candidate : candidates) {
            if (candidate != null && !candidate.isBlank()) {
                return candidate;
            }
        }
        return null;
    }
}
