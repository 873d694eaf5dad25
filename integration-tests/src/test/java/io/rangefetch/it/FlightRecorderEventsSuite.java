package io.rangefetch.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.rangefetch.ObjectListing;
import io.rangefetch.SeekableS3InputStream;
import io.rangefetch.SeekableS3InputStream.FileRange;
import io.rangefetch.StreamConfig;
import io.rangefetch.client.S3Location;
import io.rangefetch.testing.proxy.Fault;
import io.rangefetch.testing.proxy.NetworkModel;
import io.rangefetch.testing.proxy.ProxiedRequest;
import io.rangefetch.testing.proxy.ProxyLedger;
import io.rangefetch.testing.server.S3Clients;
import java.net.URLDecoder;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.stream.Collectors;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Rangefetch's Flight Recorder events against what the server saw: a workload of streaming, positioned, vectored and
 * small-object reads, a throttled GET that is retried, and a listing is recorded, and every request the proxy's
 * ledger holds must have its event (same key, same range, same outcome), and no event may name a request the server
 * never saw. Subclassed once per server.
 */
abstract class FlightRecorderEventsSuite extends ProxiedS3ServerTestBase {
    private static final int KIB = 1024;
    private static final int MIB = 1024 * KIB;
    private static final List<String> EVENTS = List.of(
            "rangefetch.GetAttempt",
            "rangefetch.MetadataRequest",
            "rangefetch.ReadWait",
            "rangefetch.StreamOpened",
            "rangefetch.StreamClosed",
            "rangefetch.FactoryOpened",
            "rangefetch.FactoryClosed",
            "rangefetch.PredictionWasted",
            "rangefetch.GovernorChange",
            "rangefetch.CacheEviction",
            "rangefetch.BudgetFull");

    @TempDir
    Path directory;

    private byte[] large;
    private byte[] small;

    FlightRecorderEventsSuite() {
        super(NetworkModel.unshaped());
    }

    @BeforeAll
    void uploadObjects() {
        large = randomBytes(20 * MIB, 40);
        small = randomBytes(300 * KIB, 41);
        try (S3Client s3 = S3Clients.sync(server())) {
            put(s3, "events/large", large);
            put(s3, "events/small", small);
            put(s3, "events/other", small);
        }
    }

    @Test
    void everyRequestTheServerSawHasItsEventAndNoEventNamesARequestItDidNotSee() throws Exception {
        ProxyLedger ledger = countingLedger();
        Path file = directory.resolve("workload.jfr");
        // a small budget, so that a scan evicts and a prefetch finds no room: those events are recorded too
        StreamConfig config = StreamConfig.builder()
                .set(StreamConfig.CACHE_MAX_MEMORY, 12L * MIB)
                .build();
        try (Recording recording = new Recording()) {
            EVENTS.forEach(name -> recording.enable(name).withThreshold(Duration.ZERO));
            recording.start();
            withFactory(config, factory -> {
                try (SeekableS3InputStream stream = factory.open(location("events/large"))) {
                    byte[] buffer = new byte[64 * KIB];
                    long position = 0;
                    for (int read; (read = stream.read(buffer, 0, buffer.length)) > 0; position += read) {
                        assertSameBytes(large, Arrays.copyOf(buffer, read), position, "the scan");
                    }
                }
                try (SeekableS3InputStream stream = factory.open(location("events/large"))) {
                    byte[] buffer = new byte[100 * KIB];
                    for (long position : new long[] {3 * MIB + 17, 11 * MIB, 19 * MIB}) {
                        stream.readFully(position, buffer, 0, buffer.length);
                        assertSameBytes(large, buffer, position, "a positioned read");
                    }
                    List<FileRange> ranges = List.of(
                            FileRange.of(1 * MIB, 40 * KIB),
                            FileRange.of(7 * MIB, 40 * KIB),
                            FileRange.of(15 * MIB, 8));
                    stream.readVectored(ranges, ByteBuffer::allocate);
                    for (FileRange range : ranges) {
                        ByteBuffer data = range.data().get();
                        byte[] bytes = new byte[data.remaining()];
                        data.get(bytes);
                        assertSameBytes(large, bytes, range.offset(), "a vectored range");
                    }
                }
                // S3 asks for patience once: the GET is sent again, and both attempts are events
                failNextGets(Fault.SLOW_DOWN_503);
                try (SeekableS3InputStream stream = factory.open(location("events/small"))) {
                    byte[] whole = new byte[small.length];
                    stream.readFully(0, whole, 0, whole.length);
                    assertSameBytes(small, whole, 0, "the small object");
                }
                try (ObjectListing listing = factory.list(List.of(location("events/")))) {
                    assertThat(listing.toList()).hasSize(3);
                }
            });
            recording.stop();
            recording.dump(file);
        }
        List<RecordedEvent> events = RecordingFile.readAllEvents(file);
        List<RecordedEvent> gets = named(events, "rangefetch.GetAttempt");
        List<ProxiedRequest> seen = ledger.requests();

        // the same requests, each with its range and how it ended
        Map<String, Long> onTheWire = count(seen.stream()
                .filter(request -> request.method().equals("GET") && !request.isList())
                .map(request -> keyOf(request.target()) + " " + request.rangeHeader() + " " + request.status())
                .toList());
        Map<String, Long> recorded = count(gets.stream()
                .map(event -> event.getString("key") + " " + event.getString("range") + " " + event.getInt("status"))
                .toList());
        assertThat(recorded)
                .as(
                        "GET events against the GETs the server saw; outcomes %s",
                        count(gets.stream()
                                .map(event -> event.getString("range") + " " + event.getString("outcome"))
                                .toList()))
                .isEqualTo(onTheWire);
        assertThat(seen.stream().filter(request -> request.status() == 503)).hasSize(1);
        assertThat(gets.stream().filter(event -> event.getString("outcome").equals("throttled")))
                .singleElement()
                .satisfies(event -> assertThat(event.getInt("status")).isEqualTo(503));

        // bytes: each complete GET received what the server sent for it (an answer cut short is no complete GET)
        Map<String, Long> bodies = count(seen.stream()
                .filter(request -> request.method().equals("GET") && !request.isList() && request.status() == 206)
                .map(request -> request.rangeHeader() + " " + request.bodyBytes())
                .toList());
        Map<String, Long> received = count(gets.stream()
                .filter(event -> event.getString("outcome").equals("complete"))
                .map(event -> event.getString("range") + " " + event.getLong("received"))
                .toList());
        assertThat(received).isNotEmpty();
        received.forEach((answer, times) -> assertThat(bodies.getOrDefault(answer, 0L))
                .as("answers the server sent in full as %s", answer)
                .isGreaterThanOrEqualTo(times));

        // why they were sent: the scan's ramp, the footer-less first reads, the vectored ranges, the retry
        Set<String> causes =
                gets.stream().map(event -> event.getString("cause")).collect(Collectors.toSet());
        assertThat(causes).contains("first read", "sequential prefetch", "vectored");
        assertThat(gets.stream().filter(event -> event.getInt("attempt") == 2)).hasSize(1);

        // listings and HEADs: one event per request
        List<RecordedEvent> metadata = named(events, "rangefetch.MetadataRequest");
        assertThat(metadata.stream().filter(event -> event.getString("method").equals("LIST")))
                .hasSize((int) ledger.lists());
        assertThat(metadata.stream().filter(event -> event.getString("method").equals("HEAD")))
                .hasSize((int) ledger.heads());

        // the reader waited, and each wait is split between the phases of what it waited for
        List<RecordedEvent> waits = named(events, "rangefetch.ReadWait");
        assertThat(waits).isNotEmpty();
        assertThat(waits).allSatisfy(wait -> {
            assertThat(wait.getThread().getJavaName())
                    .isEqualTo(Thread.currentThread().getName());
            long parts = wait.getLong("queue")
                    + wait.getLong("throttle")
                    + wait.getLong("firstByte")
                    + wait.getLong("transfer")
                    + wait.getLong("backoff");
            assertThat(parts).isLessThanOrEqualTo(wait.getLong("waited"));
            assertThat(wait.getString("waitedOn"))
                    .isIn(
                            "scheduler queue",
                            "throttle place",
                            "first byte",
                            "transfer",
                            "backoff",
                            "another stream's GET",
                            "other");
        });
        assertThat(waits.stream().map(wait -> wait.getString("kind")).collect(Collectors.toSet()))
                .contains("first", "streaming", "positioned");

        // streams and the factory, each opened and closed once
        assertThat(named(events, "rangefetch.StreamOpened")).hasSize(3);
        assertThat(named(events, "rangefetch.StreamClosed"))
                .hasSize(3)
                .anySatisfy(closed -> assertThat(closed.getLong("bytesRead")).isEqualTo(large.length));
        assertThat(named(events, "rangefetch.FactoryOpened")).hasSize(1);
        assertThat(named(events, "rangefetch.FactoryClosed"))
                .singleElement()
                .satisfies(closed -> assertThat(closed.getLong("gets")).isEqualTo(gets.size()));
        // a 20 MiB scan through a 12 MiB budget evicts what it passed
        assertThat(named(events, "rangefetch.CacheEviction")).isNotEmpty();
    }

    private S3Location location(String name) {
        return new S3Location(bucket(), key(name));
    }

    /** The key a path-style request target names. */
    private String keyOf(String target) {
        int query = target.indexOf('?');
        String path = query < 0 ? target : target.substring(0, query);
        String prefix = "/" + bucket() + "/";
        return URLDecoder.decode(path.substring(path.indexOf(prefix) + prefix.length()), StandardCharsets.UTF_8);
    }

    private static List<RecordedEvent> named(List<RecordedEvent> events, String name) {
        List<RecordedEvent> named = new ArrayList<>();
        for (RecordedEvent event : events) {
            if (event.getEventType().getName().equals(name)) {
                named.add(event);
            }
        }
        return named;
    }

    private static Map<String, Long> count(List<String> values) {
        return values.stream().collect(Collectors.groupingBy(Function.identity(), TreeMap::new, Collectors.counting()));
    }
}
