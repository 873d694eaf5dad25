package io.rangefetch.testing.server;

import static java.util.Objects.requireNonNull;

import java.time.Duration;
import java.util.Optional;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsSessionCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.sts.StsClient;
import software.amazon.awssdk.services.sts.model.Credentials;

/**
 * {@link MinioServer#assumeRole}: MinIO's STS {@code AssumeRole}, which it serves on the S3 endpoint
 * itself, called with the SDK's STS client signed as the user who asks. MinIO needs no role ARN (the
 * credentials it returns carry the caller's own policy, narrowed by a session policy if one is given),
 * so none is sent.
 */
final class MinioSts {

    /** The shortest lifetime MinIO (as AWS) grants; shorter ones it refuses with "invalid token expiry". */
    static final Duration MIN_DURATION = Duration.ofMinutes(15);

    private MinioSts() {}

    static AwsSessionCredentials assumeRole(
            S3Server server, String accessKey, String secretKey, Duration duration, Optional<String> sessionPolicy) {
        requireNonNull(server, "server is null");
        requireNonNull(accessKey, "accessKey is null");
        requireNonNull(secretKey, "secretKey is null");
        requireNonNull(duration, "duration is null");
        requireNonNull(sessionPolicy, "sessionPolicy is null");
        if (duration.compareTo(MIN_DURATION) < 0 || duration.toSeconds() > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(
                    "duration must be at least " + MIN_DURATION + " (MinIO's minimum): " + duration);
        }
        try (StsClient sts = StsClient.builder()
                .endpointOverride(server.endpoint())
                .region(Region.of(server.region()))
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(accessKey, secretKey)))
                .httpClientBuilder(S3Clients.apacheHttpClient(server))
                .build()) {
            Credentials credentials = sts.assumeRole(request ->
                            request.durationSeconds((int) duration.toSeconds()).policy(sessionPolicy.orElse(null)))
                    .credentials();
            return AwsSessionCredentials.builder()
                    .accessKeyId(credentials.accessKeyId())
                    .secretAccessKey(credentials.secretAccessKey())
                    .sessionToken(credentials.sessionToken())
                    .expirationTime(credentials.expiration())
                    .build();
        }
    }
}
