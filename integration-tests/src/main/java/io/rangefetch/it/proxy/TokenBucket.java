package io.rangefetch.it.proxy;

import java.util.function.LongSupplier;

/**
 * A byte-rate cap with a small burst allowance, kept as a virtual schedule (the "generic cell rate
 * algorithm") rather than a token count: {@code nextFree} is when the bytes reserved so far would have
 * left at exactly the cap. A reservation moves it on by the reservation's cost and answers how long the
 * caller must wait so that it stays no more than {@code burst} bytes ahead of the cap.
 *
 * <p>It never sleeps itself, so the arithmetic is tested without a clock that moves; the caller sleeps
 * for the answer. Sleeping late is harmless: the schedule is absolute, so the next reservation waits
 * less, within the burst allowance. Reservations are served in call order, which makes one bucket
 * shared by several connections split the rate fairly. Thread-safe.
 */
final class TokenBucket {

  private static final long NANOS_PER_SECOND = 1_000_000_000L;

  private final long bytesPerSecond;
  private final long burstBytes;
  private final long burstNanos;
  private final LongSupplier nanoClock;
  private long nextFree; // guarded by this; a System.nanoTime() value, compared by difference only

  TokenBucket(long bytesPerSecond, long burstBytes, LongSupplier nanoClock) {
    if (bytesPerSecond <= 0) {
      throw new IllegalArgumentException("bytesPerSecond must be positive: " + bytesPerSecond);
    }
    if (burstBytes <= 0) {
      throw new IllegalArgumentException("burstBytes must be positive: " + burstBytes);
    }
    this.bytesPerSecond = bytesPerSecond;
    this.burstBytes = burstBytes;
    this.burstNanos = nanosFor(burstBytes);
    this.nanoClock = nanoClock;
    this.nextFree = nanoClock.getAsLong(); // starts full: a burst may leave at once
  }

  long bytesPerSecond() {
    return bytesPerSecond;
  }

  /**
   * Reserves {@code bytes} (at most the burst) and returns the nanoseconds to wait before sending them;
   * 0 while within the burst allowance.
   */
  synchronized long reserve(int bytes) {
    if (bytes <= 0 || bytes > burstBytes) {
      throw new IllegalArgumentException("bytes must be in 1.." + burstBytes + ": " + bytes);
    }
    long now = nanoClock.getAsLong();
    // idle time earns credit, but never more than the burst
    long start = nextFree - now < 0 ? now : nextFree;
    nextFree = start + nanosFor(bytes);
    return Math.max(0, nextFree - now - burstNanos);
  }

  private long nanosFor(long bytes) {
    // bytes stay below 2^33 (a burst) so the product cannot overflow
    return bytes * NANOS_PER_SECOND / bytesPerSecond;
  }
}
