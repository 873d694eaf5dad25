package io.rangefetch.hadoop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.util.Optional;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AnonymousCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3ServiceClientConfiguration;

/**
 * How {@link S3ASettingsClientRoute} (Hadoop 3.3's route) reads S3A's settings: the endpoint and region S3A 3.3 would
 * use, the settings it refuses to carry, and the client it builds. The GETs themselves are tested on Hadoop 3.3.6 by
 * rangefetch-hadoop-compat-tests.
 */
class S3ASettingsClientRouteTest {
    private static Configuration conf(String... keysAndValues) {
        Configuration conf = new Configuration(false);
        for (int i = 0; i < keysAndValues.length; i += 2) {
            conf.set(keysAndValues[i], keysAndValues[i + 1]);
        }
        return conf;
    }

    @Test
    void noEndpointIsAwsGlobalWithCrossRegionAccessInTheConfiguredRegionOrUsEast1() {
        assertThat(S3ASettingsClientRoute.endpoint(conf()))
                .isEqualTo(new S3ASettingsClientRoute.Endpoint(Optional.empty(), Region.US_EAST_1, true));
        assertThat(S3ASettingsClientRoute.endpoint(conf("fs.s3a.endpoint.region", "eu-west-2")))
                .isEqualTo(new S3ASettingsClientRoute.Endpoint(Optional.empty(), Region.EU_WEST_2, true));
        assertThat(S3ASettingsClientRoute.endpoint(conf("fs.s3a.endpoint", "s3.amazonaws.com")))
                .isEqualTo(new S3ASettingsClientRoute.Endpoint(Optional.empty(), Region.US_EAST_1, true));
    }

    @Test
    void anAwsRegionalEndpointNamesItsRegionUnlessOneIsConfigured() {
        assertThat(S3ASettingsClientRoute.endpoint(conf("fs.s3a.endpoint", "s3.eu-west-1.amazonaws.com")))
                .isEqualTo(new S3ASettingsClientRoute.Endpoint(
                        Optional.of(URI.create("https://s3.eu-west-1.amazonaws.com")), Region.EU_WEST_1, false));
        assertThat(S3ASettingsClientRoute.endpoint(conf("fs.s3a.endpoint", "s3-ap-southeast-2.amazonaws.com"))
                        .region())
                .isEqualTo(Region.AP_SOUTHEAST_2);
        assertThat(S3ASettingsClientRoute.endpoint(conf("fs.s3a.endpoint", "s3.dualstack.us-west-2.amazonaws.com"))
                        .region())
                .isEqualTo(Region.US_WEST_2);
        assertThat(S3ASettingsClientRoute.endpoint(conf(
                                "fs.s3a.endpoint",
                                "s3.eu-west-1.amazonaws.com",
                                "fs.s3a.endpoint.region",
                                "eu-central-1"))
                        .region())
                .isEqualTo(Region.EU_CENTRAL_1);
    }

    @Test
    void anotherStoresEndpointTakesItsSchemeFromTheSslSettingAndSignsForUsEast1UnlessConfigured() {
        assertThat(S3ASettingsClientRoute.endpoint(
                        conf("fs.s3a.endpoint", "127.0.0.1:9000", "fs.s3a.connection.ssl.enabled", "false")))
                .isEqualTo(new S3ASettingsClientRoute.Endpoint(
                        Optional.of(URI.create("http://127.0.0.1:9000")), Region.US_EAST_1, false));
        assertThat(S3ASettingsClientRoute.endpoint(conf("fs.s3a.endpoint", "minio.internal:9000"))
                        .override())
                .contains(URI.create("https://minio.internal:9000"));
        assertThat(S3ASettingsClientRoute.endpoint(
                        conf("fs.s3a.endpoint", "http://127.0.0.1:9000", "fs.s3a.endpoint.region", "local")))
                .isEqualTo(new S3ASettingsClientRoute.Endpoint(
                        Optional.of(URI.create("http://127.0.0.1:9000")), Region.of("local"), false));
        assertThatThrownBy(() -> S3ASettingsClientRoute.endpoint(conf("fs.s3a.endpoint", "http://")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("fs.s3a.endpoint");
    }

    @Test
    void accessPointsCustomSignersAndClientFactoriesAreRefusedNamingTheSetting() {
        assertThat(S3ASettingsClientRoute.unsupported(conf())).isEmpty();
        assertThat(S3ASettingsClientRoute.unsupported(
                        conf("fs.s3a.s3.client.factory.impl", "org.apache.hadoop.fs.s3a.DefaultS3ClientFactory")))
                .isEmpty();
        assertThat(S3ASettingsClientRoute.unsupported(
                        conf("fs.s3a.accesspoint.arn", "arn:aws:s3:eu-west-1:123456789012:accesspoint/lake")))
                .hasValueSatisfying(why -> assertThat(why).contains("fs.s3a.accesspoint.arn"));
        assertThat(S3ASettingsClientRoute.unsupported(conf("fs.s3a.signing-algorithm", "CustomSigner")))
                .hasValueSatisfying(why -> assertThat(why).contains("fs.s3a.signing-algorithm"));
        assertThat(S3ASettingsClientRoute.unsupported(conf("fs.s3a.s3.client.factory.impl", "com.example.Factory")))
                .hasValueSatisfying(why -> assertThat(why).contains("com.example.Factory"));
    }

    @Test
    void theBuiltClientHasTheEndpointRegionAndAddressingOfTheSettings() {
        Configuration conf = conf(
                "fs.s3a.endpoint", "http://127.0.0.1:9000",
                "fs.s3a.endpoint.region", "eu-west-3",
                "fs.s3a.path.style.access", "true",
                "fs.s3a.connection.timeout", "30s",
                "fs.s3a.connection.establish.timeout", "5000",
                "fs.s3a.proxy.host", "127.0.0.1",
                "fs.s3a.proxy.port", "3128",
                "fs.s3a.user.agent.prefix", "lake-job");
        try (S3Client client = S3ASettingsClientRoute.buildClient(conf, AnonymousCredentialsProvider.create())) {
            S3ServiceClientConfiguration built = client.serviceClientConfiguration();
            assertThat(built.endpointOverride()).contains(URI.create("http://127.0.0.1:9000"));
            assertThat(built.region()).isEqualTo(Region.EU_WEST_3);
        }
    }

    @Test
    void aProxyUserWithoutItsPasswordIsRefused() {
        Configuration conf = conf(
                "fs.s3a.endpoint", "http://127.0.0.1:9000",
                "fs.s3a.proxy.host", "127.0.0.1",
                "fs.s3a.proxy.username", "someone");
        assertThatThrownBy(() -> S3ASettingsClientRoute.buildClient(conf, AnonymousCredentialsProvider.create()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("fs.s3a.proxy.password");
    }
}
