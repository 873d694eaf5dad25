package io.rangefetch.testing.proxy;

/**
 * A {@link NetworkModel} in force, with the total-rate bucket every connection shares while it is. A
 * response takes the one current when its request arrives and keeps it to its end, so a model change
 * applies to responses that start after it.
 *
 * @param total the shared bucket, or null when the model has no total cap
 */
record Shaping(NetworkModel model, TokenBucket total) {

    /** Credit a connection or the whole proxy may spend at once: small, so caps hold over short transfers. */
    static final int BURST_BYTES = 64 * 1024;

    static Shaping of(NetworkModel model) {
        return new Shaping(model, bucket(model.totalBytesPerSecond()));
    }

    /** {@code model} in force after this one; the shared bucket carries over when its rate is unchanged. */
    Shaping next(NetworkModel model) {
        if (total != null && total.unitsPerSecond() == model.totalBytesPerSecond()) {
            return new Shaping(model, total);
        }
        return of(model);
    }

    /** A bucket for {@code bytesPerSecond}, or null for 0 (no cap). */
    static TokenBucket bucket(long bytesPerSecond) {
        return bytesPerSecond == 0 ? null : new TokenBucket(bytesPerSecond, BURST_BYTES, System::nanoTime);
    }
}
