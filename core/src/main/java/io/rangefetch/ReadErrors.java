package io.rangefetch;

import static java.util.Objects.requireNonNull;

import io.rangefetch.client.S3Location;
import io.rangefetch.internal.fetch.FetchCancelledException;
import java.io.EOFException;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.function.BooleanSupplier;

/**
 * What a stream's callers see when a read fails: only the documented exceptions. {@link ObjectChangedException}
 * for a changed object; {@link FileNotFoundException}, {@link EOFException} and {@link InterruptedIOException} as
 * they are; a closed factory as an {@link IOException} that says so; anything else the engine raised internally
 * as a plain {@link IOException} naming the object, with the internal one as its cause. Thread-safe.
 */
final class ReadErrors {
    private final S3Location location;
    private final BooleanSupplier factoryClosed;

    ReadErrors(S3Location location, BooleanSupplier factoryClosed) {
        this.location = requireNonNull(location, "location is null");
        this.factoryClosed = requireNonNull(factoryClosed, "factoryClosed is null");
    }

    IOException translate(IOException failure) {
        if (failure instanceof FetchCancelledException && factoryClosed.getAsBoolean()) {
            return new IOException("Stream factory is closed: cannot read " + location, failure);
        }
        if (failure instanceof ObjectChangedException
                || failure instanceof FileNotFoundException
                || failure instanceof EOFException
                || failure instanceof InterruptedIOException
                || failure.getClass() == IOException.class) {
            return failure;
        }
        // an internal type (a lost shared block, a dropped fetch, a transport's own exception): keep it as cause
        return new IOException("Reading " + location + " failed: " + failure.getMessage(), failure);
    }

    /** The same, for a failure that reaches a caller's future: unwrapped, and only I/O failures translated. */
    Throwable translate(Throwable failure) {
        Throwable cause = failure;
        while ((cause instanceof CompletionException || cause instanceof ExecutionException)
                && cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause instanceof IOException io ? translate(io) : cause;
    }
}
