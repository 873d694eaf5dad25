package io.rangefetch.testing.server;

import static java.util.Objects.requireNonNull;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * {@link MinioServer#trustInJvmDefaults()}: points the JSSE system properties at one trust store, and
 * puts back what they said before when the server closes, unless someone changed them since.
 *
 * <p>Only TLS contexts initialised afterwards without trust managers of their own read the properties
 * (the JDK looks them up whenever such a context is made, but {@code SSLContext.getDefault()} and the
 * contexts of clients already built keep what they read first), so this can neither take effect for,
 * nor be undone from, a client that exists already. Guarded by the class: the properties are JVM-wide.
 */
final class JvmDefaultTrust {

    private static final String STORE = "javax.net.ssl.trustStore";
    private static final String PASSWORD = "javax.net.ssl.trustStorePassword";
    private static final String TYPE = "javax.net.ssl.trustStoreType";

    private final MinioServer.TrustStore installed;
    private final Map<String, String> previous;

    private JvmDefaultTrust(MinioServer.TrustStore installed, Map<String, String> previous) {
        this.installed = installed;
        this.previous = previous;
    }

    /** Sets the three properties to {@code trustStore}, remembering their values (or absence) before. */
    static JvmDefaultTrust install(MinioServer.TrustStore trustStore) {
        requireNonNull(trustStore, "trustStore is null");
        synchronized (JvmDefaultTrust.class) {
            Map<String, String> previous = new LinkedHashMap<>(); // null values: the property was unset
            for (String name : new String[] {STORE, PASSWORD, TYPE}) {
                previous.put(name, System.getProperty(name));
            }
            System.setProperty(STORE, trustStore.path().toString());
            System.setProperty(PASSWORD, trustStore.password());
            System.setProperty(TYPE, trustStore.type());
            return new JvmDefaultTrust(trustStore, previous);
        }
    }

    /**
     * Puts the earlier values back if the properties still name the store installed here; if another
     * store was installed since, its owner restores, and this does nothing.
     */
    void restore() {
        synchronized (JvmDefaultTrust.class) {
            if (!installed.path().toString().equals(System.getProperty(STORE))) {
                return;
            }
            previous.forEach((name, value) -> {
                if (value == null) {
                    System.clearProperty(name);
                } else {
                    System.setProperty(name, value);
                }
            });
        }
    }
}
