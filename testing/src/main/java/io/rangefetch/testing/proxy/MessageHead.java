package io.rangefetch.testing.proxy;

import static java.nio.charset.StandardCharsets.ISO_8859_1;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.ProtocolException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The head of an HTTP/1.1 request or response (start line and header fields) as read off the wire. The
 * proxy forwards {@link #raw()} unchanged, so header order, case and values reach the other side exactly
 * as sent (SigV4 signs some of them, Host included); the parsed fields only decide framing and
 * connection reuse.
 */
record MessageHead(byte[] raw, String startLine, List<Field> fields) {

    /** Bigger heads are refused: S3 requests and responses carry a few KiB at most. */
    static final int MAX_BYTES = 64 * 1024;

    record Field(String name, String value) {}

    MessageHead {
        fields = List.copyOf(fields);
    }

    /**
     * Reads one head, up to and including the empty line that ends it; null if the stream ends before
     * its first byte (the peer closed an idle connection).
     */
    static MessageHead read(InputStream in) throws IOException {
        ByteArrayOutputStream raw = new ByteArrayOutputStream(1024);
        String startLine;
        do {
            // empty lines before a request line are allowed (RFC 9112, section 2.2)
            startLine = readLine(in, raw, true);
            if (startLine == null) {
                return null;
            }
        } while (startLine.isEmpty());
        List<Field> fields = new ArrayList<>();
        String line;
        while (!(line = readLine(in, raw, false)).isEmpty()) {
            int colon = line.indexOf(':');
            if (colon <= 0) {
                throw new ProtocolException("malformed header field: " + line);
            }
            fields.add(new Field(
                    line.substring(0, colon), line.substring(colon + 1).trim()));
        }
        return new MessageHead(raw.toByteArray(), startLine, fields);
    }

    /**
     * Reads a line ending in LF (CRLF or a bare LF) into {@code raw} and returns it without the line
     * ending; null if the stream ends before the line's first byte and {@code endAllowed}.
     */
    static String readLine(InputStream in, ByteArrayOutputStream raw, boolean endAllowed) throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream(128);
        int b;
        while ((b = in.read()) != '\n') {
            if (b < 0) {
                if (endAllowed && line.size() == 0) {
                    return null;
                }
                throw new ProtocolException("connection closed in the middle of a message head");
            }
            line.write(b);
            if (raw.size() + line.size() > MAX_BYTES) {
                throw new ProtocolException("message head longer than " + MAX_BYTES + " bytes");
            }
        }
        byte[] bytes = line.toByteArray();
        raw.write(bytes);
        raw.write('\n');
        int length = bytes.length > 0 && bytes[bytes.length - 1] == '\r' ? bytes.length - 1 : bytes.length;
        return new String(bytes, 0, length, ISO_8859_1);
    }

    /** The start line's space-separated parts: method, target, version; or version, status, reason. */
    String startLinePart(int index) throws ProtocolException {
        String[] parts = startLine.split(" ", 3);
        if (parts.length < 2 || index >= parts.length) {
            throw new ProtocolException("malformed start line: " + startLine);
        }
        return parts[index];
    }

    /** The first value of the field {@code name} (case-insensitive), or null. */
    String field(String name) {
        for (Field field : fields) {
            if (field.name().equalsIgnoreCase(name)) {
                return field.value();
            }
        }
        return null;
    }

    /** Whether any {@code name} field lists {@code token} among its comma-separated values. */
    boolean hasToken(String name, String token) {
        for (Field field : fields) {
            if (field.name().equalsIgnoreCase(name)) {
                for (String value : field.value().split(",")) {
                    if (value.trim().equalsIgnoreCase(token)) {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    /**
     * Whether the connection may carry another message after this one: HTTP/1.1 unless {@code Connection:
     * close}, HTTP/1.0 only with {@code Connection: keep-alive}.
     */
    boolean keepsAlive(String version) {
        if (hasToken("Connection", "close")) {
            return false;
        }
        return !version.toUpperCase(Locale.ROOT).equals("HTTP/1.0") || hasToken("Connection", "keep-alive");
    }

    /** The declared {@code Content-Length}, or -1 if there is none. */
    long contentLength() throws ProtocolException {
        String value = field("Content-Length");
        if (value == null) {
            return -1;
        }
        try {
            long length = Long.parseLong(value.trim());
            if (length < 0) {
                throw new ProtocolException("negative Content-Length: " + value);
            }
            return length;
        } catch (NumberFormatException e) {
            throw new ProtocolException("malformed Content-Length: " + value);
        }
    }
}
