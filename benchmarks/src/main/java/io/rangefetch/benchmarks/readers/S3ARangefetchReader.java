package io.rangefetch.benchmarks.readers;

import io.rangefetch.hadoop.RangefetchStreamFactory;
import java.io.IOException;
import java.util.Map;

/**
 * Hadoop S3A with Rangefetch's stream factory ({@code fs.s3a.input.stream.type=custom},
 * {@code fs.s3a.input.stream.custom.factory=io.rangefetch.hadoop.RangefetchStreamFactory}): the same
 * {@code s3a://} code as the classic and analytics readers, every read a Rangefetch stream with its default
 * settings, its GETs sent through S3A's client. See {@link S3ASession} for how files are opened.
 */
public final class S3ARangefetchReader implements ReaderUnderTest {

    private static final String STREAM_TYPE = "custom";
    private static final String FACTORY_KEY = "fs.s3a.input.stream.custom.factory";
    private static final Map<String, String> FACTORY = Map.of(FACTORY_KEY, RangefetchStreamFactory.class.getName());

    @Override
    public String name() {
        return "S3A Rangefetch";
    }

    @Override
    public String configuration() {
        return S3ASession.describe(STREAM_TYPE) + "; " + FACTORY_KEY + "=" + RangefetchStreamFactory.class.getName()
                + ", Rangefetch's default settings";
    }

    @Override
    public ReaderSession openSession(S3Target target) throws IOException {
        return S3ASession.open(target, STREAM_TYPE, FACTORY);
    }
}
