package io.rangefetch.testing.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

class ThreadLeakCheckerTest {

    @Test
    void threadsAliveBeforeTheSnapshotAreNotLeaks() throws InterruptedException {
        CountDownLatch release = new CountDownLatch(1);
        Thread old = start("leak-check-old", release);
        try {
            ThreadLeakChecker.snapshot().assertNoNewThreads("leak-check", Duration.ZERO);
        } finally {
            release.countDown();
            old.join();
        }
    }

    @Test
    void aThreadThatEndsWithinTheGraceIsNotALeak() {
        ThreadLeakChecker threads = ThreadLeakChecker.snapshot();
        CountDownLatch release = new CountDownLatch(1);
        start("leak-check-ending", release);
        release.countDown();

        threads.assertNoNewThreads("leak-check", Duration.ofSeconds(10));
    }

    @Test
    void aThreadStillAliveAfterTheGraceIsNamed() throws InterruptedException {
        ThreadLeakChecker threads = ThreadLeakChecker.snapshot();
        CountDownLatch release = new CountDownLatch(1);
        Thread leaked = start("leak-check-stuck", release);
        try {
            assertThat(threads.newThreads("leak-check")).containsExactly(leaked);
            assertThat(threads.newThreads("other-prefix")).isEmpty();
            assertThatThrownBy(() -> threads.assertNoNewThreads("leak-check", Duration.ofMillis(120)))
                    .isInstanceOf(AssertionError.class)
                    .hasMessageContaining("leak-check-stuck");
        } finally {
            release.countDown();
            leaked.join();
        }
    }

    private static Thread start(String name, CountDownLatch release) {
        Thread thread = new Thread(
                () -> {
                    try {
                        release.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                },
                name);
        thread.setDaemon(true);
        thread.start();
        return thread;
    }
}
