package io.rangefetch.internal.fetch;

/** Lets tests in other packages make and fire an abort as the scheduler would. */
public final class FetchAbortAccess {
    private FetchAbortAccess() {}

    public static FetchAbort abortable() {
        return new FetchAbort(false);
    }

    public static void abort(FetchAbort abort) {
        abort.abort();
    }
}
