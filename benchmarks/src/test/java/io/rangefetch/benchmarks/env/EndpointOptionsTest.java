package io.rangefetch.benchmarks.env;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rangefetch.testing.server.ExternalS3Endpoint;
import java.net.URI;
import java.util.Map;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class EndpointOptionsTest {

    @Test
    void noBucketAndNoEndpointMeansTheEmbeddedServer() {
        assertThat(parse().external(Map.of("AWS_ACCESS_KEY_ID", "key"))).isEmpty();
    }

    @Test
    void aBucketAloneMeansS3InTheRegionWithCredentialsFromTheEnvironment() {
        ExternalS3Endpoint endpoint = parse("--bucket", "mine")
                .external(Map.of(
                        "AWS_ACCESS_KEY_ID", "key", "AWS_SECRET_ACCESS_KEY", "secret", "AWS_REGION", "eu-west-1"))
                .orElseThrow();

        assertThat(endpoint.endpoint()).isEqualTo(URI.create("https://s3.eu-west-1.amazonaws.com"));
        assertThat(endpoint.bucket()).contains("mine");
        assertThat(endpoint.region()).isEqualTo("eu-west-1");
        assertThat(endpoint.accessKey()).isEqualTo("key");
        assertThat(endpoint.secretKey()).isEqualTo("secret");
    }

    @Test
    void optionsWinOverTheEnvironment() {
        ExternalS3Endpoint endpoint = parse(
                        "--bucket",
                        "b",
                        "--endpoint",
                        "http://127.0.0.1:9000",
                        "--region",
                        "us-west-2",
                        "--access-key",
                        "k",
                        "--secret-key",
                        "s")
                .external(Map.of(
                        "AWS_ACCESS_KEY_ID",
                        "env-key",
                        "AWS_SECRET_ACCESS_KEY",
                        "env-secret",
                        "AWS_ENDPOINT_URL",
                        "http://elsewhere"))
                .orElseThrow();

        assertThat(endpoint.endpoint()).isEqualTo(URI.create("http://127.0.0.1:9000"));
        assertThat(endpoint.region()).isEqualTo("us-west-2");
        assertThat(endpoint.accessKey()).isEqualTo("k");
    }

    @Test
    void anEndpointNeedsABucketAndCredentials() {
        assertThatThrownBy(() -> parse("--endpoint", "http://127.0.0.1:9000").external(Map.of()))
                .hasMessageContaining("--bucket");
        assertThatThrownBy(() -> parse("--bucket", "b").external(Map.of())).hasMessageContaining("AWS_ACCESS_KEY_ID");
    }

    private static EndpointOptions parse(String... args) {
        EndpointOptions options = new EndpointOptions();
        new CommandLine(options).parseArgs(args);
        return options;
    }
}
