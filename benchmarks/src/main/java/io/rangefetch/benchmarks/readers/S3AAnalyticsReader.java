package io.rangefetch.benchmarks.readers;

import java.io.IOException;

/**
 * Hadoop S3A's analytics stream ({@code fs.s3a.input.stream.type=analytics}, the default from Hadoop 3.4.3):
 * the AWS analytics accelerator library behind S3A, on S3A's sync client, with the library's default
 * configuration. The library jar is the one {@link AnalyticsAcceleratorReader} uses (1.3.1): there is one on
 * the classpath. See {@link S3ASession} for how files are opened.
 */
public final class S3AAnalyticsReader implements ReaderUnderTest {

    private static final String STREAM_TYPE = "analytics";

    @Override
    public String name() {
        return "S3A analytics";
    }

    @Override
    public String configuration() {
        return S3ASession.describe(STREAM_TYPE) + "; analyticsaccelerator-s3 1.3.1, the same jar the direct"
                + " Analytics Accelerator reader uses";
    }

    @Override
    public ReaderSession openSession(S3Target target) throws IOException {
        return S3ASession.open(target, STREAM_TYPE);
    }
}
