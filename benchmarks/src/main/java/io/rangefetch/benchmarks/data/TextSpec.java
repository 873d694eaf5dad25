package io.rangefetch.benchmarks.data;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.LongConsumer;
import java.util.zip.CRC32C;

/**
 * A text object of {@code size} bytes: fixed-width lines of {@value #LINE_WIDTH} bytes, a ten-digit line
 * number, a space, letters from a seeded generator and a newline (the last line cut at {@code size}).
 *
 * <p>Fixed-width lines make every byte a function of its offset, so a workload can compute the bytes any
 * read should return (for random reads) or their checksum (for a full scan) without keeping the object.
 */
public record TextSpec(String key, long size, long seed) implements GeneratedObject {

    public static final int LINE_WIDTH = 64;
    private static final int NUMBER_DIGITS = 10;
    private static final int LETTERS = LINE_WIDTH - NUMBER_DIGITS - 2;
    private static final int WRITE_CHUNK = 1 << 20;

    public TextSpec {
        requireNonNull(key, "key is null");
        if (size <= 0) {
            throw new IllegalArgumentException("size must be positive: " + size);
        }
    }

    @Override
    public String marker() {
        return "text-v1 size=" + size + " seed=" + seed + " line=" + LINE_WIDTH;
    }

    @Override
    public long approximateSize() {
        return size;
    }

    @Override
    public void writeTo(Path file, LongConsumer progress) throws IOException {
        byte[] chunk = new byte[WRITE_CHUNK];
        try (OutputStream out = Files.newOutputStream(file)) {
            for (long offset = 0; offset < size; offset += chunk.length) {
                int length = (int) Math.min(chunk.length, size - offset);
                fill(offset, chunk, 0, length);
                out.write(chunk, 0, length);
                progress.accept(length);
            }
        }
    }

    /** Puts the object's bytes {@code [offset, offset + length)} into {@code buffer} at {@code start}. */
    public void fill(long offset, byte[] buffer, int start, int length) {
        if (offset < 0 || length < 0 || offset + length > size) {
            throw new IndexOutOfBoundsException("range " + offset + "+" + length + " outside 0.." + size);
        }
        byte[] line = new byte[LINE_WIDTH];
        long lineNumber = offset / LINE_WIDTH;
        int within = (int) (offset % LINE_WIDTH);
        int done = 0;
        while (done < length) {
            renderLine(lineNumber++, line);
            int count = Math.min(LINE_WIDTH - within, length - done);
            System.arraycopy(line, within, buffer, start + done, count);
            done += count;
            within = 0;
        }
    }

    /** The bytes {@code [offset, offset + length)}. */
    public byte[] bytes(long offset, int length) {
        byte[] bytes = new byte[length];
        fill(offset, bytes, 0, length);
        return bytes;
    }

    /** CRC32C of the whole object. */
    public long checksum() {
        CRC32C crc = new CRC32C();
        byte[] chunk = new byte[WRITE_CHUNK];
        for (long offset = 0; offset < size; offset += chunk.length) {
            int length = (int) Math.min(chunk.length, size - offset);
            fill(offset, chunk, 0, length);
            crc.update(chunk, 0, length);
        }
        return crc.getValue();
    }

    private void renderLine(long lineNumber, byte[] line) {
        long number = lineNumber;
        for (int i = NUMBER_DIGITS - 1; i >= 0; i--) {
            line[i] = (byte) ('0' + number % 10);
            number /= 10;
        }
        line[NUMBER_DIGITS] = ' ';
        long bits = 0;
        for (int i = 0; i < LETTERS; i++) {
            if (i % 12 == 0) { // 12 letters of 5 bits each per 64-bit value
                bits = GeneratedValues.mix(seed * 0x9E3779B97F4A7C15L + lineNumber * LETTERS + i);
            }
            line[NUMBER_DIGITS + 1 + i] = (byte) ('a' + (int) ((bits & 31) % 26));
            bits >>>= 5;
        }
        line[LINE_WIDTH - 1] = '\n';
    }
}
