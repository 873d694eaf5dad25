package io.rangefetch.internal.list;

import java.time.Duration;
import java.util.Objects;

/**
 * How a listing runs ({@code list.*}): keys asked for a page, the most cursors one listing is split into, the
 * most LIST requests one listing has in flight, and how long a reader waits for one page (zero: no limit).
 *
 * <p><b>Public because</b> {@code io.rangefetch.EngineSettings} makes it from the configuration, and
 * {@code io.rangefetch.ObjectListing} hands it to each listing it starts.
 */
public record ListingSettings(int pageSize, int cursors, int parallelism, Duration pageWait) {

    public ListingSettings {
        Objects.requireNonNull(pageWait, "pageWait is null");
        if (pageSize < 1 || pageSize > 1000 || cursors < 1 || parallelism < 1 || pageWait.isNegative()) {
            throw new IllegalArgumentException("Invalid listing settings " + this);
        }
    }
}
