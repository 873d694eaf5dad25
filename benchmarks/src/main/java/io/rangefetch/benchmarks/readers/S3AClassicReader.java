package io.rangefetch.benchmarks.readers;

import java.io.IOException;

/**
 * Hadoop S3A's classic input stream ({@code fs.s3a.input.stream.type=classic}): one GET at a time, ranges
 * sized by its read policy, native vectored reads on S3A's thread pool. Hadoop 3.4.2 and earlier use it by
 * default; see {@link S3ASession} for how files are opened.
 */
public final class S3AClassicReader implements ReaderUnderTest {

    private static final String STREAM_TYPE = "classic";

    @Override
    public String name() {
        return "S3A classic";
    }

    @Override
    public String configuration() {
        return S3ASession.describe(STREAM_TYPE);
    }

    @Override
    public ReaderSession openSession(S3Target target) throws IOException {
        return S3ASession.open(target, STREAM_TYPE);
    }
}
