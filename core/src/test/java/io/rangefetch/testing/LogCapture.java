package io.rangefetch.testing;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Records what is logged while it is open. The tests' logger (slf4j-simple) writes to whatever
 * {@code System.err} is when it logs, so this swaps in a stream that keeps a copy and passes everything on.
 * Lines from other tests' threads may land here too: count only lines that name the test's own object.
 */
public final class LogCapture implements AutoCloseable {
    private final PrintStream original = System.err;
    private final ByteArrayOutputStream copy = new ByteArrayOutputStream();

    private LogCapture() {}

    public static LogCapture start() {
        LogCapture capture = new LogCapture();
        System.setErr(new PrintStream(new Tee(capture.original, capture.copy), true, StandardCharsets.UTF_8));
        return capture;
    }

    /** How many warnings were logged whose line holds {@code text}. */
    public long warnings(String text) {
        String logged;
        synchronized (copy) {
            logged = copy.toString(StandardCharsets.UTF_8);
        }
        return Arrays.stream(logged.split("\\R"))
                .filter(line -> line.contains(" WARN ") && line.contains(text))
                .count();
    }

    /** Whether any line logged while open, at any level, holds {@code text}. */
    public boolean anyLineHolds(String text) {
        synchronized (copy) {
            return copy.toString(StandardCharsets.UTF_8).contains(text);
        }
    }

    @Override
    public void close() {
        System.setErr(original);
    }

    private static final class Tee extends OutputStream {
        private final PrintStream first;
        private final ByteArrayOutputStream second;

        Tee(PrintStream first, ByteArrayOutputStream second) {
            this.first = first;
            this.second = second;
        }

        @Override
        public void write(int b) {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] bytes, int offset, int length) {
            synchronized (second) {
                second.write(bytes, offset, length);
            }
            first.write(bytes, offset, length);
        }

        @Override
        public void flush() {
            first.flush();
        }
    }
}
