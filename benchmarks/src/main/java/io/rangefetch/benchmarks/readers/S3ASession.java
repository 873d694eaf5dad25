package io.rangefetch.benchmarks.readers;

import static java.util.Objects.requireNonNull;

import io.rangefetch.benchmarks.readers.BenchmarkStream.Span;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.URI;
import java.nio.ByteBuffer;
import java.security.PrivilegedExceptionAction;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntFunction;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileRange;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.s3a.S3AFileStatus;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.util.VersionInfo;
import org.apache.hadoop.util.functional.FutureIO;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.apache.parquet.io.InputFile;

/**
 * One S3A file system for one measured run, with one input stream type ({@code fs.s3a.input.stream.type}),
 * every other setting at Hadoop's default apart from what a local endpoint needs.
 *
 * <p>Files are opened as Spark opens them from its file index: {@code openFile(path).withFileStatus(status)},
 * so the length (and the ETag, when known) comes from the listing and no HEAD is sent. The Parquet file is
 * parquet-java's own {@link HadoopInputFile#fromStatus}, which Spark hands to parquet-java.
 *
 * <p>Why a user per session: {@code HadoopInputFile.fromStatus} looks its file system up through Hadoop's
 * file system cache, which is keyed by scheme, bucket and user, not by configuration. With the cache disabled
 * (Spark leaves it enabled) every Parquet file would start an S3A instance nobody closes; with it enabled
 * two sessions of different stream types would share one instance. A remote user of its own gives each session
 * its own cached instance, shared by its streams and its Parquet files, and {@link
 * FileSystem#closeAllForUGI} closes exactly that instance when the session ends.
 */
final class S3ASession implements ReaderSession {

    private static final AtomicInteger SESSIONS = new AtomicInteger();
    // Hadoop 3.3's S3A is built on AWS SDK v1 (RANGEFETCH_BENCH_HADOOP=3.3.6)
    private static final boolean S3A_ON_SDK_V1 = VersionInfo.getVersion().startsWith("3.3.");
    // S3A reports this block size for objects it lists, unless fs.s3a.block.size says otherwise
    private static final long BLOCK_SIZE = 32L * 1024 * 1024;

    private final S3Target target;
    private final Configuration conf;
    private final UserGroupInformation user;
    private final FileSystem fs;

    private S3ASession(S3Target target, Configuration conf, UserGroupInformation user, FileSystem fs) {
        this.target = target;
        this.conf = conf;
        this.user = user;
        this.fs = fs;
    }

    /** Starts an S3A file system on {@code target} with the given {@code fs.s3a.input.stream.type}. */
    static S3ASession open(S3Target target, String streamType) throws IOException {
        return open(target, streamType, Map.of());
    }

    /** As {@link #open(S3Target, String)}, with more S3A options (a custom stream type's factory class). */
    static S3ASession open(S3Target target, String streamType, Map<String, String> options) throws IOException {
        requireNonNull(target, "target is null");
        Configuration conf = configuration(target, streamType);
        options.forEach(conf::set);
        UserGroupInformation user =
                UserGroupInformation.createRemoteUser("rangefetch-benchmark-" + SESSIONS.incrementAndGet());
        FileSystem fs = asUser(user, () -> FileSystem.get(URI.create("s3a://" + target.bucket() + "/"), conf));
        return new S3ASession(target, conf, user, fs);
    }

    /** What {@link #configuration} sets, for a reader's {@code configuration()}. */
    static String describe(String streamType) {
        return "Hadoop " + VersionInfo.getVersion() + " S3A, fs.s3a.input.stream.type=" + streamType
                + ", all else default but fs.s3a.endpoint,"
                + " endpoint.region, path.style.access, connection.ssl.enabled, bucket.probe=0 and static credentials"
                + " (SimpleAWSCredentialsProvider); " + sdk() + "; one S3AFileSystem per"
                + " session; openFile(path).withFileStatus(status) with the known length (ETag when known), no HEAD;"
                + " readFully(position) and native readVectored; Parquet through HadoopInputFile.fromStatus";
    }

    /**
     * An ETag as S3A's own listing gives it: on Hadoop 3.3 (AWS SDK v1) without its quotes, which S3A's classic
     * stream compares it to; later lines keep them.
     */
    private static String asListed(String etag) {
        return S3A_ON_SDK_V1 && etag.length() >= 2 && etag.startsWith("\"") && etag.endsWith("\"")
                ? etag.substring(1, etag.length() - 1)
                : etag;
    }

    /** Which AWS SDK S3A runs on: v1's bundle on Hadoop 3.3 (Rangefetch's GETs use the v2 modules even there). */
    private static String sdk() {
        return S3A_ON_SDK_V1
                ? "S3A on AWS SDK v1 (aws-java-sdk-bundle), Rangefetch on the SDK v2 modules 2.56.0"
                : "SDK modules 2.56.0 instead of the bundle";
    }

    static Configuration configuration(S3Target target, String streamType) {
        requireNonNull(streamType, "streamType is null");
        Configuration conf = new Configuration();
        // a session is one run, started cold as the baselines' runs are: Rangefetch's shared factory must not linger
        // from one session to the next and carry its cache over (factory.linger, 5 minutes by default)
        conf.set("fs.s3a.rangefetch.factory.linger", "0s");
        conf.set("fs.s3a.input.stream.type", streamType);
        conf.set("fs.s3a.endpoint", target.endpoint().toString());
        conf.set("fs.s3a.endpoint.region", target.region());
        conf.setBoolean("fs.s3a.path.style.access", target.pathStyle());
        conf.setBoolean(
                "fs.s3a.connection.ssl.enabled",
                "https".equalsIgnoreCase(target.endpoint().getScheme()));
        // no request to check that the bucket exists when the file system starts
        conf.setInt("fs.s3a.bucket.probe", 0);
        // the static keys only: the default chain would fall back to the instance metadata service
        conf.set("fs.s3a.aws.credentials.provider", "org.apache.hadoop.fs.s3a.SimpleAWSCredentialsProvider");
        conf.set("fs.s3a.access.key", target.accessKey());
        conf.set("fs.s3a.secret.key", target.secretKey());
        return conf;
    }

    @Override
    public BenchmarkStream open(String key, long length, Optional<String> etag) throws IOException {
        FileStatus status = status(key, length, etag);
        FSDataInputStream in = FutureIO.awaitFuture(
                fs.openFile(status.getPath()).withFileStatus(status).build());
        return new DelegatingBenchmarkStream(
                in, in::seek, in::readFully, Optional.of((spans, allocate) -> readVectored(in, spans, allocate)));
    }

    @Override
    public InputFile parquetFile(String key, long length, Optional<String> etag) throws IOException {
        FileStatus status = status(key, length, etag);
        // looked up as this session's user: the cache answers this session's file system
        return asUser(user, () -> HadoopInputFile.fromStatus(status, conf));
    }

    /** A listing's status: what Spark's file index holds for the object. */
    private FileStatus status(String key, long length, Optional<String> etag) {
        requireNonNull(key, "key is null");
        requireNonNull(etag, "etag is null");
        Path path = new Path("s3a://" + target.bucket() + "/" + key);
        return new S3AFileStatus(
                length,
                0,
                path,
                BLOCK_SIZE,
                user.getShortUserName(),
                etag.map(S3ASession::asListed).orElse(null),
                null);
    }

    @Override
    public void close() throws IOException {
        FileSystem.closeAllForUGI(user);
    }

    @Override
    public String toString() {
        return fs.getUri() + " as " + user.getShortUserName();
    }

    private static List<CompletableFuture<ByteBuffer>> readVectored(
            FSDataInputStream in, List<Span> spans, IntFunction<ByteBuffer> allocate) throws IOException {
        List<FileRange> ranges = new ArrayList<>(spans.size());
        for (Span span : spans) {
            ranges.add(FileRange.createFileRange(span.offset(), span.length()));
        }
        // the stream sets each range's future as it schedules the read
        in.readVectored(ranges, allocate);
        List<CompletableFuture<ByteBuffer>> results = new ArrayList<>(ranges.size());
        for (FileRange range : ranges) {
            results.add(range.getData());
        }
        return results;
    }

    private static <T> T asUser(UserGroupInformation user, PrivilegedExceptionAction<T> action) throws IOException {
        try {
            return user.doAs(action);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted starting S3A as " + user.getShortUserName());
        }
    }
}
