package io.rangefetch.internal.fetch;

import static org.assertj.core.api.Assertions.assertThat;

import io.rangefetch.internal.fetch.ThrottleGovernor.Permit;
import java.util.PriorityQueue;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The governor against a simulated S3, on simulated time: a closed loop of readers that always want 16 requests in
 * flight, each answered 20 ms after it is sent, by a server that answers 503 at random (noise, whatever the rate), or
 * above a request rate (a token bucket, as S3 throttles a prefix), or both. Each run is a seeded, deterministic
 * sequence of permits taken and given back through a real {@link ThrottleGovernor}; nothing sleeps.
 */
class LoadTestedLimitTest {
    private static final long RTT = TimeUnit.MILLISECONDS.toNanos(20);
    private static final int READERS = 16;
    private static final long SECONDS = 20;

    @Test
    void randomFiftyPercent503sDoNotSerializeTheReads() {
        Outcome tested = simulate(true, 0.5, 0, 1);
        Outcome plain = simulate(false, 0.5, 0, 1);
        assertThat(tested.meanInFlight).as("mean requests in flight under noise, tested (plain AIMD: %s)",
                plain.meanInFlight).isGreaterThanOrEqualTo(0.8 * READERS);
        assertThat(tested.noiseFloor).as("%s", tested).isBetween(0.3, 0.7);
        assertThat(tested.takesNoise).as("503s at this share are retried promptly").isTrue();
        assertThat(plain.meanInFlight).as("plain AIMD halves on the noise").isLessThan(0.4 * READERS);
        assertThat(tested.answers).isGreaterThan(2 * plain.answers);
    }

    @Test
    void randomTenPercent503sDoNotSerializeTheReadsEither() {
        Outcome tested = simulate(true, 0.1, 0, 2);
        assertThat(tested.meanInFlight).as("%s", tested).isGreaterThanOrEqualTo(0.8 * READERS);
    }

    @Test
    void aRequestRateLimitIsFoundAndFew503sAreSentAboveIt() {
        // 400 requests a second at 20 ms each: 8 in flight is the rate the server allows
        Outcome governed = simulate(true, 0, 400, 3);
        Outcome ungoverned = simulate(null, 0, 400, 3);
        assertThat(governed.meanInFlight).as("%s against %s", governed, ungoverned).isBetween(4.0, 11.0);
        assertThat(governed.throttled).as("503s with the governor (without: %s)", ungoverned.throttled)
                .isLessThan(ungoverned.throttled / 5);
        assertThat(governed.succeeded).as("answers served, of the server's %s", 400 * SECONDS)
                .isGreaterThan(400 * SECONDS * 7 / 10);
    }

    @Test
    void aRequestRateLimitUnderNoiseIsStillFound() {
        Outcome governed = simulate(true, 0.1, 400, 4);
        Outcome ungoverned = simulate(null, 0.1, 400, 4);
        assertThat(governed.meanInFlight).as("%s against %s", governed, ungoverned).isBetween(3.0, 12.0);
        assertThat(governed.throttled).isLessThan(ungoverned.throttled / 2);
    }

    @Test
    void aLoadFourTimesTheRateIsFoundToo() {
        // 200 requests a second: 4 in flight; the readers want 16, so the first halving leaves twice the rate
        Outcome governed = simulate(true, 0, 200, 5);
        Outcome ungoverned = simulate(null, 0, 200, 5);
        // two halvings leave it at the rate, where a step may see one 503 and take them for noise for a while: the
        // average share of 503s then stands far above that floor and the next trial finds the load
        assertThat(governed.meanInFlight).as("%s", governed).isBetween(2.0, 6.0);
        assertThat(governed.throttled).as("%s against %s", governed, ungoverned)
                .isLessThan(ungoverned.throttled / 8);
    }

    private record Outcome(double meanLimit, double meanInFlight, long answers, long succeeded, long throttled, double noiseFloor,
            boolean takesNoise) {}

    private record InFlight(long answeredAt, Permit permit, long sequence) {}

    /**
     * @param testsNoise the governor's mode, {@code null} for no governor
     * @param noise the share of requests answered 503 at random
     * @param rate the server's requests per second above which it answers 503 (0: none)
     */
    private static Outcome simulate(Boolean testsNoise, double noise, double rate, long seed) {
        AtomicLong now = new AtomicLong();
        Random random = new Random(seed);
        ThrottleGovernor governor = testsNoise == null ? null : new ThrottleGovernor("bucket",
                new ThrottleSettings(true, 1, 64, 16, 1, 0.5, testsNoise), now::get);
        PriorityQueue<InFlight> inFlight = new PriorityQueue<>((a, b) -> a.answeredAt != b.answeredAt
                ? Long.compare(a.answeredAt, b.answeredAt) : Long.compare(a.sequence, b.sequence));
        double tokens = 8;
        long lastRefill = 0;
        long sequence = 0;
        long answers = 0;
        long succeeded = 0;
        long throttled = 0;
        double limitTime = 0;
        double inFlightTime = 0;
        long lastEvent = 0;
        long end = TimeUnit.SECONDS.toNanos(SECONDS);
        while (now.get() < end) {
            // fill up to what the readers want and the governor allows
            while (inFlight.size() < READERS) {
                Permit permit = governor == null ? null : governor.tryAcquire();
                if (governor != null && permit == null) {
                    break;
                }
                inFlight.add(new InFlight(now.get() + RTT, permit, sequence++));
            }
            InFlight next = inFlight.poll();
            int limit = governor == null ? READERS : governor.limit();
            limitTime += (double) limit * (next.answeredAt - lastEvent);
            inFlightTime += (double) (inFlight.size() + 1) * (next.answeredAt - lastEvent);
            lastEvent = next.answeredAt;
            now.set(next.answeredAt);
            boolean slowDown = random.nextDouble() < noise;
            if (rate > 0) {
                // the server decides when the request arrives; half a round trip is when, within this model
                long arrived = next.answeredAt - RTT / 2;
                tokens = Math.min(8, tokens + rate * (arrived - lastRefill) / 1e9);
                lastRefill = Math.max(lastRefill, arrived);
                if (tokens >= 1) {
                    tokens--;
                } else {
                    slowDown = true;
                }
            }
            answers++;
            if (slowDown) {
                throttled++;
                if (next.permit != null) {
                    next.permit.throttled();
                }
            } else {
                succeeded++;
                if (next.permit != null) {
                    next.permit.succeeded();
                }
            }
        }
        double floor = governor == null ? 0 : governor.noiseFloor();
        return new Outcome(limitTime / lastEvent, inFlightTime / lastEvent, answers, succeeded, throttled, floor,
                governor != null && governor.takes503sForNoise());
    }
}
