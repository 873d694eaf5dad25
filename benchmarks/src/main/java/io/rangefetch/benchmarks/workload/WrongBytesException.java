package io.rangefetch.benchmarks.workload;

import java.io.IOException;

/** A reader returned bytes (or Parquet values) other than those the generator wrote. */
public final class WrongBytesException extends IOException {

    private static final long serialVersionUID = 1L;

    public WrongBytesException(String message) {
        super(message);
    }
}
