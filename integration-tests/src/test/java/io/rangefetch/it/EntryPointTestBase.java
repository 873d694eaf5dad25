package io.rangefetch.it;

import io.rangefetch.SharedFactories;
import io.rangefetch.testing.proxy.NetworkModel;
import io.rangefetch.testing.server.ThreadLeakChecker;
import java.util.Map;

/**
 * Base of the suites written once for every {@link EntryPoint}: the fault suite and the soak. A subclass names
 * its server and makes its entry point through the proxy ({@link #proxied()}); the adapter modules subclass the
 * suites for theirs.
 */
public abstract class EntryPointTestBase extends ProxiedS3ServerTestBase {
    protected EntryPointTestBase(NetworkModel model) {
        super(model);
    }

    /**
     * The entry point the suite reads through, made for one test with Rangefetch {@code settings} (keys without
     * a prefix), on a fresh client to {@link #proxied()}.
     */
    protected abstract EntryPoint entryPoint(Map<String, String> settings) throws Exception;

    /**
     * Makes the entry point, runs the body, closes the entry point; every thread Rangefetch started must then end,
     * whatever the body did. An adapter's factory is shared and lingers after its last user closed
     * ({@code factory.linger}): what lingers once the test's entry point closed is closed here, so the next test's
     * entry point starts cold, as a fresh JVM's would, and the threads are checked after.
     */
    protected final void withEntryPoint(Map<String, String> settings, EntryPointBody body) throws Exception {
        ThreadLeakChecker threads = ThreadLeakChecker.snapshot();
        try (EntryPoint entryPoint = entryPoint(settings)) {
            body.run(entryPoint);
        } finally {
            SharedFactories.closeIdle();
        }
        threads.assertNoNewThreads(RANGEFETCH_THREADS, THREAD_GRACE);
    }

    @FunctionalInterface
    protected interface EntryPointBody {
        void run(EntryPoint entryPoint) throws Exception;
    }
}
