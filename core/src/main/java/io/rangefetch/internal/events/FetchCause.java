package io.rangefetch.internal.events;

/**
 * Why a GET was sent, as events and metrics name it.
 *
 * <p><b>Public because</b> {@code internal.read} gives each GET one and {@code internal.cache} keeps it with the
 * blocks it fills, to say which predictions were wasted.
 */
public enum FetchCause {
    /** A streaming or positioned read's own bytes. */
    DEMAND("demand", false),
    /** A vectored read's ranges. */
    VECTORED("vectored", false),
    /** Bytes ahead of a sequential reader. */
    SEQUENTIAL_PREFETCH("sequential prefetch", true),
    /** The next reads of a run of positioned reads at one stride. */
    STRIDE_PREFETCH("stride prefetch", true),
    /** What a format policy predicts a reader will read next (a Parquet file's columns, an ORC tail). */
    FORMAT_PREDICTION("format prediction", true),
    /** Ranges a caller asked to prefetch. */
    CALLER_PREFETCH("caller prefetch", true),
    /** An object small enough to read whole. */
    SMALL_OBJECT("small object", false),
    /** A file's tail, read first where its format keeps its footer. */
    FOOTER("footer", true),
    /** The request that learns an object's version, for the read that needed it. */
    FIRST_READ("first read", false);

    private final String label;
    private final boolean mayGoUnread;

    FetchCause(String label, boolean mayGoUnread) {
        this.label = label;
        this.mayGoUnread = mayGoUnread;
    }

    /** The name events and metrics use. */
    public String label() {
        return label;
    }

    /**
     * Whether GETs of this cause may fetch bytes before any reader asks for them (a footer may be fetched as the
     * stream opens), which may then leave the cache unread.
     */
    public boolean mayGoUnread() {
        return mayGoUnread;
    }
}
