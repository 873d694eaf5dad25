package io.rangefetch.benchmarks.workload;

import io.rangefetch.benchmarks.data.StoredObject;
import io.rangefetch.benchmarks.data.TextSpec;
import io.rangefetch.benchmarks.readers.BenchmarkStream.Span;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * A range a workload reads and the bytes it must get, computed from the generator before any timed run (so
 * checking costs a comparison, not a generation).
 */
record ExpectedRange(StoredObject object, long offset, byte[] bytes) {

    static ExpectedRange of(TextSpec spec, StoredObject object, long offset, int length) {
        return new ExpectedRange(object, offset, spec.bytes(offset, length));
    }

    int length() {
        return bytes.length;
    }

    Span span() {
        return new Span(offset, bytes.length);
    }

    void check(byte[] actual) throws WrongBytesException {
        if (!Arrays.equals(bytes, actual)) {
            throw wrong();
        }
    }

    void check(ByteBuffer actual) throws WrongBytesException {
        if (actual == null || !actual.equals(ByteBuffer.wrap(bytes))) { // compares the remaining bytes
            throw wrong();
        }
    }

    private WrongBytesException wrong() {
        return new WrongBytesException(object.key() + ": wrong bytes in range " + offset + "+" + bytes.length);
    }
}
