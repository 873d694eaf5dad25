package io.rangefetch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rangefetch.testing.ManualTime;
import io.rangefetch.testing.server.RangefetchThreads;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The one registry of shared factories: who shares (scope, every setting, the same objects), when a value is closed
 * (its last lease given back, after its linger, unless a lease comes first), and that a key keeps no secret. Time is a
 * {@link ManualTime}: lingering is tested by moving it, never by waiting.
 */
class SharedFactoriesTest {
    private static final Duration LINGER = Duration.ofMinutes(5);

    private final ManualTime time = new ManualTime();
    private final SharedFactories registry = new SharedFactories(time.scheduler());
    private final AtomicInteger made = new AtomicInteger();

    /** A shared value that knows whether it was closed. */
    private final class Value implements AutoCloseable {
        final int number = made.incrementAndGet();
        volatile boolean closed;

        @Override
        public void close() {
            closed = true;
        }
    }

    private SharedFactories.Lease<Value> lease(Object owner, SharedFactories.Key key, Duration linger) {
        return registry.leaseOf(owner, key, linger, Value::new);
    }

    private static SharedFactories.Key key(String secret, Object... same) {
        return SharedFactories.Key.of("test", Map.of("endpoint", "http://127.0.0.1:1", "secret.key", secret), same);
    }

    @Test
    void readersWithTheSameSettingsAndObjectsShareAndAnyDifferenceIsAnotherValue() {
        Object user = new Object();
        var first = lease(new Object(), key("s1", user), LINGER);
        var second = lease(new Object(), key("s1", user), LINGER);
        var otherSecret = lease(new Object(), key("s2", user), LINGER);
        var otherUser = lease(new Object(), key("s1", new Object()), LINGER);
        var otherScope = registry.<Value>leaseOf(
                new Object(),
                SharedFactories.Key.of("other", Map.of("endpoint", "http://127.0.0.1:1", "secret.key", "s1"), user),
                LINGER,
                Value::new);
        assertThat(second.value()).isSameAs(first.value());
        assertThat(java.util.List.of(otherSecret.value(), otherUser.value(), otherScope.value()))
                .doesNotContain(first.value())
                .doesNotHaveDuplicates();
        assertThat(registry.open()).isEqualTo(4);
    }

    @Test
    void withoutLingerTheLastLeaseClosesTheValueAtOnce() {
        var first = lease(new Object(), key("s"), Duration.ZERO);
        var second = lease(new Object(), key("s"), Duration.ZERO);
        first.release();
        assertThat(first.value().closed).isFalse();
        second.release();
        second.release(); // a second release does nothing
        assertThat(first.value().closed).isTrue();
        assertThat(registry.open()).isZero();
        assertThat(time.pendingTasks()).isZero();
    }

    @Test
    void aValueLingersAfterItsLastLeaseAndTheNextLeaseTakesItWarm() {
        var first = lease(new Object(), key("s"), LINGER);
        Value value = first.value();
        first.release();
        time.advance(LINGER.minusSeconds(1));
        assertThat(value.closed).as("lingering").isFalse();
        var next = lease(new Object(), key("s"), LINGER);
        assertThat(next.value()).isSameAs(value);
        time.advance(LINGER.multipliedBy(2));
        assertThat(value.closed)
                .as("a lease came before the linger ran out: it stays open")
                .isFalse();
        next.release();
        time.advance(LINGER.minusSeconds(1));
        assertThat(value.closed).isFalse();
        time.advance(Duration.ofSeconds(1));
        assertThat(value.closed).as("the linger of the last release ran out").isTrue();
        assertThat(registry.open()).isZero();
        assertThat(lease(new Object(), key("s"), LINGER).value()).isNotSameAs(value);
        assertThat(made).hasValue(2);
    }

    @Test
    void closeIdleClosesWhatLingersAndNothingLeased() {
        var leased = lease(new Object(), key("leased"), LINGER);
        var dropped = lease(new Object(), key("dropped"), LINGER);
        dropped.release();
        registry.closeLingering();
        assertThat(dropped.value().closed).isTrue();
        assertThat(leased.value().closed).isFalse();
        assertThat(registry.open()).isEqualTo(1);
        assertThat(time.pendingTasks()).as("the linger's task is cancelled").isZero();
    }

    @Test
    void aReaderNeverReleasedGivesItsLeaseBackWhenCollected() throws InterruptedException {
        Value value = lease(new Object(), key("collected"), Duration.ZERO).value();
        RangefetchThreads.collectUntil("the reader", Duration.ofSeconds(30), () -> value.closed);
        assertThat(registry.open()).isZero();
    }

    @Test
    void aKeyKeepsNoSecretAndNamesItsScope() {
        String secret = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";
        SharedFactories.Key key = key(secret);
        assertThat(key.toString()).startsWith("test ").doesNotContain(secret).doesNotContain("secret.key");
        assertThat(key).isEqualTo(key(secret)).hasSameHashCodeAs(key(secret)).isNotEqualTo(key(secret + "x"));
    }

    @Test
    void aNegativeLingerIsTheCallersMistake() {
        assertThatThrownBy(() -> lease(new Object(), key("s"), Duration.ofSeconds(-1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("linger");
    }
}
