package io.rangefetch.benchmarks.readers;

import java.io.IOException;

/**
 * Closes a session's resources in order, all of them even when one fails, so a failed close never leaves
 * another client's threads running into the next measured run.
 */
final class Closer {

    private Closer() {}

    /** Closes each resource (nulls are skipped); the first failure is thrown with the others suppressed. */
    static void closeAll(AutoCloseable... resources) throws IOException {
        Exception failure = null;
        for (AutoCloseable resource : resources) {
            if (resource == null) {
                continue;
            }
            try {
                resource.close();
            } catch (Exception e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        if (failure == null) {
            return;
        }
        if (failure instanceof IOException io) {
            throw io;
        }
        if (failure instanceof RuntimeException runtime) {
            throw runtime;
        }
        if (failure instanceof InterruptedException) {
            Thread.currentThread().interrupt();
        }
        throw new IOException("Close failed: " + failure.getMessage(), failure);
    }
}
