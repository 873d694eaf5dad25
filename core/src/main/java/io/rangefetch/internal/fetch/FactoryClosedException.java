package io.rangefetch.internal.fetch;

/** The fetch was refused or stopped because the stream factory closed. */
final class FactoryClosedException extends FetchCancelledException {
    private static final long serialVersionUID = 1L;

    FactoryClosedException() {
        super("The stream factory is closed", null);
    }
}
