package io.rangefetch.testing.proxy;

import java.net.ProtocolException;

/**
 * How a message's body is delimited (RFC 9112, section 6.3), decided from its head alone so the proxy
 * can forward the body as it arrives and know where the next message starts.
 *
 * @param kind how the end is found
 * @param length the body's length for {@link Kind#LENGTH}, else -1
 */
record BodyFraming(Kind kind, long length) {

    enum Kind {
        /** No body at all. */
        NONE,
        /** Exactly {@code length} bytes. */
        LENGTH,
        /** {@code Transfer-Encoding: chunked}: chunks until a zero-size one, then trailer fields. */
        CHUNKED,
        /** A response without length or chunking: the body ends when the server closes the connection. */
        UNTIL_CLOSE
    }

    static final BodyFraming NONE = new BodyFraming(Kind.NONE, -1);
    static final BodyFraming CHUNKED = new BodyFraming(Kind.CHUNKED, -1);
    static final BodyFraming UNTIL_CLOSE = new BodyFraming(Kind.UNTIL_CLOSE, -1);

    static BodyFraming ofRequest(MessageHead request) throws ProtocolException {
        // chunked wins over a Content-Length sent beside it (RFC 9112, section 6.3, rule 3)
        if (request.hasToken("Transfer-Encoding", "chunked")) {
            return CHUNKED;
        }
        return ofLength(request.contentLength(), NONE);
    }

    static BodyFraming ofResponse(String requestMethod, int status, MessageHead response) throws ProtocolException {
        if (requestMethod.equals("HEAD") || status / 100 == 1 || status == 204 || status == 304) {
            return NONE; // whatever Content-Length says, it describes a body that is not sent
        }
        if (response.hasToken("Transfer-Encoding", "chunked")) {
            return CHUNKED;
        }
        return ofLength(response.contentLength(), UNTIL_CLOSE);
    }

    private static BodyFraming ofLength(long contentLength, BodyFraming withoutLength) {
        if (contentLength < 0) {
            return withoutLength;
        }
        return contentLength == 0 ? NONE : new BodyFraming(Kind.LENGTH, contentLength);
    }

    boolean isNone() {
        return kind == Kind.NONE;
    }
}
