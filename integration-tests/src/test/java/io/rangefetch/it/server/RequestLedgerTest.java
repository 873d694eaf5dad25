package io.rangefetch.it.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.InterceptorContext;
import software.amazon.awssdk.http.SdkHttpFullRequest;
import software.amazon.awssdk.http.SdkHttpMethod;
import software.amazon.awssdk.services.s3.model.GetObjectRequest;

class RequestLedgerTest {

  @Test
  void countsEveryTransmissionByMethodAndKeepsGetRangesInOrder() {
    RequestLedger ledger = new RequestLedger();

    send(ledger, SdkHttpMethod.GET, "bytes=0-99");
    send(ledger, SdkHttpMethod.GET, "bytes=0-99"); // a retry is a second request
    send(ledger, SdkHttpMethod.HEAD, null);
    send(ledger, SdkHttpMethod.GET, null);

    assertThat(ledger.gets()).isEqualTo(3);
    assertThat(ledger.heads()).isEqualTo(1);
    assertThat(ledger.puts()).isZero();
    assertThat(ledger.total()).isEqualTo(4);
    assertThat(ledger.getRanges()).containsExactly("bytes=0-99", "bytes=0-99", "");
  }

  @Test
  void resetForgetsEverything() {
    RequestLedger ledger = new RequestLedger();
    send(ledger, SdkHttpMethod.GET, "bytes=0-99");

    ledger.reset();

    assertThat(ledger.total()).isZero();
    assertThat(ledger.counts()).isEmpty();
    assertThat(ledger.getRanges()).isEmpty();
  }

  private static void send(RequestLedger ledger, SdkHttpMethod method, String range) {
    SdkHttpFullRequest.Builder request =
        SdkHttpFullRequest.builder().method(method).uri(URI.create("http://127.0.0.1:9000/bucket/key"));
    if (range != null) {
      request.putHeader("Range", range);
    }
    Context.BeforeTransmission context =
        InterceptorContext.builder()
            .request(GetObjectRequest.builder().bucket("bucket").key("key").build())
            .httpRequest(request.build())
            .build();
    ledger.beforeTransmission(context, new ExecutionAttributes());
  }
}
