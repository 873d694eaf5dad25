package io.rangefetch.testing;

import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Threads a test reads on, besides its own: registered as an extension ({@code @RegisterExtension}), it stops
 * them after each test and fails the test if one does not end (a read still blocked is a leak). Thread-safe.
 */
public final class ReaderThreads implements AfterEachCallback {
    private static final long STOP_SECONDS = 30;

    private final ExecutorService threads = Executors.newCachedThreadPool(runnable -> {
        Thread thread = new Thread(runnable, "test-reader");
        thread.setDaemon(true);
        return thread;
    });

    public <T> Future<T> submit(Callable<T> call) {
        return threads.submit(call);
    }

    @Override
    public void afterEach(ExtensionContext context) throws InterruptedException {
        threads.shutdownNow();
        if (!threads.awaitTermination(STOP_SECONDS, TimeUnit.SECONDS)) {
            throw new AssertionError("A test's reader threads did not stop within " + STOP_SECONDS + " s");
        }
    }
}
