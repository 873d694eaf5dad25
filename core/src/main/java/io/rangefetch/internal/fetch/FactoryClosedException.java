package io.rangefetch.internal.fetch;

/** The fetch was refused or stopped because the stream factory closed. */
public final class FactoryClosedException extends FetchCancelledException {
    private static final long serialVersionUID = 1L;

    public FactoryClosedException() {
        super("The stream factory is closed", null);
    }
}
