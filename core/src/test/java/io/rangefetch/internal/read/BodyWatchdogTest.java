package io.rangefetch.internal.read;

import static org.assertj.core.api.Assertions.assertThat;

import io.rangefetch.client.ByteRange;
import io.rangefetch.client.ObjectClient.ObjectContent;
import io.rangefetch.client.ObjectClient.ObjectMetadata;
import io.rangefetch.internal.time.TimeSource;
import java.io.ByteArrayInputStream;
import java.time.Duration;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The watchdog checks only while a body is watched, so that an idle factory's timer has nothing queued and its
 * thread can end. Checks are run by hand on an injected clock; the timer's period is an hour, so it never fires
 * by itself during a test.
 */
class BodyWatchdogTest {
    private final ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1);
    private final AtomicLong now = new AtomicLong();

    @AfterEach
    void stop() throws InterruptedException {
        timer.shutdownNow();
        assertThat(timer.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }

    private static ObjectContent body() {
        return new ObjectContent(
                new ByteArrayInputStream(new byte[4]), new ByteRange(0, 4), new ObjectMetadata(4, "e"));
    }

    @Test
    void checksRunOnlyWhileABodyIsWatched() {
        timer.setRemoveOnCancelPolicy(true);
        BodyWatchdog watchdog = new BodyWatchdog(new TimeSource(now::get, timer), Duration.ofHours(4));
        assertThat(watchdog.checking()).as("nothing watched yet").isFalse();
        assertThat(timer.getQueue()).isEmpty();

        BodyWatchdog.Watch first = watchdog.watch(body());
        BodyWatchdog.Watch second = watchdog.watch(body());
        assertThat(watchdog.checking()).isTrue();
        assertThat(timer.getQueue()).as("one check for every watched body").hasSize(1);

        first.close();
        watchdog.check();
        assertThat(watchdog.checking()).as("one body still watched").isTrue();

        second.close();
        watchdog.check();
        assertThat(watchdog.checking()).as("none left: the checks stop").isFalse();
        assertThat(timer.getQueue()).isEmpty();

        BodyWatchdog.Watch third = watchdog.watch(body());
        assertThat(watchdog.checking()).as("the next watch starts them again").isTrue();
        third.close();
    }

    @Test
    void aBodyThatStallsIsCutAndTheChecksStopWithIt() {
        BodyWatchdog watchdog = new BodyWatchdog(new TimeSource(now::get, timer), Duration.ofSeconds(1));
        BodyWatchdog.Watch stalled = watchdog.watch(body());
        now.addAndGet(TimeUnit.SECONDS.toNanos(2));
        watchdog.check();
        assertThat(stalled.timedOut()).isTrue();
        assertThat(watchdog.checking()).isFalse();
    }
}
