package io.rangefetch.it;

import io.rangefetch.SeekableS3InputStream.FileRange;
import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * A stream one {@link EntryPoint} opened, read through the entry point's own types ({@code FSDataInputStream},
 * Iceberg's {@code SeekableInputStream} and {@code RangeReadable}, or Rangefetch's stream): what {@link ReadKind}
 * asks of it.
 */
public interface EntryStream extends Closeable {
    /** Positioned: {@code buffer.length} bytes at {@code position}; the stream's position does not move. */
    void readFully(long position, byte[] buffer) throws IOException;

    void seek(long position) throws IOException;

    long getPos() throws IOException;

    /** Reads on from the position until {@code length} bytes or the end; returns how many. */
    int readNBytes(byte[] buffer, int offset, int length) throws IOException;

    /** The last {@code buffer.length} bytes (or the whole object if shorter), into the buffer's start. */
    int readTail(byte[] buffer) throws IOException;

    /** One vectored call for all {@code ranges}; the futures of their buffers, in the same order. */
    List<CompletableFuture<ByteBuffer>> readVectored(List<FileRange> ranges) throws IOException;

    /** The stream's object, for messages. */
    String describe();
}
