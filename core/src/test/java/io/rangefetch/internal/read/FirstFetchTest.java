package io.rangefetch.internal.read;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.github.benmanes.caffeine.cache.Ticker;
import io.rangefetch.client.HttpStatusException;
import io.rangefetch.client.ObjectClient.ObjectAddress;
import io.rangefetch.internal.cache.BlockCache;
import io.rangefetch.internal.cache.MetadataCache;
import io.rangefetch.internal.fetch.FetchAbort;
import io.rangefetch.internal.fetch.FetchScheduler;
import io.rangefetch.internal.identity.AccessIdentity;
import io.rangefetch.internal.plan.AccessHint;
import io.rangefetch.internal.plan.CoalescerSettings;
import io.rangefetch.internal.plan.PlannerSettings;
import io.rangefetch.internal.plan.RangeCoalescer;
import io.rangefetch.internal.plan.ReadPlanner;
import io.rangefetch.internal.stats.StatisticsCounter;
import io.rangefetch.testing.InMemoryObjectClient;
import io.rangefetch.testing.InMemoryObjectClient.Request;
import io.rangefetch.testing.ManualTime;
import io.rangefetch.testing.TestData;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The request that learns a stream's version learns it whole, whatever its answer: a read that starts past the end
 * gets the version from a HEAD sent in the same request, so the stream never goes back to "unknown" between the
 * 416 and the HEAD, when another read could pin the version without the asking read counted on it.
 */
class FirstFetchTest {
    private static final int KIB = 1024;

    private final InMemoryObjectClient client = new InMemoryObjectClient();
    private final ExecutorService threads = Executors.newCachedThreadPool();
    private final ManualTime time = new ManualTime();
    private final FetchScheduler scheduler = new FetchScheduler(2, threads, threads, time.timeSource());
    private final ReadPlanner planner =
            new ReadPlanner(new PlannerSettings(4 * KIB, 64 * KIB, 0, 2, 16 * KIB, 64 * KIB, 2, 16 * KIB, 16 * KIB));
    private final ReadEngine engine = new ReadEngine(
            client,
            new BlockCache(1024 * KIB),
            new MetadataCache(Duration.ofMinutes(1), 100, Ticker.systemTicker()),
            scheduler,
            planner,
            new RangeCoalescer(new CoalescerSettings(8 * KIB, 64 * KIB, 64 * KIB, 0.25)),
            RetrySettings.none(),
            time.timeSource());
    private final ObjectAddress address = new ObjectAddress("bucket", "key");

    @AfterEach
    void stop() {
        scheduler.close();
        threads.shutdownNow();
    }

    private FirstFetch.Learned learnFor(long position, String knownEtag) throws Exception {
        FirstFetch.Shape shape =
                new FirstFetch.Shape(position, 10, false, AccessHint.DETECT, Long.MAX_VALUE, planner, null, 0);
        return new FirstFetch(engine, address, AccessIdentity.unique(), StatisticsCounter.root())
                .run(shape, -1, knownEtag, FetchAbort.standalone());
    }

    @Test
    void aReadPastTheEndLearnsTheVersionWithAHeadInTheSameRequest() throws Exception {
        String etag = client.put("bucket", "key", TestData.bytes(100 * KIB, 1));

        FirstFetch.Learned learned = learnFor(200 * KIB, null);

        assertThat(learned.isEmpty()).isFalse();
        assertThat(learned.metadata().length()).isEqualTo(100 * KIB);
        assertThat(learned.metadata().etag()).isEqualTo(etag);
        assertThat(learned.direct()).isNull();
        assertThat(client.requests()).extracting(Request::method).containsExactly("GET", "HEAD");
        assertThat(client.requests().get(0).range()).startsWith("bytes=" + 200 * KIB + "-");
    }

    @Test
    void aReadAtTheStartOfAnEmptyObjectLearnsItIsEmptyWithoutAHead() throws Exception {
        client.put("bucket", "key", new byte[0]);

        FirstFetch.Learned learned = learnFor(0, null);

        assertThat(learned.isEmpty()).isTrue();
        assertThat(client.requests()).extracting(Request::method).containsExactly("GET");
    }

    @Test
    void aReadPastTheEndOfAChangedObjectWhoseEtagTheCallerNamedFailsOnTheGetAndSendsNoHead() throws Exception {
        String first = client.put("bucket", "key", TestData.bytes(100 * KIB, 1));
        client.put("bucket", "key", TestData.bytes(50 * KIB, 2));

        // S3 checks If-Match before the range: 412, not 416, so nothing learns the new version here
        assertThatThrownBy(() -> learnFor(200 * KIB, first))
                .isInstanceOfSatisfying(
                        HttpStatusException.class,
                        failure -> assertThat(failure.isPreconditionFailed()).isTrue());
        assertThat(client.requests()).extracting(Request::method).containsExactly("GET");
    }
}
