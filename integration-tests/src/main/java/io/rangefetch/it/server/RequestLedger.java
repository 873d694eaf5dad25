package io.rangefetch.it.server;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.http.SdkHttpMethod;
import software.amazon.awssdk.http.SdkHttpRequest;

/**
 * Counts the HTTP requests an SDK client actually sends, for tests that assert how many round trips an
 * operation costs. It hooks {@code beforeTransmission}, which runs once per attempt, so a request the
 * SDK retries counts once per try. Register it with {@link S3Clients#nettyAsync} or {@link
 * S3Clients#sync}; one ledger may serve several clients. Thread-safe.
 */
public final class RequestLedger implements ExecutionInterceptor {

  private final Map<SdkHttpMethod, Integer> counts = new EnumMap<>(SdkHttpMethod.class);
  private final List<String> getRanges = new ArrayList<>();

  @Override
  public void beforeTransmission(Context.BeforeTransmission context, ExecutionAttributes attributes) {
    SdkHttpRequest request = context.httpRequest();
    synchronized (this) {
      counts.merge(request.method(), 1, Integer::sum);
      if (request.method() == SdkHttpMethod.GET) {
        getRanges.add(request.firstMatchingHeader("Range").orElse(""));
      }
    }
  }

  /** Requests sent with {@code method} since creation or the last {@link #reset()}. */
  public synchronized int count(SdkHttpMethod method) {
    return counts.getOrDefault(method, 0);
  }

  public int gets() {
    return count(SdkHttpMethod.GET);
  }

  public int heads() {
    return count(SdkHttpMethod.HEAD);
  }

  public int puts() {
    return count(SdkHttpMethod.PUT);
  }

  /** Requests sent with any method. */
  public synchronized int total() {
    return counts.values().stream().mapToInt(Integer::intValue).sum();
  }

  /** Per-method counts; methods never sent are absent. */
  public synchronized Map<SdkHttpMethod, Integer> counts() {
    return Map.copyOf(counts);
  }

  /**
   * The {@code Range} header of every GET, in the order sent (retries included). A GET without one
   * (a whole object, a listing) appears as an empty string.
   */
  public synchronized List<String> getRanges() {
    return List.copyOf(getRanges);
  }

  /** Forgets everything counted so far, for example the requests a test's setup made. */
  public synchronized void reset() {
    counts.clear();
    getRanges.clear();
  }

  @Override
  public synchronized String toString() {
    return "RequestLedger" + counts + " GET ranges " + getRanges;
  }
}
