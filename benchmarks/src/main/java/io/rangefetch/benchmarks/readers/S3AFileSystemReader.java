package io.rangefetch.benchmarks.readers;

import io.rangefetch.hadoop.RangefetchS3AFileSystem;
import java.io.IOException;
import java.util.Map;

/**
 * Hadoop S3A with Rangefetch's streams through its file system ({@code fs.s3a.impl=}{@link RangefetchS3AFileSystem}),
 * the way for the Hadoop lines without the stream factory seam (3.3.5 to 3.4.1): the same {@code s3a://} code as
 * the classic reader, S3A's own stream type left alone, every {@code open} and {@code openFile} a Rangefetch stream
 * with its default settings. Run it on those lines with {@code RANGEFETCH_BENCH_HADOOP=3.4.1} or {@code 3.3.6}
 * (benchmarks/bin/launch). See {@link S3ASession} for how files are opened.
 */
public final class S3AFileSystemReader implements ReaderUnderTest {

    private static final String STREAM_TYPE = "classic";
    private static final String IMPL_KEY = "fs.s3a.impl";
    private static final Map<String, String> FILE_SYSTEM = Map.of(IMPL_KEY, RangefetchS3AFileSystem.class.getName());

    @Override
    public String name() {
        return "S3A Rangefetch FS";
    }

    @Override
    public String configuration() {
        return S3ASession.describe(STREAM_TYPE) + "; " + IMPL_KEY + "=" + RangefetchS3AFileSystem.class.getName()
                + ", Rangefetch's default settings";
    }

    @Override
    public ReaderSession openSession(S3Target target) throws IOException {
        return S3ASession.open(target, STREAM_TYPE, FILE_SYSTEM);
    }
}
