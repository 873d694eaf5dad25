package io.rangefetch.timeline;

import java.util.Locale;

/**
 * What a read's wait is split into, in the order the report lists them. Every nanosecond of a wait falls in exactly
 * one phase (see {@link WaitSplit}), so the phases of a total add up to it.
 */
enum Phase {
    FIRST_BYTE("first bytes", "#2b5b84"),
    TRANSFER("transfer", "#4c9a2a"),
    QUEUE("scheduler queue", "#e6b800"),
    THROTTLE("throttle", "#d62728"),
    BACKOFF("backoff", "#8c564b"),
    JOINED("another stream's GET", "#9467bd"),
    // a wait for nothing the GETs went through: a version lookup, a lock, a stage the events do not name
    OTHER("other", "#c7c7c7");

    private final String label;
    private final String colour;

    Phase(String label, String colour) {
        this.label = label;
        this.colour = colour;
    }

    String label() {
        return label;
    }

    /** The chart's fill for this phase. */
    String colour() {
        return colour;
    }

    /** The class attribute of the chart's segments of this phase, e.g. {@code phase-first-byte}. */
    String cssClass() {
        return "phase-" + name().toLowerCase(Locale.ROOT).replace('_', '-');
    }
}
