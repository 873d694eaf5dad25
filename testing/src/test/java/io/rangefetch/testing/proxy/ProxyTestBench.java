package io.rangefetch.testing.proxy;

import io.rangefetch.testing.server.ThreadLeakChecker;
import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * What one proxy test opens (scripted servers, proxies, raw clients, anything else it adds), closed in
 * reverse order by {@link #close()}, which then checks that no proxy or server thread outlived them. A
 * test class makes one per test and closes it after each. Not thread-safe: the test's thread uses it.
 */
final class ProxyTestBench implements AutoCloseable {

    private static final Duration THREAD_GRACE = Duration.ofSeconds(10);

    private final List<AutoCloseable> resources = new ArrayList<>();
    private final ThreadLeakChecker threads = ThreadLeakChecker.snapshot();

    ScriptedServer server(ScriptedServer.Handler handler) throws IOException {
        return add(ScriptedServer.start(handler));
    }

    ShapingProxy proxy(URI upstream, NetworkModel model) throws IOException {
        return add(ShapingProxy.start(upstream, model));
    }

    RawHttpClient client(ShapingProxy proxy) throws IOException {
        return add(new RawHttpClient(proxy.endpoint()));
    }

    /** Closes {@code resource} with the rest, before anything added earlier. */
    <T extends AutoCloseable> T add(T resource) {
        resources.add(resource);
        return resource;
    }

    /** Threads started since the bench was made, for tests that check them before the end. */
    ThreadLeakChecker threads() {
        return threads;
    }

    @Override
    public void close() throws Exception {
        for (int i = resources.size() - 1; i >= 0; i--) {
            resources.get(i).close();
        }
        threads.assertNoNewThreads(ShapingProxy.THREAD_NAME_PREFIX, THREAD_GRACE);
        threads.assertNoNewThreads(ScriptedServer.THREAD_PREFIX, THREAD_GRACE);
    }
}
