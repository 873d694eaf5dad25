package io.rangefetch.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.rangefetch.client.ObjectClient.ListRequest;
import io.rangefetch.client.ObjectClient.ObjectAddress;
import io.rangefetch.client.ObjectClient.RangeGetRequest;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.awscore.AwsRequestOverrideConfiguration;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.SdkPlugin;
import software.amazon.awssdk.core.SdkRequest;
import software.amazon.awssdk.core.client.config.ClientOverrideConfiguration;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.services.s3.S3ServiceClientConfiguration;

/** Every SDK request Rangefetch builds is sent once by the SDK, whatever retries the client was built with. */
class SdkRequestsTest {
    private static final ObjectAddress OBJECT = new ObjectAddress("bucket", "key.bin");

    @Test
    void getHeadAndListRequestsCarryTheOneAttemptPlugin() {
        RangeGetRequest get = RangeGetRequest.of(OBJECT, new ByteRange(0, 10), "\"etag\"");
        assertThat(plugins(SdkRequests.getObject(get))).containsExactly(SdkRequests.ONE_ATTEMPT);
        assertThat(plugins(SdkRequests.headObject(OBJECT))).containsExactly(SdkRequests.ONE_ATTEMPT);
        ListRequest list = ListRequest.of("bucket", "prefix/", 1000);
        assertThat(plugins(SdkRequests.listObjects(list))).containsExactly(SdkRequests.ONE_ATTEMPT);
    }

    @Test
    void thePluginSetsOneAttemptAndKeepsTheRestOfTheClientsConfiguration() {
        ExecutionInterceptor interceptor = new ExecutionInterceptor() {};
        S3ServiceClientConfiguration.Builder config = S3ServiceClientConfiguration.builder()
                .overrideConfiguration(ClientOverrideConfiguration.builder()
                        .addExecutionInterceptor(interceptor)
                        .retryStrategy(AwsRetryStrategy.standardRetryStrategy().toBuilder()
                                .maxAttempts(10)
                                .build())
                        .build());

        SdkRequests.ONE_ATTEMPT.configureClient(config);

        ClientOverrideConfiguration after = config.overrideConfiguration();
        assertThat(after.retryStrategy())
                .hasValueSatisfying(
                        strategy -> assertThat(strategy.maxAttempts()).isEqualTo(1));
        assertThat(after.executionInterceptors()).containsExactly(interceptor);
    }

    private static List<SdkPlugin> plugins(SdkRequest request) {
        Optional<AwsRequestOverrideConfiguration> override =
                request.overrideConfiguration().map(AwsRequestOverrideConfiguration.class::cast);
        return override.map(AwsRequestOverrideConfiguration::plugins).orElse(List.of());
    }
}
