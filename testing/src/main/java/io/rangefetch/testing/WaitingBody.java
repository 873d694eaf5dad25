package io.rangefetch.testing;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;

/**
 * A response body whose bytes wait for a test's word before they flow, as a body on a slow wire looks to a
 * reader blocked on a socket: what held ({@link BodyHold}) and gated ({@link GatedObjectClient}) bodies share.
 */
abstract class WaitingBody extends FilterInputStream {

    WaitingBody(InputStream body) {
        super(body);
    }

    /** Returns once the body may flow; throws as a cut connection does when it may not any more. */
    protected abstract void awaitGo() throws IOException;

    @Override
    public int read() throws IOException {
        awaitGo();
        return super.read();
    }

    @Override
    public int read(byte[] buffer, int offset, int length) throws IOException {
        awaitGo();
        return super.read(buffer, offset, length);
    }

    @Override
    public long skip(long count) throws IOException {
        awaitGo();
        return super.skip(count);
    }
}
