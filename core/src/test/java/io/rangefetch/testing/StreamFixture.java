package io.rangefetch.testing;

import io.rangefetch.StreamConfig;
import io.rangefetch.StreamFactory;
import io.rangefetch.format.FormatPolicy;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * An in-memory bucket and the factories a test opens over it. Registered as an extension
 * ({@code @RegisterExtension}), it closes every factory after each test.
 */
public final class StreamFixture implements AutoCloseable, AfterEachCallback {
    public static final String BUCKET = "bucket";
    public static final int MIB = 1024 * 1024;

    private final InMemoryObjectClient client = new InMemoryObjectClient();
    private final List<StreamFactory> factories = new ArrayList<>();
    private final Map<String, Long> lengths = new ConcurrentHashMap<>();

    public InMemoryObjectClient client() {
        return client;
    }

    public StreamFactory factory(StreamConfig config) {
        StreamFactory factory = StreamFactory.create(client, config);
        factories.add(factory);
        return factory;
    }

    /** A factory that uses exactly {@code policies} as its format policies, instead of those on the class path. */
    public StreamFactory factory(StreamConfig config, List<FormatPolicy> policies) {
        StreamFactory factory = StreamFactory.builder(client).config(config).formatPolicies(policies).build();
        factories.add(factory);
        return factory;
    }

    /** A factory with a 256 MiB cache, so tests do not depend on the JVM's heap size. */
    public StreamFactory factory() {
        return factory(StreamConfig.builder().cacheMaxMemory(256L * MIB).build());
    }

    /** Stores {@code length} bytes derived from the key; returns them. */
    public byte[] put(String key, int length) {
        byte[] data = TestData.bytes(length, key.hashCode());
        client.put(BUCKET, key, data);
        lengths.put(key, (long) length);
        return data;
    }

    public long length(String key) {
        return lengths.get(key);
    }

    @Override
    public void afterEach(ExtensionContext context) {
        close();
    }

    @Override
    public void close() {
        factories.forEach(StreamFactory::close);
    }
}
